/**
 * The hub in a real browser against a real daemon: the Python example agent dispatched from the
 * page, its question answered with a click (once, though clicked twice), and the main views'
 * screenshots (rows, a blocked job, the phone layout) for people to look at.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { until } from "../helpers/daemon.js";
import { cleanDaemonPerTest, startCleanDaemon } from "../helpers/jobs.js";
import { api, apiRow, pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const openPage = hubBrowser();
const daemon = cleanDaemonPerTest(() => ({}), startCleanDaemon);

describe("the hub and the Python example agent", () => {
  it("dispatches from the page; the row turns working, then blocked; a choice clicked twice reaches the agent once", async () => {
    const { d, dir } = await daemon();
    const { page } = await openPage(d);

    // Dispatch from the page: the profile list comes from the daemon.
    await page.getByRole("button", { name: "+ Dispatch" }).click();
    const dialog = page.getByRole("dialog", { name: "Dispatch a job" });
    await dialog.getByLabel("Profile").selectOption("example-py");
    await dialog.getByLabel("Task").fill("echo starting; touch scratch.txt; rm scratch.txt; echo all done");
    await dialog.getByLabel("Name").fill("tidy up");
    await dialog.getByLabel("Working directory").fill(dir);
    await shot(page, "dispatch");
    await dialog.getByRole("button", { name: "Dispatch" }).click();
    await dialog.waitFor({ state: "hidden" });

    const row = page.locator("li.row", { hasText: "tidy up" });
    await row.waitFor();
    const id = await row.getAttribute("data-id");
    expect(id).toMatch(/^j\d+$/);
    // Blocked before the rm, with its choices as buttons.
    await row.locator(".badge", { hasText: "blocked" }).waitFor({ timeout: WAIT });
    await row.getByText("Run `rm scratch.txt`?").waitFor();
    const yes = row.getByRole("button", { name: /yes/ });
    await row.getByRole("button", { name: /no/ }).waitFor();
    expect(fs.existsSync(path.join(dir, "scratch.txt"))).toBe(true);
    // The title is the header's, drawn at most every 100 ms after the rows (web/src/main.ts).
    await expect.poll(() => page.title(), { timeout: WAIT }).toBe("(1) roost");
    const before = await apiRow(d, id!);
    await shot(page, "rows-blocked");

    // The blocked job's own page, with the question and its details.
    await page.goto(`${d.url}#/jobs/${id}`);
    await page.locator(".job-view .q-text", { hasText: "Run `rm scratch.txt`?" }).waitFor();
    await page.locator(".job-view dl.details").waitFor();
    await shot(page, "job-blocked", true);
    await page.goto(`${d.url}#/`);

    // Two quick clicks on "yes": one reply; the agent, done, waits for what comes next: your turn.
    await yes.dblclick();
    // The answered row holds its place, marked answered, while the pointer is over the list.
    await row.locator(".badge", { hasText: "answered" }).waitFor();
    await page.mouse.move(5, 5);
    await row.locator(".badge", { hasText: "your turn" }).waitFor({ timeout: WAIT });
    await row.getByText("ran 4 steps: all done").waitFor();
    expect(fs.existsSync(path.join(dir, "scratch.txt"))).toBe(false);
    const after = await until("the answer acked", async () => {
      const r = await apiRow(d, id!);
      return r.pending === 0 && r.state === "done" ? r : null;
    });
    expect(after.lastSeq).toBe(before.lastSeq + 1);
    const { events } = await api(d, `events?id=${id}`);
    expect(events.filter((e: any) => e.kind === "reply").map((e: any) => e.text)).toEqual([
      expect.stringContaining("yes"),
    ]);
    await expect.poll(() => page.title(), { timeout: WAIT }).toBe("roost");

    // A follow-up typed into the row's reply form (r opens it on the focused row) is the next task.
    await row.focus();
    await page.keyboard.press("r");
    const reply = row.getByRole("textbox", { name: "Reply to tidy up" });
    await reply.fill("echo second round");
    // The reply reaches the daemon but its answer is lost on the way back (a flaky network): the
    // row says so; sent again, the same requestId goes out, and the daemon does not queue it twice.
    let lost = 0;
    await page.route("**/api/reply", async (route) => {
      await route.fetch();
      lost++;
      await route.abort("connectionreset");
    });
    await reply.press("Enter");
    await row.getByText(/Failed: .*will not be sent twice/).waitFor();
    expect(lost).toBe(1);
    await page.unroute("**/api/reply");
    await row.getByRole("button", { name: "Send" }).click();
    await row.getByText("Already sent (not queued twice)").waitFor();
    await row.getByText("ran 1 step: second round").waitFor({ timeout: WAIT });
    const last = await until("the follow-up acked", async () => {
      const r = await apiRow(d, id!);
      return r.pending === 0 && r.state === "done" ? r : null;
    });
    expect(last.lastSeq).toBe(after.lastSeq + 1);
    const replies = (await api(d, `events?id=${id}`)).events.filter((e: any) => e.kind === "reply");
    expect(replies.length).toBe(2);
    expect(pageErrors(page)).toEqual([]);
  });

  it("shows the rows at a glance, and fits a phone", async () => {
    const { d, c, dir } = await daemon();
    fs.writeFileSync(path.join(dir, "notes.txt"), "old\n");
    const blocked = await c.ok("dispatch", {
      profile: "example-py",
      name: "refresh notes",
      task: "echo new > notes.txt",
      cwd: dir,
    });
    await c.ok("dispatch", { profile: "example-py", name: "count files", task: "ls | wc -l", cwd: dir });
    await c.ok("dispatch", { profile: "example-py", name: "broken build", task: "false", cwd: dir });
    const shell = await c.ok("dispatch", { profile: "shell", name: "scratch shell", cwd: dir });
    await c.ok("pin", { id: shell.job.id, pinned: true });
    await until("all three agents reported", async () => {
      const { rows } = await api(d, "list");
      const states = rows.map((r: any) => r.state).sort();
      return rows.find((r: any) => r.id === blocked.job.id)?.state === "blocked" && states.includes("failed")
        ? states.filter((s: string) => s === "done").length === 1
        : false;
    });
    // The roomy cards in your own order (the dense view, by state, is hub-triage.test.ts's).
    const roomy = { density: "roomy", order: "mine" };
    const { page } = await openPage(d, { prefs: roomy });
    await page.locator("li.row").nth(3).waitFor();
    // Pinned first, then the user's order (a new job goes on top), as the daemon lists them.
    const names = await page.locator("li.row .name").allTextContents();
    expect(names).toEqual(["scratch shell", "broken build", "count files", "refresh notes"]);
    expect(names).toEqual((await api(d, "list")).rows.map((r: any) => r.name));
    await page.locator("li.row .badge", { hasText: "failed" }).waitFor();
    await expect.poll(() => page.title(), { timeout: WAIT }).toBe("(2) roost");
    await shot(page, "rows");

    // Dark.
    const dark = await openPage(d, { dark: true, prefs: roomy });
    try {
      await dark.page.locator("li.row").nth(3).waitFor();
      await shot(dark.page, "rows-dark");
    } finally {
      await dark.context.close();
    }

    // A phone.
    const phone = await openPage(d, { viewport: { width: 390, height: 844 }, mobile: true });
    try {
      await phone.page.locator("li.row").nth(3).waitFor();
      await phone.page.getByRole("button", { name: "+ Dispatch" }).waitFor();
      await phone.page.locator(`li.row[data-id="${blocked.job.id}"] button.choice`).first().waitFor();
      const overflow = await phone.page.evaluate("document.documentElement.scrollWidth");
      expect(overflow).toBeLessThanOrEqual(390);
      await shot(phone.page, "phone-rows");
      await phone.page.goto(`${d.url}#/events`);
      await phone.page.locator("ol.feed li.entry").first().waitFor();
      await shot(phone.page, "phone-events");
      await phone.page.goto(`${d.url}#/jobs/${shell.job.id}`);
      await phone.page.locator(".job-view .xterm-rows").waitFor();
      await shot(phone.page, "phone-job-terminal");
    } finally {
      await phone.context.close();
    }

    // Keyboard: j moves down the rows, 2 answers "no" on the blocked one.
    for (let i = 0; i < 4; i++) await page.keyboard.press("j");
    const focused = await page.evaluate("document.activeElement?.dataset?.id");
    expect(focused).toBe(blocked.job.id);
    await page.keyboard.press("2");
    // The keyboard goes on to the next row that needs you (round to the top): the failed one.
    const next = await page.evaluate("document.activeElement?.dataset?.id");
    expect(await page.locator(`li.row[data-id="${next}"] .name`).textContent()).toBe("broken build");
    await page.locator(`li.row[data-id="${blocked.job.id}"] .badge`, { hasText: "your turn" }).waitFor();
    expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("old\n");
    await page.locator(`li.row[data-id="${blocked.job.id}"]`).focus();

    // Alt+↑ on the focused row moves it up, for the daemon too.
    await page.keyboard.press("Alt+ArrowUp");
    await until("the new order saved", async () => {
      const order = (await api(d, "list")).rows.map((r: any) => r.name).join(",");
      return order === "scratch shell,broken build,refresh notes,count files";
    });
    // The page follows the rows' pushes, which come one by one: it ends in the daemon's order.
    await expect
      .poll(() => page.locator("li.row .name").allTextContents(), { timeout: WAIT })
      .toEqual(["scratch shell", "broken build", "refresh notes", "count files"]);
    expect(await page.evaluate("document.activeElement?.dataset?.id")).toBe(blocked.job.id);

    // Dragging a row's grip onto the top half of another puts it above that one.
    const countFiles = page.locator("li.row", { hasText: "count files" });
    await countFiles
      .locator(".grip")
      .dragTo(page.locator("li.row", { hasText: "broken build" }), { targetPosition: { x: 200, y: 4 } });
    await until("the dragged order saved", async () => {
      const order = (await api(d, "list")).rows.map((r: any) => r.name).join(",");
      return order === "scratch shell,count files,broken build,refresh notes";
    });

    // g e: the events; Enter on a focused row: its page.
    await page.keyboard.press("g");
    await page.keyboard.press("e");
    await page.getByRole("heading", { name: "Events", exact: true }).waitFor();
    await page.goto(`${d.url}#/`);
    await page.locator("li.row").first().focus();
    await page.keyboard.press("Enter");
    await page.locator(".job-view h1", { hasText: "scratch shell" }).waitFor();
    await page.keyboard.press("Escape");
    await page.locator(".rows-view").waitFor();

    // The help overlay.
    await page.keyboard.press("?");
    await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
    await shot(page, "help");
    await page.keyboard.press("Escape");

    expect(pageErrors(page)).toEqual([]);
  });

  it("counts the jobs that need you in the title, and notifies (when allowed) of one turning blocked", async () => {
    const { d, c, dir } = await daemon();
    // The browser's notifications, allowed and recorded; the page in the background.
    const { page } = await openPage(d, { notify: true });
    const { job } = await c.ok("dispatch", {
      profile: "example-py",
      name: "asks",
      task: "rm -f nothing",
      cwd: dir,
    });
    await expect.poll(() => page.title(), { timeout: WAIT }).toBe("(1) roost");
    await expect
      .poll(() => page.evaluate("window.__notes"), { timeout: WAIT })
      .toEqual([{ title: "asks is blocked", body: "Run `rm -f nothing`?" }]);
    await page.locator(".attention", { hasText: "1 needs you" }).waitFor();
    await c.ok("reply", { id: job.id, text: "no" });
    await expect.poll(() => page.title(), { timeout: WAIT }).toBe("roost");
    expect(pageErrors(page)).toEqual([]);
  });
});
