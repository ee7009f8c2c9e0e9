/**
 * A pi job in the hub, in a real browser: its row shows pi's model, its context window's use as a
 * bar and what the job has cost; its page's terminal shows pi's own interface. The real pi 0.74.2,
 * dispatched with the built-in `pi` profile and driven by the scripted model; screenshots to
 * test-output/screenshots/ (pi-row, pi-job-terminal). `npm run build` first.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PI_WAIT, piWorldPerTest, untilDone } from "../helpers/pi.js";
import { attachScreen } from "../helpers/screen.js";
import { type FileBrowser, type HubPage, launch, openHub, pageErrors, shot } from "./browser.js";

let browser: FileBrowser;
let hub: HubPage | undefined;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await hub?.context.close();
  hub = undefined;
});
const world = piWorldPerTest();

describe("a pi job in the hub", { timeout: 4 * PI_WAIT }, () => {
  it("its row shows the model, a context bar and the cost; its terminal shows pi itself", async () => {
    const w = await world();
    w.model.script(
      "hub",
      {
        text: "Counting.",
        tools: [{ name: "bash", args: { command: "echo 3 files" } }],
        usage: { prompt: 20000, completion: 400 },
      },
      { text: "There are 3 files.", usage: { prompt: 42000, completion: 800 } },
    );
    const id = await w.dispatch("[hub] count the files", { name: "counter" });
    const done = await untilDone(w, id);
    // 62000 prompt tokens at $3/M and 1200 completion tokens at $15/M.
    expect(done.usage.cost.total).toBe(0.204);

    // Roomy rows: each with the line of what its agent reports.
    hub = await openHub(browser, w.d, { prefs: { density: "roomy" } });
    const { page } = hub;
    const row = page.locator(`li.row[data-id="${id}"]`);
    await row.waitFor();
    await row.locator(".badge", { hasText: "your turn" }).waitFor();
    const meta = row.locator("ul.meta");
    await meta.getByText("scripted/m1 · off").waitFor();
    // The context: 42800 of the model's 100k tokens, with its bar.
    await meta.locator("li.ctx", { hasText: "context 43% (43k/100k)" }).waitFor();
    expect(await meta.locator("li.ctx meter").getAttribute("value")).toBe("43");
    await meta.locator("li.cost", { hasText: "$0.20" }).waitFor();
    await row.getByText("There are 3 files.").waitFor();
    await shot(page, "pi-row");

    // Its page: the terminal is pi's own interface, its answer and its footer.
    await page.goto(`${w.d.url}#/jobs/${id}`);
    const terminal = page.locator(".job-view .xterm-rows");
    await terminal.waitFor();
    await page
      .waitForFunction(
        () => {
          const text = document.querySelector(".job-view .xterm-rows")?.textContent ?? "";
          return text.includes("There are 3 files.") && text.includes("/100k");
        },
        undefined,
        { timeout: PI_WAIT },
      )
      .catch(async (err: Error) => {
        // What the browser shows beside what the daemon's screen of the job holds, and their sizes.
        const shown = await page.evaluate(() =>
          Array.from(document.querySelectorAll(".job-view .xterm-rows > div")).map((d) =>
            d.textContent?.trimEnd(),
          ),
        );
        const repaints = await page.locator(".job-view .term").getAttribute("data-repaints");
        const own = await attachScreen(w.c, id);
        throw new Error(
          `${err.message}\nthe hub's terminal (${shown.length} rows, repainted ${repaints ?? 0} times):\n` +
            `${shown.join("\n")}\n` +
            `the daemon's screen (${own.term.cols}x${own.term.rows}):\n${own.text()}`,
        );
      });
    // The page fitted pi's terminal to its box; once pi had redrawn, the screen was asked again.
    await expect
      .poll(async () => Number(await page.locator(".job-view .term").getAttribute("data-repaints")), {
        timeout: 10_000,
      })
      .toBeGreaterThanOrEqual(1);
    const text = await terminal.innerText();
    expect(text).toContain("[hub] count the files");
    expect(text).toMatch(/\$0\.204/); // pi's footer: what its session has cost
    await shot(page, "pi-job-terminal", true);
    expect(pageErrors(page)).toEqual([]);
  });
});
