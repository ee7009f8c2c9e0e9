/**
 * Resources in the hub (docs/budgets.md, "Resources"), in a real browser against a real daemon
 * whose jobs burn CPU and hold memory: each running row says its CPU and memory, the rows sort by
 * either, and the header sums them; and `roost top --once` of the same jobs, drawn in a page for
 * its screenshot. Screenshots in test-output/screenshots/ (resources-cpu, resources-mem, top).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ok } from "../helpers/cli.js";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { rmTemp, tempDir, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { type FileBrowser, type HubPage, launch, openHub, pageErrors, shot } from "./browser.js";

const NODE = process.execPath;
const PROFILES = {
  burner: { command: [NODE, "-e", "for (;;) {}"], task: "argv" },
  hog: {
    command: [NODE, "-e", "const b = Buffer.alloc(300 << 20, 1); setInterval(() => b[0]++, 1000)"],
    task: "argv",
  },
  idle: { command: ["sleep", "600"], task: "argv" },
};

let browser: FileBrowser;
let d: TestDaemon;
let c: RawClient;
let dir: string;
let hub: HubPage | undefined;
const pids: number[] = [];

beforeAll(async () => {
  browser = await launch();
  d = await startDaemon({ env: { ROOST_RESOURCES_MS: "1000" }, config: { agentProfiles: PROFILES } });
  c = await d.client();
  dir = tempDir();
}, 60_000);
afterAll(async () => {
  await hub?.context.close();
  await browser?.close();
  await d?.cleanup();
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  if (dir) rmTemp(dir);
});

// Their text, not innerText: a dense row just moved (a sort) is not rendered until the next frame
// (content-visibility: auto), and its innerText reads "" until then.
const names = (hub: HubPage) => hub.page.locator("li.row .name").allTextContents();

describe("resources in the hub", () => {
  it("shows each running job's CPU and memory, sorts by either, and sums them in the header", async () => {
    const ids: Record<string, string> = {};
    for (const profile of ["idle", "hog", "burner"]) {
      const { job } = await c.ok("dispatch", { profile, cwd: dir, name: `${profile} job` });
      ids[profile] = job.id;
    }
    for (const id of Object.values(ids)) pids.push((await untilRow(c, id, "a pid", (r) => r.pid)).pid);
    await untilRow(c, ids.burner!, "burning", (r) => r.resources?.cpu > 10, 20_000);
    await untilRow(c, ids.hog!, "holding", (r) => r.resources?.rss > 250e6, 20_000);

    hub = await openHub(browser, d);
    const { page } = hub;
    const usage = page.locator("header.top .usage");
    await usage.waitFor();
    // cpuText's words: a tenth under 10% (the burner shares a loaded machine, and its share moves).
    expect(await usage.innerText()).toMatch(/^cpu \d+(\.\d)?% · \d+ MB$/);
    expect(await usage.getAttribute("title")).toMatch(
      /^cpu [\d.]+% · \d+ MB: 3 running jobs, 3 processes: CPU/,
    );
    const res = (id: string) => page.locator(`li.row[data-id="${id}"] .res`);
    await res(ids.burner!).waitFor();
    expect(await res(ids.burner!).innerText()).toMatch(/^ · cpu \d+(\.\d)?% · \d+ MB$/);
    expect(await res(ids.hog!).innerText()).toMatch(/^ · cpu [\d.]+% · 3\d\d MB$/);

    await page.locator("select.order").selectOption("cpu");
    await page.waitForFunction(() => document.querySelector("li.row .name")?.textContent === "burner job");
    expect((await names(hub))[0]).toBe("burner job");
    await shot(page, "resources-cpu");

    await page.locator("select.order").selectOption("mem");
    await page.waitForFunction(() => document.querySelector("li.row .name")?.textContent === "hog job");
    expect((await names(hub))[0]).toBe("hog job");
    await shot(page, "resources-mem");
    // Kept: the hub opens sorted so again.
    await page.reload();
    await page.locator("li.row").first().waitFor();
    expect(await page.locator("select.order").inputValue()).toBe("mem");
    expect(pageErrors(page)).toEqual([]);

    // `roost top --once` of the same jobs, drawn in a page as a terminal would show it.
    const text = await ok(["top", "--once"], { ...d.env, COLUMNS: "110" });
    expect(text.split("\n")[0]).toMatch(
      /^roost top: 3 running of 3 jobs · cpu \d+(\.\d)?% · \d+ MB · 3 processes · sorted by cpu$/,
    );
    expect(text.split("\n")[3]).toContain("burner job");
    const term = await hub.context.newPage();
    await term.setViewportSize({ width: 980, height: 200 });
    await term.setContent(
      `<body style="margin:0;background:#1e1e1e"><pre id="t" style="margin:0;padding:12px;color:#ddd;font:13px/1.35 monospace"></pre></body>`,
    );
    await term.locator("#t").evaluate((el, t) => {
      el.textContent = t;
    }, text);
    await shot(term, "top");
    await term.close();
  }, 90_000);
});
