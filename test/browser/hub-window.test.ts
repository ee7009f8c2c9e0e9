/**
 * The jobs list's window (web/src/rows-window.ts) in a real browser: with 500 rows (ended jobs in
 * the store the daemon starts on), only the rows on screen and a screenful either side are in the
 * DOM, each saying its place in the whole list (aria-posinset of aria-setsize); scrolled to the
 * bottom, the last rows are there and the first gone; the keyboard steps past the window's edge
 * into rows not drawn yet, focused and on screen; a filter shows exactly the rows it takes.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { homeWithEndedJobs } from "../helpers/ended-jobs.js";
import { api, pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const ROWS = 500;
/** A window of dense lines at 900 px: ~29 on screen, a screenful below (and above, once scrolled). */
const AT_MOST = 130;

/** Each 100th row, from the 8th, is a nightly rebuild: the rows a filter takes, spread over the list. */
const NAME = (i: number) => (i % 100 === 7 ? `nightly rebuild ${i}` : `batch job ${i}`);
const NIGHTLY = [7, 107, 207, 307, 407].map(NAME);

const openPage = hubBrowser({ viewport: { width: 1280, height: 900 } });
let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon({ home: homeWithEndedJobs(Array.from({ length: ROWS }, (_, i) => NAME(i))) });
  expect((await api(d, "list")).rows.length).toBe(ROWS);
  return () => d.cleanup();
}, 60000);

/** The rows in the DOM: each one's place in the list (aria-posinset) and the list's size it says. */
const drawn = (page: Page) =>
  page
    .locator("ol.rows > li.row")
    .evaluateAll((els) =>
      els.map((e) => [Number(e.getAttribute("aria-posinset")), Number(e.getAttribute("aria-setsize"))]),
    );
const places = async (page: Page) => (await drawn(page)).map(([at]) => at!);
const focusedPlace = (page: Page) =>
  page.evaluate(() => Number(document.activeElement?.getAttribute("aria-posinset")));
/** Whether the focused row is wholly on screen (to a pixel: a heading's height may be fractional). */
const focusedOnScreen = (page: Page) =>
  page.evaluate(() => {
    const box = document.activeElement!.getBoundingClientRect();
    return box.top >= -1 && box.bottom <= innerHeight + 1;
  });

describe("the jobs list at 500 rows", () => {
  it("holds a window of rows in the DOM, scrolls through them all, steps past its edge, filters", async () => {
    const { page } = await openPage(d);
    await page.locator(".rows-toolbar .count", { hasText: `${ROWS} jobs` }).waitFor();
    await expect.poll(async () => (await places(page))[0], { timeout: WAIT }).toBe(1);
    // A window's worth of rows, in order from the first, each saying the whole list's size.
    let rows = await drawn(page);
    expect(rows.length).toBeGreaterThanOrEqual(29);
    expect(rows.length).toBeLessThanOrEqual(AT_MOST);
    expect(rows.map(([at]) => at)).toEqual(rows.map((_, i) => i + 1));
    expect(new Set(rows.map(([, size]) => size))).toEqual(new Set([ROWS]));
    // The page is as tall as every row would make it: the scrollbar is the whole list's.
    const lineHeight = await page
      .locator("li.row")
      .first()
      .evaluate((e) => e.getBoundingClientRect().height);
    const tall = (await page.evaluate("document.documentElement.scrollHeight")) as number;
    expect(tall).toBeGreaterThan(ROWS * lineHeight);
    expect(tall).toBeLessThan(ROWS * lineHeight + 2000);

    // Scrolled to the bottom: the last rows are drawn, on screen, and the first are gone.
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
    await expect.poll(async () => (await places(page)).at(-1), { timeout: WAIT }).toBe(ROWS);
    rows = await drawn(page);
    expect(rows.length).toBeLessThanOrEqual(AT_MOST);
    expect(rows[0]![0]).toBeGreaterThan(ROWS - AT_MOST);
    const last = page.locator(`li.row[aria-posinset="${ROWS}"]`);
    expect(await last.evaluate((e) => e.getBoundingClientRect().bottom <= innerHeight + 1)).toBe(true);
    await shot(page, "window-500-bottom");

    // Back at the top, the keyboard steps down past the window's bottom edge: each row focused, on screen.
    await page.evaluate("window.scrollTo(0, 0)");
    await expect.poll(async () => (await places(page))[0], { timeout: WAIT }).toBe(1);
    const edge = (await places(page)).at(-1)!;
    await page.locator('li.row[aria-posinset="1"]').focus();
    for (let i = 1; i < edge + 5; i++) await page.keyboard.press("j");
    expect(await focusedPlace(page)).toBe(edge + 5);
    expect(await focusedOnScreen(page)).toBe(true);
    expect((await places(page)).length).toBeLessThanOrEqual(AT_MOST);

    // A row focused, the page scrolled far from it: the focused row stays (alone), and the next
    // step brings its neighbour (drawn nowhere then) in, focused and on screen.
    await page.evaluate("window.scrollTo(0, 0)");
    await expect.poll(async () => (await places(page))[0], { timeout: WAIT }).toBe(1);
    await page.locator('li.row[aria-posinset="3"]').focus();
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
    await expect.poll(async () => (await places(page)).at(-1), { timeout: WAIT }).toBe(ROWS);
    expect(await places(page)).toContain(3);
    expect(await places(page)).not.toContain(4);
    expect(await focusedPlace(page)).toBe(3);
    await page.keyboard.press("j");
    expect(await focusedPlace(page)).toBe(4);
    expect(await focusedOnScreen(page)).toBe(true);
    await page.keyboard.press("k");
    await page.keyboard.press("k");
    expect(await focusedPlace(page)).toBe(2);
    expect(await focusedOnScreen(page)).toBe(true);

    // A filter: exactly the rows it takes, however far the page was scrolled; their count said.
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
    await page.locator(".rows-toolbar .search").fill("nightly");
    await expect
      .poll(async () => (await page.locator("li.row .name").allTextContents()).sort(), { timeout: WAIT })
      .toEqual([...NIGHTLY].sort());
    await page.locator(".rows-toolbar .count", { hasText: `5 of ${ROWS} jobs` }).waitFor();
    expect(await drawn(page)).toEqual(NIGHTLY.map((_, i) => [i + 1, 5]));
    expect(await page.locator("ol.rows > li.spacer").count()).toBe(0);

    // The filter cleared: a window again, of the whole list.
    await page.locator(".rows-toolbar .search").fill("");
    await expect.poll(async () => (await drawn(page))[0]?.[1], { timeout: WAIT }).toBe(ROWS);
    expect((await places(page)).length).toBeLessThanOrEqual(AT_MOST);
    expect(pageErrors(page)).toEqual([]);
  });

  it("windows the roomy cards too: the last one reached by scrolling, select-all takes every row shown", async () => {
    const { page } = await openPage(d, { prefs: { density: "roomy" } });
    await page.locator("li.row .row-actions").first().waitFor({ timeout: WAIT });
    const cards = await places(page);
    expect(cards[0]).toBe(1);
    expect(cards.length).toBeLessThan(60);
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
    await expect.poll(async () => (await places(page)).at(-1), { timeout: WAIT }).toBe(ROWS);
    const last = page.locator(`li.row[aria-posinset="${ROWS}"]`);
    expect(await last.evaluate((e) => e.getBoundingClientRect().bottom <= innerHeight + 1)).toBe(true);
    // Selection is by row, not by element: select all takes the 500, drawn or not.
    await page.getByRole("checkbox", { name: "Select every job shown" }).check();
    await page.getByRole("region", { name: "Selected jobs" }).getByText(`${ROWS} selected`).waitFor();
    await page.evaluate("window.scrollTo(0, 0)");
    await expect.poll(async () => (await places(page))[0], { timeout: WAIT }).toBe(1);
    expect(await page.locator("li.row:not(.selected)").count()).toBe(0);
    expect(pageErrors(page)).toEqual([]);
  });

  // Last: it changes the jobs' order for any test after it.
  it("moves only the row whose place changed: one dragged down past four leaves the four in place", async () => {
    const { page } = await openPage(d, { prefs: { order: "mine", density: "roomy" } });
    await expect.poll(async () => (await places(page))[0], { timeout: WAIT }).toBe(1);
    const firstIds = () =>
      page
        .locator("ol.rows > li.row")
        .evaluateAll((els) => els.slice(0, 8).map((e) => e.getAttribute("data-id")!));
    const before = await firstIds();
    // Every row element taken out and put back (moved) from now on, by its job's id.
    await page.evaluate(() => {
      const out = new Set<Node>();
      const moved: string[] = [];
      (window as any).moved = moved;
      new MutationObserver((records) => {
        for (const r of records) {
          for (const n of r.removedNodes) out.add(n);
          for (const n of r.addedNodes)
            if (out.has(n)) moved.push((n as Element).getAttribute("data-id") ?? n.nodeName);
        }
      }).observe(document.querySelector("ol.rows")!, { childList: true });
    });
    // The first card dropped on the lower half of the fifth: after it.
    const fifth = page.locator(`li.row[data-id="${before[4]}"]`);
    const { height } = (await fifth.boundingBox())!;
    await page
      .locator(`li.row[data-id="${before[0]}"] .grip`)
      .dragTo(fifth, { targetPosition: { x: 200, y: height - 6 } });
    const after = [...before.slice(1, 5), before[0], ...before.slice(5)];
    await expect.poll(firstIds, { timeout: WAIT }).toEqual(after);
    // Saved: the daemon's pushes of the new order (every job's) moved nothing more.
    await expect.poll(async () => (await api(d, "list")).rows[4].id, { timeout: WAIT }).toBe(before[0]);
    expect(await firstIds()).toEqual(after);
    expect(await page.evaluate(() => (window as any).moved)).toEqual([before[0]]);
    expect(pageErrors(page)).toEqual([]);
  });
});
