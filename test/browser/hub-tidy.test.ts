/**
 * Tidying the jobs view, in a real browser against a real daemon: rows grouped by repository (each
 * group headed by its directory's name, with its count); ended rows folded away once they ended a
 * while ago (the preference's minutes; here a few hundredths of one) into one "N ended" line that
 * shows them again; Clear ended asks, naming the count, and removes the done and stopped rows with
 * `rm`, leaving the running ones.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { pageErrors, shot } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const hub = hubBrowser({ viewport: { width: 1200, height: 800 } });
let d: TestDaemon;
let c: RawClient;
let top: string;

beforeAll(async () => {
  d = await startDaemon({ config: { agentProfiles: { quick: { command: ["true"], task: "argv" } } } });
  c = await d.client();
  top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "roost-tidy-")));
  for (const name of ["alpha", "beta"]) fs.mkdirSync(path.join(top, name));
}, 60_000);
afterAll(async () => {
  await d?.cleanup();
  if (top) fs.rmSync(top, { recursive: true, force: true });
});

describe("tidying the jobs", () => {
  it("groups by repository, folds ended rows away after a while, and clears them after asking", async () => {
    const alpha = path.join(top, "alpha");
    const beta = path.join(top, "beta");
    const ended: string[] = [];
    for (const cwd of [alpha, alpha, beta])
      ended.push((await c.ok("dispatch", { profile: "quick", task: "x", cwd })).job.id);
    const shell = (await c.ok("dispatch", { profile: "shell", name: "the shell", cwd: beta })).job.id;
    for (const id of ended) await untilRow(c, id, "done", (r) => r.state === "done");

    // By repository: a group a directory, each with its rows.
    const { page } = await hub(d, { prefs: { order: "repo", foldEnded: 0 } });
    const heads = page.locator("ol.rows li.group");
    await expect
      .poll(async () => (await heads.allInnerTexts()).map((t) => t.toLowerCase()))
      .toEqual(["⎇ beta · 2", "⎇ alpha · 2"]);
    await shot(page, "tidy-by-repository");

    // Folded after a while (here 0.01 min): the ended rows go into one line, which shows them again.
    await page.locator("select.fold-ended").selectOption("10");
    await page.evaluate(() => {
      const p = JSON.parse(localStorage.getItem("roost.prefs") ?? "{}");
      localStorage.setItem("roost.prefs", JSON.stringify({ ...p, foldEnded: 0.01 }));
    });
    await page.reload();
    const fold = page.locator("li.ended-fold button");
    await expect.poll(() => fold.innerText(), { timeout: 15_000 }).toBe("▸ 3 ended jobs folded away");
    expect(await page.locator("ol.rows li.row").count()).toBe(1);
    await fold.click();
    await expect.poll(() => page.locator("ol.rows li.row").count()).toBe(4);
    expect(await fold.getAttribute("aria-expanded")).toBe("true");

    // Clear ended: asked, naming the count; then removed; the shell stays.
    await page.getByRole("button", { name: "Clear ended…" }).click();
    await page.locator(".clear-ended", { hasText: "Remove 3 ended jobs (done and stopped)?" }).waitFor();
    await page.locator(".clear-ended").getByRole("button", { name: "Remove", exact: true }).click();
    await page.locator(".clear-ended", { hasText: "Removed 3 jobs." }).waitFor();
    expect((await c.ok("list")).rows.map((r: { id: string }) => r.id)).toEqual([shell]);
    await expect.poll(() => page.locator("ol.rows li.row").count()).toBe(1);
    expect(pageErrors(page)).toEqual([]);
  }, 90_000);
});
