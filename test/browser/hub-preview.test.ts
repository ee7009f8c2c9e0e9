/**
 * The preview pane, in a real browser against a real daemon: on a wide screen the row the keyboard
 * is on shows beside the list, live (a shell job's terminal; a protocol agent's question with its
 * choices and what it did); j / k move it; Enter answers there (a choice focused, Enter on it sends
 * it); Esc goes back to the row in the list, the list where it was, scrolled as it was; on a
 * narrower screen there is no pane and Enter opens the job's page. Screenshots: preview-pane (a
 * terminal), preview-pane-question (a protocol agent's question).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { pageErrors, shot } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const hub = hubBrowser({ viewport: { width: 1400, height: 800 }, prefs: { preview: true } });
let d: TestDaemon;
let c: RawClient;
let dir: string;

beforeAll(async () => {
  d = await startDaemon({ config: { agentProfiles: { quick: { command: ["true"], task: "argv" } } } });
  c = await d.client();
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "roost-preview-")));
}, 60_000);
afterAll(async () => {
  await d?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const focusedId = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el?.closest(".preview")
      ? "preview"
      : (el?.closest<HTMLElement>("ol.rows li.row")?.dataset.id ?? null);
  });
const title = (page: Page) => page.locator(".preview .preview-title").innerText();

describe("the preview pane", () => {
  it("shows the row the keyboard is on beside the list; Enter answers there, Esc goes back, the list stays", async () => {
    const asks = await c.ok("dispatch", {
      profile: "example-py",
      name: "asks first",
      task: "echo hi > note.txt; rm note.txt",
      cwd: dir,
    });
    const shell = await c.ok("dispatch", {
      profile: "shell",
      name: "a shell",
      task: "echo preview-marker",
      cwd: dir,
    });
    for (let i = 1; i <= 30; i++)
      await c.ok("dispatch", { profile: "quick", name: `quick ${i}`, task: "x", cwd: dir });
    await untilRow(c, asks.job.id, "blocked", (r) => r.state === "blocked");

    // The shell's own size, before any browser shows it.
    const own = await c.ok("attach", { id: shell.job.id });
    await c.ok("detach", { id: shell.job.id });

    const { page } = await hub(d);
    const list = page.locator("ol.rows");
    await list.locator("li.row").nth(31).waitFor();
    expect(await page.locator(".preview").isHidden()).toBe(true); // nothing chosen yet

    // j: the first row (the blocked one, needs you first), in the pane with its question and choices.
    await page.keyboard.press("j");
    await expect.poll(() => title(page)).toBe("asks first");
    await page.locator(".preview .choices button", { hasText: "yes" }).waitFor();
    await page.locator(".preview ol.feed li").first().waitFor(); // what it did
    await shot(page, "preview-pane-question");

    // j again: the shell, its terminal live in the pane.
    await page.keyboard.press("j");
    await expect.poll(() => title(page)).toBe("a shell");
    await page.locator(".preview .xterm-rows", { hasText: "preview-marker" }).waitFor();
    await shot(page, "preview-pane");
    // A glance keeps the job's own size: the shell, asked through the pane, says it was not resized.
    await page.locator(".preview .xterm-helper-textarea").focus();
    await page.keyboard.type("stty size");
    await page.keyboard.press("Enter");
    await page.locator(".preview .xterm-rows", { hasText: `${own.rows} ${own.cols}` }).waitFor();
    await page.keyboard.press("Control+BracketRight"); // out of the terminal
    await page.keyboard.press("Escape"); // and back to the list

    // Far down the list, scrolled: Enter on an ended row (nothing to answer) and Esc keep it all.
    for (let i = 0; i < 25; i++) await page.keyboard.press("j");
    await expect.poll(() => title(page)).toMatch(/^quick /);
    const scrolled = await page.evaluate(() => window.scrollY);
    expect(scrolled).toBeGreaterThan(0);
    const at = await focusedId(page);
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedId(page)).toBe("preview");
    expect(page.url()).not.toContain("#/jobs/");
    await page.keyboard.press("Escape");
    await expect.poll(() => focusedId(page)).toBe(at);
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);

    // k back up to the blocked row; Enter: its first choice focused in the pane; Enter sends it.
    for (let i = 0; i < 30; i++) await page.keyboard.press("k");
    await expect.poll(() => focusedId(page)).toBe(asks.job.id);
    await expect.poll(() => title(page)).toBe("asks first");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.closest(".preview .choices") !== null))
      .toBe(true);
    await page.keyboard.press("Escape");
    await expect.poll(() => focusedId(page)).toBe(asks.job.id);
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedId(page)).toBe("preview");
    await page.keyboard.press("Enter"); // on the choice focused: "yes"
    await until("the answer in the feed", async () =>
      (await c.ok("events", { id: asks.job.id })).events.some((e: { kind: string }) => e.kind === "reply"),
    );
    await untilRow(c, asks.job.id, "past its question", (r) => r.state !== "blocked");

    // A narrower screen: no pane; Enter opens the job's page.
    await page.setViewportSize({ width: 1000, height: 800 });
    await expect.poll(() => page.locator(".preview").isHidden()).toBe(true);
    await list.locator(`li.row[data-id="${shell.job.id}"]`).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toContain(`#/jobs/${shell.job.id}`);
    expect(pageErrors(page)).toEqual([]);
  }, 120_000);
});
