/**
 * Triage in a real browser against a real daemon: forty jobs in every state, seen in the dense
 * view (one line a job, what needs you first), filtered (the "need you" badge, state, profile,
 * text with `/`), selected (checkbox, shift-click, x, select all) and acted on in bulk (pin, stop,
 * remove); then 500 rows (ended jobs in the store a second daemon starts on), the time to draw
 * them (the window of them on screen: hub-window.test.ts) measured in the page and printed.
 * Screenshots of the dense view, the "need you" view and the phone layout go to
 * test-output/screenshots/.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { VIEW_STATES, viewState } from "../../sdk/ts/protocol/row-state.js";
import { startDaemon, until } from "../helpers/daemon.js";
import { homeWithEndedJobs } from "../helpers/ended-jobs.js";
import { cleanDaemonPerFile, startCleanDaemon } from "../helpers/jobs.js";
import { api, apiPost, type HubOptions, pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

/** Forty jobs as a day might have them: [profile, name, task] by the state each ends up in. */
const SEED = {
  blocked: [
    ["example-py", "clean old logs", "rm -f old.log"],
    ["example-py", "wipe the build dir", "rm -rf build"],
    ["example-py", "drop temp tables", "rm -f tmp.db"],
  ],
  "your turn": [
    ["example-py", "summarize PR 412", "echo summary written"],
    ["example-py", "write release notes", "echo notes drafted"],
    ["example-py", "triage issue 88", "echo labelled"],
    ["example-py", "draft migration plan", "echo plan ready"],
    ["example-py", "update the changelog", "echo changelog updated"],
    ["example-py", "review the docs", "echo two typos found"],
  ],
  failed: [
    ["fail", "run e2e suite", null],
    ["fail", "deploy staging", null],
    ["fail", "lint the monorepo", null],
  ],
  working: [
    "index search corpus",
    "fix flaky auth test",
    "refactor store layer",
    "port CLI to node 22",
    "profile memory use",
    "bisect perf regression",
    "upgrade dependencies",
    "translate the docs",
    "train the tokenizer",
    "benchmark websockets",
  ].map((name) => ["ticker", name, null]),
  stopped: ["old experiment A", "old experiment B", "old experiment C", "old experiment D"].map((name) => [
    "ticker",
    name,
    null,
  ]),
  done: Array.from({ length: 14 }, (_, i) => ["quick", `tag release v0.3.${i}`, null]),
} as Record<string, (string | null)[][]>;

/** How many rows are in each state, as "blocked 3, done 14…" (sorted, to compare). */
const tally = (states: string[]) => {
  const n = new Map<string, number>();
  for (const s of states) n.set(s, (n.get(s) ?? 0) + 1);
  return [...n].sort().join(", ");
};

const openPage = hubBrowser({ viewport: { width: 1280, height: 900 } });
const shared = cleanDaemonPerFile(
  {
    agentProfiles: {
      // Output every half second: busy, working.
      ticker: {
        command: ["sh", "-c", "while :; do echo tick; sleep 0.5; done"],
        task: "argv",
        description: "prints a tick twice a second",
      },
      fail: { command: ["false"], task: "argv", description: "fails at once" },
      quick: { command: ["true"], task: "argv", description: "succeeds at once" },
    },
  },
  startCleanDaemon,
);
const hub = async (opts: HubOptions = {}): Promise<Page> => (await openPage(shared.d, opts)).page;

/** The forty jobs, each come to its state. */
beforeAll(async () => {
  const { d, c, dir } = shared;
  const ids: Record<string, string[]> = Object.fromEntries(Object.keys(SEED).map((s) => [s, []]));
  await Promise.all(
    Object.entries(SEED).flatMap(([state, jobs]) =>
      jobs.map(async ([profile, name, task]) => {
        const { job } = await c.ok("dispatch", { profile, name, cwd: dir, ...(task ? { task } : {}) });
        ids[state]!.push(job.id);
      }),
    ),
  );
  await Promise.all(ids.stopped!.map((id) => c.ok("stop", { id })));
  const want = tally(Object.entries(SEED).flatMap(([s, jobs]) => jobs.map(() => s)));
  await until(
    `forty jobs in their states (${want})`,
    async () => tally((await api(d, "list")).rows.map(viewState)) === want,
    90000,
  );
}, 150000);

const badges = (page: Page) => page.locator("li.row .badge").allTextContents();
/**
 * How many rows the list holds, as each row drawn says it (aria-setsize, the same in every row):
 * the rows in the DOM are a window of them (web/src/rows-window.ts); 0 with none drawn.
 */
const listed = (page: Page) =>
  page
    .locator("ol.rows > li.row")
    .evaluateAll((els) => [...new Set(els.map((e) => Number(e.getAttribute("aria-setsize"))))])
    .then((sizes) => (sizes.length === 1 ? sizes[0]! : sizes.length ? Number.NaN : 0));
const rowNames = (page: Page) => page.locator("li.row .name").allTextContents();

describe("the jobs view at forty jobs", () => {
  it("is dense: a line a job, the screen's width used, what needs you first", async () => {
    const page = await hub();
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(40);
    const heights = await page
      .locator("li.row")
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
    expect(Math.max(...heights)).toBeLessThan(40);
    const width = await page.locator("ol.rows").evaluate((e) => e.getBoundingClientRect().width);
    expect(width).toBeGreaterThan(1200);
    // By state, in triage's order: blocked first, at the top of the screen.
    const words = await badges(page);
    expect(words).toEqual(
      [...words].sort((a, b) => VIEW_STATES.indexOf(a as any) - VIEW_STATES.indexOf(b as any)),
    );
    expect(words.slice(0, 4)).toEqual(["blocked", "blocked", "blocked", "failed"]);
    const firstBlockedY = await page
      .locator("li.row")
      .first()
      .evaluate((e) => e.getBoundingClientRect().top);
    expect(firstBlockedY).toBeLessThan(150);
    const visible = await page
      .locator("li.row")
      .evaluateAll((els) => els.filter((e) => e.getBoundingClientRect().bottom <= innerHeight).length);
    console.log(`dense view, 1280x900: ${visible} of 40 rows on the first screen`);
    expect(visible).toBeGreaterThanOrEqual(20);
    // A blocked row's question and its choices are on its line.
    const blocked = page.locator("li.row", { hasText: "clean old logs" });
    await blocked.getByText("Run `rm -f old.log`?").waitFor();
    await blocked.getByRole("button", { name: "yes" }).waitFor();
    await shot(page, "triage-dense-40");

    // The keyboard: ↓ and j, k between rows, Enter opens one, Esc comes back.
    await page.locator("li.row").first().focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("j");
    await page.keyboard.press("k");
    const second = (await rowNames(page))[1];
    expect(await page.evaluate("document.activeElement.querySelector('.name').textContent")).toBe(second);
    await page.keyboard.press("Enter");
    await page.locator(".job-view h1", { hasText: second! }).waitFor();
    await page.keyboard.press("Escape");
    await page.locator(".rows-view").waitFor();

    // Roomy is a choice, kept.
    await page.getByRole("button", { name: "Roomy" }).click();
    await page.locator(".row-actions").first().waitFor();
    await page.reload();
    await page.locator(".row-actions").first().waitFor();
    expect(await page.getByRole("button", { name: "Roomy" }).getAttribute("aria-pressed")).toBe("true");
    await shot(page, "triage-roomy-40");
    await page.getByRole("button", { name: "Dense" }).click();
    await page.locator("li.row.dense").first().waitFor();

    const dark = await hub({ dark: true });
    await expect.poll(() => dark.locator("li.row").count(), { timeout: WAIT }).toBe(40);
    await shot(dark, "triage-dense-40-dark");

    // A phone: two lines a job, nothing wider than the screen (the first rows of the 40 drawn).
    const phone = await hub({ viewport: { width: 390, height: 844 }, mobile: true });
    await expect.poll(() => listed(phone), { timeout: WAIT }).toBe(40);
    await phone.locator(".rows-toolbar .count", { hasText: "40 jobs" }).waitFor();
    expect(await phone.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await shot(phone, "triage-phone");
    expect(pageErrors(page)).toEqual([]);
    expect(pageErrors(phone)).toEqual([]);
  });

  it("filters: the need-you badge, a state, a profile, text after /", async () => {
    const page = await hub();
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(40);
    const badge = page.locator("header button.attention");
    await badge.filter({ hasText: "6 need you" }).waitFor();
    await badge.click();
    await expect
      .poll(() => badges(page), { timeout: WAIT })
      .toEqual(["blocked", "blocked", "blocked", "failed", "failed", "failed"]);
    expect(await badge.getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator(".rows-toolbar .state-filter").inputValue()).toBe("need");
    await page.locator(".rows-toolbar .count", { hasText: "6 of 40 jobs" }).waitFor();
    await shot(page, "triage-need-you");
    const phone = await hub({ viewport: { width: 390, height: 844 }, mobile: true });
    await phone.locator("header button.attention").click();
    await expect.poll(() => phone.locator("li.row").count(), { timeout: WAIT }).toBe(6);
    await shot(phone, "triage-phone-need-you");
    await badge.click();
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(40);

    // From a job's page, the badge comes back to the jobs, filtered.
    await page.locator("li.row .name").first().click();
    await page.locator(".job-view").waitFor();
    await badge.click();
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(6);
    await page.getByRole("button", { name: "Clear filter" }).first().click();

    const state = page.getByRole("combobox", { name: "State" });
    const profile = page.getByRole("combobox", { name: "Profile" });
    await state.selectOption("your turn");
    await expect.poll(() => badges(page), { timeout: WAIT }).toEqual(Array(6).fill("your turn"));
    await profile.selectOption("ticker");
    await page.getByText("No job matches the filter.").waitFor();
    await state.selectOption("");
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(14);
    expect(new Set(await badges(page))).toEqual(new Set(["working", "stopped"]));
    await profile.selectOption("");

    // `/` goes to the text; words are each found in the name, the question, the summary.
    await page.locator("li.row").first().focus();
    await page.keyboard.press("/");
    expect(await page.evaluate("document.activeElement.getAttribute('aria-label')")).toBe(
      "Filter the jobs by text",
    );
    await page.keyboard.type("flaky");
    await expect.poll(() => rowNames(page), { timeout: WAIT }).toEqual(["fix flaky auth test"]);
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(40);
    await page.keyboard.type("old.log");
    await expect.poll(() => rowNames(page), { timeout: WAIT }).toEqual(["clean old logs"]);
    await page.locator(".rows-toolbar .search").fill("release 0.3.1");
    await expect
      .poll(async () => (await rowNames(page)).sort(), { timeout: WAIT })
      .toEqual([1, 10, 11, 12, 13].map((i) => `tag release v0.3.${i}`));
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("bulk actions on the selected rows", () => {
  it("selects by checkbox, shift-click, x and select-all; pins, stops and removes them, several at once", async () => {
    const { d } = shared;
    const page = await hub();
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(40);
    // What the bulk bar said while its ops ran, and how many of them were in flight at once.
    await page.evaluate(`
      window.__progress = new Set();
      new MutationObserver(() => {
        const p = document.querySelector(".bulk-bar .bulk-progress");
        if (p) window.__progress.add(p.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    `);
    let inFlight = 0;
    let most = 0;
    page.on("request", (r) => {
      if (/\/api\/(stop|rm|pin)$/.test(r.url())) most = Math.max(most, ++inFlight);
    });
    const settled = (r: { url(): string }) => {
      if (/\/api\/(stop|rm|pin)$/.test(r.url())) inFlight--;
    };
    page.on("requestfinished", settled);
    page.on("requestfailed", settled);
    const bar = page.getByRole("region", { name: "Selected jobs" });
    const state = page.getByRole("combobox", { name: "State" });
    const checks = page.locator("li.row .select");

    // The done rows: the first checked, a shift-click on the fifth checks the four after it.
    await state.selectOption("done");
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(14);
    const done = await page
      .locator("li.row")
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id!));
    await checks.nth(0).click();
    await checks.nth(4).click({ modifiers: ["Shift"] });
    await bar.getByText("5 selected").waitFor();
    // A click on a dense row's line selects it too; x on the focused row.
    await page.locator("li.row").nth(6).locator(".cell-profile").click();
    await page.locator("li.row").nth(8).focus();
    await page.keyboard.press("x");
    await bar.getByText("7 selected").waitFor();
    const chosen = [...done.slice(0, 5), done[6], done[8]];
    expect(
      await page
        .locator("li.row.selected")
        .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id)),
    ).toEqual(chosen);
    await shot(page, "triage-selected");
    await bar.getByRole("button", { name: "Pin", exact: true }).click();
    await bar.getByText("Pinned 7 jobs.").waitFor();
    const pinned = (await api(d, "list")).rows.filter((r: any) => r.pinned).map((r: any) => r.id);
    expect(pinned.sort()).toEqual([...chosen].sort());
    await bar.getByRole("button", { name: "Unpin" }).click();
    await bar.getByText("Unpinned 7 jobs.").waitFor();
    expect((await api(d, "list")).rows.filter((r: any) => r.pinned)).toEqual([]);
    // Esc clears the selection.
    await page.locator("li.row").first().focus();
    await page.keyboard.press("Escape");
    await bar.waitFor({ state: "hidden" });

    // Select all that the filter shows, and remove them (asked first).
    await page.getByRole("checkbox", { name: "Select every job shown" }).check();
    await bar.getByText("14 selected").waitFor();
    await bar.getByRole("button", { name: "Remove…" }).click();
    await bar.getByText(/Remove 14 jobs\?/).waitFor();
    await bar.getByRole("button", { name: "Yes, remove 14 jobs" }).click();
    await bar.getByText("Removed 14 jobs.").waitFor();
    await page.getByText("No job matches the filter.").waitFor();
    const left = (await api(d, "list")).rows;
    expect(left.length).toBe(26);
    expect(left.filter((r: any) => done.includes(r.id))).toEqual([]);

    // The working ones, stopped together.
    await state.selectOption("working");
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(10);
    await page.getByRole("checkbox", { name: "Select every job shown" }).check();
    await bar.getByText("10 selected").waitFor();
    // With rows selected each push draws the list whole (a job started and ended elsewhere makes
    // a few): the bar's buttons stay the same elements meanwhile (made anew, a click pressed on one
    // would be lost).
    const stop = await bar.getByRole("button", { name: "Stop" }).elementHandle();
    const draws = () => page.evaluate(() => performance.getEntriesByName("roost:rows").length);
    const drawnBefore = await draws();
    await apiPost(d, "dispatch", { profile: "quick" });
    await expect.poll(draws, { timeout: WAIT }).toBeGreaterThan(drawnBefore + 1);
    expect(await stop!.evaluate((el) => el.isConnected)).toBe(true);
    await bar.getByRole("button", { name: "Stop" }).click();
    await bar.getByText("Stopped 10 jobs.").waitFor({ timeout: WAIT });
    const stopped = (await api(d, "list")).rows.filter((r: any) => r.profile === "ticker");
    expect(stopped.map((r: any) => r.life)).toEqual(Array(14).fill("stopped"));
    const progress = (await page.evaluate("[...window.__progress]")) as string[];
    console.log(`bulk: at most ${most} ops in flight at once; progress said ${progress.join(" | ")}`);
    expect(progress).toContain("Stopping… 0 of 10");
    expect(progress.length).toBeGreaterThan(2);
    expect(most).toBeGreaterThan(1);
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("500 rows", () => {
  it("draws them, and says how long that took (measured in the page, not held to a number)", async () => {
    // 500 ended jobs in the store the daemon starts on: the rows, not 500 processes started and
    // ended first (which alone took a minute on a loaded machine).
    const names = Array.from({ length: 500 }, (_, i) =>
      i < 4 ? `old experiment ${"ABCD"[i]}` : `batch job ${i}`,
    );
    const d = await startDaemon({ home: homeWithEndedJobs(names) });
    onTestFinished(() => d.cleanup());
    expect((await api(d, "list")).rows.length).toBe(500);

    const h = await openPage(d);
    const { page } = h;
    // Long tasks (over 50 ms on the main thread) from the page's first moment.
    await h.context.addInitScript(`
      window.__long = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(Math.round(e.duration)); })
        .observe({ type: "longtask", buffered: true });
    `);
    await page.reload();
    // The list holds the 500; the DOM, the window of them on screen and a screenful below.
    await expect.poll(() => listed(page), { timeout: WAIT }).toBe(500);
    await page.locator(".rows-toolbar .count", { hasText: "500 jobs" }).waitFor();
    // The draws of the list (the whole list's, and the window's alone), from the `n`th on.
    const drawsFrom = async (n: number) =>
      (await page.evaluate(`[...performance.getEntriesByName("roost:rows"), ...performance.getEntriesByName("roost:rows-window")]
        .sort((a, b) => a.startTime - b.startTime).slice(${n})
        .map((e) => ({ start: e.startTime, ms: e.duration, rows: e.detail.rows, drawn: e.detail.drawn, pending: e.detail.pending }))`)) as {
        start: number;
        ms: number;
        rows: number;
        drawn: number;
        pending: boolean;
      }[];
    // The first draws of the 500: the window's rows, the rest of them in the next frames.
    const draws = (await drawsFrom(0)).filter((x) => x.rows === 500);
    const all = draws.findIndex((x) => !x.pending);
    expect(all).toBeGreaterThanOrEqual(0);
    const done = draws[all]!;
    expect(done.drawn).toBeGreaterThanOrEqual(20);
    expect(done.drawn).toBeLessThan(500);
    const long = (await page.evaluate("window.__long")) as number[];
    console.log(
      `500 rows: the window's ${done.drawn} drawn in ${all + 1} frames, the longest draw ${Math.round(Math.max(...draws.slice(0, all + 1).map((x) => x.ms)))} ms, ` +
        `all on the page ${Math.round(done.start + done.ms - draws[0]!.start)} ms after the first draw began ` +
        `(${Math.round(done.start + done.ms)} ms after navigation); ` +
        `long tasks while loading: ${long.length ? `${long.join(", ")} ms` : "none"}`,
    );
    await shot(page, "triage-500");

    // A filter typed with 500 rows: each keystroke's draw.
    const before = (await drawsFrom(0)).length;
    await page.locator(".rows-toolbar .search").pressSequentially("experiment");
    await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(4);
    expect(await listed(page)).toBe(4);
    const typed = (await drawsFrom(before)).map((x) => Math.round(x.ms));
    console.log(`500 rows: draws while typing a filter: ${typed.join(", ")} ms`);
    await page.locator(".rows-toolbar .search").fill("");
    await expect.poll(() => listed(page), { timeout: WAIT }).toBe(500);

    // The roomy cards for 500: made afresh, the window's worth, each with its actions.
    const mark = (await drawsFrom(0)).length;
    await page.getByRole("button", { name: "Roomy" }).click();
    await page.locator("li.row .row-actions").first().waitFor();
    await expect
      .poll(() => page.locator("li.row:not(:has(.row-actions))").count(), { timeout: WAIT })
      .toBe(0);
    expect(await listed(page)).toBe(500);
    const roomy = (await drawsFrom(mark)).map((x) => Math.round(x.ms));
    console.log(`500 rows: roomy, drawn in frames of ${roomy.join(", ")} ms`);
    await page.getByRole("button", { name: "Dense" }).click();
    expect(pageErrors(page)).toEqual([]);
  });
});
