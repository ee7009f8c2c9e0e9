/**
 * The phone layout, in a real browser (390 px wide, touch) against a real daemon: the header in
 * two lines at most, whatever it holds (a job that needs you, the board's count, the jobs' resources); a blocked job's
 * choice buttons at least 40 px tall, to hit with a thumb; nothing wider than the screen.
 * Screenshot: phone-layout.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { pageErrors, shot } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const hub = hubBrowser({ viewport: { width: 390, height: 844 }, mobile: true });
let d: TestDaemon;
let c: RawClient;
let dir: string;

beforeAll(async () => {
  d = await startDaemon();
  c = await d.client();
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "roost-phone-")));
}, 60_000);
afterAll(async () => {
  await d?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** How many lines the header's parts are laid in (by their boxes' vertical centres). */
const headerLines = (page: Page) =>
  page.locator("header.top").evaluate((header) => {
    const parts = Array.from(header.querySelectorAll<HTMLElement>(":scope > *, :scope nav a")).filter(
      (el) => el.offsetParent !== null && el.getBoundingClientRect().height > 0,
    );
    const centres = parts.map((el) => {
      const r = el.getBoundingClientRect();
      return Math.round((r.top + r.bottom) / 2);
    });
    const lines: number[] = [];
    for (const y of centres.sort((a, b) => a - b))
      if (!lines.some((l) => Math.abs(l - y) < 12)) lines.push(y);
    return lines.length;
  });

describe("the phone layout", () => {
  it("has its header in two lines and choice buttons a thumb can hit", async () => {
    const asks = await c.ok("dispatch", {
      profile: "example-py",
      name: "asks first",
      task: "echo hi > note.txt; rm note.txt",
      cwd: dir,
    });
    await c.ok("dispatch", { profile: "shell", name: "a shell", cwd: dir });
    await c.ok("task", { action: "add", title: "first" });
    await c.ok("task", { action: "add", title: "after the first", after: [1] }); // blocked: the tab counts it
    await untilRow(c, asks.job.id, "blocked", (r) => r.state === "blocked");

    const { page } = await hub(d);
    const row = page.locator(`li.row[data-id="${asks.job.id}"]`);
    const yes = row.locator("button.choice", { hasText: "yes" });
    await yes.waitFor();
    await page.locator("header .attention:visible").waitFor(); // "1 needs you"
    await page.locator('nav.tabs a[data-nav="board"] .tab-count:visible').waitFor(); // "1 blocked"
    // The running jobs' resources summed (read every 5 s): the header holds them too, hidden or not.
    await page.waitForFunction(() => !!document.querySelector("header .usage")?.textContent, null, {
      timeout: 20_000,
    });
    await shot(page, "phone-layout", true);
    expect(await headerLines(page)).toBeLessThanOrEqual(2);
    for (const b of await row.locator("button.choice").all())
      expect((await b.boundingBox())!.height).toBeGreaterThanOrEqual(40);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    expect(pageErrors(page)).toEqual([]);
  }, 90_000);
});
