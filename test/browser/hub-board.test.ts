/**
 * The task board in the hub, in a real browser against one real daemon: tasks added in the page
 * (one after another: blocked, saying what it waits on), one assigned to a session (an inert
 * protocol job spoken for by a raw client, which gets the message), its claim arriving live (the
 * task moves to Claimed, the header's counts follow the `board` push, no reload), done (what waited
 * on it opens), one dropped (asked first); the session's job page lists its task; a read-only token
 * sees the board with no control, its attempts to act refused (policy); a phone's width holds it.
 * Screenshots (desktop, dark, phone, read-only) go to test-output/screenshots/.
 */
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import { deliveries, INERT, type Session, session } from "../helpers/board.js";
import type { TestDaemon } from "../helpers/daemon.js";
import { until } from "../helpers/daemon.js";
import { startCleanDaemon } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { type FileBrowser, type HubPage, launch, openHub, pageErrors, shot, WAIT } from "./browser.js";

let browser: FileBrowser;
let d: TestDaemon;
let c: RawClient;
const hubs: HubPage[] = [];

beforeAll(async () => {
  browser = await launch();
  d = (await startCleanDaemon({ agentProfiles: { inert: INERT } })).d;
  c = await d.client();
});
afterAll(async () => {
  await browser?.close();
  await d?.cleanup();
});
afterEach(async () => {
  for (const hub of hubs.splice(0)) await hub.context.close();
});

async function hub(opts: Parameters<typeof openHub>[2] = {}, hash = "#/board"): Promise<Page> {
  const h = await openHub(browser, d, { viewport: { width: 1280, height: 900 }, ...opts });
  hubs.push(h);
  await h.page.evaluate((to) => {
    location.hash = to;
  }, hash);
  return h.page;
}

const item = (page: Page, id: number) => page.locator(`li.task[data-id="${id}"]`);
/** The ids in a section of the board, in order. */
const inSection = (page: Page, key: string) =>
  page.locator(`.board-section.s-${key} li.task`).evaluateAll((els) => els.map((e) => Number(e.dataset.id)));
const tabCount = (page: Page) => page.locator('nav.tabs a[data-nav="board"] .tab-count');

describe("the board page", () => {
  let worker: Session;

  it("adds tasks (one after another: blocked), assigns one, watches its claim arrive live, sees it done, drops one", async () => {
    worker = await session(d, c, "worker");
    const page = await hub();
    await page.locator(".board-view .empty", { hasText: "The board is empty" }).waitFor();
    expect(await tabCount(page).isHidden()).toBe(true);

    // Add: the first, then one after it, with a detail.
    await page.getByLabel("New task").fill("build the tarball");
    await page.getByRole("button", { name: "Add task" }).click();
    await page.locator(".task-form .form-status", { hasText: "Added #1." }).waitFor();
    await page.getByLabel("New task").fill("publish the release");
    await page.getByLabel("After").fill("#1");
    await page.getByLabel("Detail").fill("npm publish --tag next");
    await page.getByRole("button", { name: "Add task" }).click();
    await page.locator(".task-form .form-status", { hasText: "Added #2." }).waitFor();
    // An id the board does not have: said in the form, nothing sent.
    await page.getByLabel("New task").fill("a task after nothing");
    await page.getByLabel("After").fill("1, 9");
    await page.getByRole("button", { name: "Add task" }).click();
    await page.locator(".task-form .form-status", { hasText: "The board has no task #9." }).waitFor();
    await page.getByLabel("New task").fill("");
    await page.getByLabel("After").fill("");

    await expect.poll(() => inSection(page, "open"), { timeout: WAIT }).toEqual([1, 2]);
    await item(page, 2).locator(".badge", { hasText: "blocked" }).waitFor();
    await item(page, 2).locator(".task-after", { hasText: "waits on #1" }).waitFor();
    await item(page, 2).locator(".task-detail", { hasText: "npm publish --tag next" }).waitFor();
    await item(page, 1).locator(".badge", { hasText: "open" }).waitFor();
    // The tab counts what needs you: the blocked task, not the open one.
    await expect.poll(() => tabCount(page).textContent(), { timeout: WAIT }).toBe("1 blocked");
    const { tasks } = await c.ok("task", { action: "list" });
    expect(tasks.map((t: any) => [t.id, t.title, t.after, t.by.who])).toEqual([
      [1, "build the tarball", [], "user"],
      [2, "publish the release", [1], "user"],
    ]);

    // Assign #1 to the worker: its session gets the message; the task says to whom.
    const before = deliveries(worker).length;
    await item(page, 1).getByLabel("Session to send task 1 to").selectOption(worker.id);
    await item(page, 1).getByRole("button", { name: "Assign" }).click();
    await item(page, 1).locator(".row-status", { hasText: "Sent to worker: delivered" }).waitFor();
    const message = await until("the worker's message", () => deliveries(worker)[before]);
    expect(message.text).toContain("build the tarball");
    await item(page, 1).locator(".task-who", { hasText: "sent to worker" }).waitFor();
    // The choice made is spent: the list is back to its prompt, Assign waits for another.
    expect(await item(page, 1).getByLabel("Session to send task 1 to").inputValue()).toBe("");
    expect(await item(page, 1).getByRole("button", { name: "Assign" }).isDisabled()).toBe(true);
    await shot(page, "board-assigned");

    // The claim, by the session on its own connection: live on the page, no reload.
    await worker.c.ok("task", { action: "claim", id: 1 });
    await expect.poll(() => inSection(page, "claimed"), { timeout: WAIT }).toEqual([1]);
    await item(page, 1).locator(".task-who", { hasText: "claimed by worker" }).waitFor();
    await expect.poll(() => tabCount(page).textContent(), { timeout: WAIT }).toBe("1 blocked");
    await page.locator(".board-sum", { hasText: "1 blocked · 1 claimed" }).waitFor();

    // Done: its result shown, and #2 no longer waits.
    await worker.c.ok("task", { action: "done", id: 1, result: "dist/roost-0.2.0.tgz, 1.2 MB" });
    await expect.poll(() => inSection(page, "done"), { timeout: WAIT }).toEqual([1]);
    await item(page, 1).locator(".task-result", { hasText: "dist/roost-0.2.0.tgz, 1.2 MB" }).waitFor();
    expect(await item(page, 1).locator(".row-status").textContent()).toBe(""); // "Sent to …" was about it open
    await item(page, 2).locator(".badge", { hasText: "open" }).waitFor();
    await item(page, 2).locator(".task-after", { hasText: "after #1 ✓" }).waitFor();
    // Nothing needs you: no count on the tab (a finished task is no one's business); the page counts all.
    await expect.poll(() => tabCount(page).isHidden(), { timeout: WAIT }).toBe(true);
    await page.locator(".board-sum", { hasText: "1 open · 1 done" }).waitFor();

    // A third, claimed, for the screenshot's sake; then #2 dropped, asked first.
    await page.getByLabel("New task").fill("write the release notes");
    await page.getByRole("button", { name: "Add task" }).click();
    await item(page, 3).waitFor();
    await worker.c.ok("task", { action: "claim", id: 3 });
    await expect.poll(() => inSection(page, "claimed"), { timeout: WAIT }).toEqual([3]);
    await shot(page, "board", true);

    await item(page, 2).getByRole("button", { name: "Drop…" }).click();
    await item(page, 2).getByRole("button", { name: "Keep" }).waitFor();
    await item(page, 2).getByRole("button", { name: "Drop", exact: true }).click();
    await expect.poll(() => inSection(page, "dropped"), { timeout: WAIT }).toEqual([2]);
    expect((await c.ok("task", { action: "list" })).tasks[1].state).toBe("dropped");
    expect(pageErrors(page)).toEqual([]);
  });

  it("a job's page lists its tasks: held, done, with their results", async () => {
    const page = await hub({}, `#/jobs/${worker.id}`);
    const claims = page.getByRole("list", { name: "Its tasks" });
    await claims.locator("li", { hasText: "#3 write the release notes · holds it" }).waitFor();
    await claims
      .locator("li", { hasText: "#1 build the tarball · did it → dist/roost-0.2.0.tgz, 1.2 MB" })
      .waitFor();
    // Held first (what it has to do), then done.
    expect(
      await claims.locator("li").evaluateAll((els) => els.map((e) => e.getAttribute("data-task"))),
    ).toEqual(["3", "1"]);
    // Its events say what happened to each task (the entry's why).
    await page.locator("ol.feed li", { hasText: "claimed #3 write the release notes" }).waitFor();
    await page
      .locator("ol.feed li", { hasText: "done #1 build the tarball: dist/roost-0.2.0.tgz, 1.2 MB" })
      .waitFor();
    await shot(page, "board-job-tasks");
    // A task's link goes to it on the board.
    await claims.getByRole("link", { name: "#1 build the tarball" }).click();
    await page.locator('li.task[data-id="1"]:focus').waitFor();
    expect(await page.evaluate("location.hash")).toBe("#/board?task=1");
  });

  it("dark, and a phone: the board fits the screen, nothing sideways", async () => {
    const dark = await hub({ dark: true });
    await item(dark, 3).waitFor();
    await shot(dark, "board-dark", true);
    const phone = await hub({ viewport: { width: 390, height: 844 }, mobile: true });
    await item(phone, 3).waitFor();
    await phone.locator(".board-sum", { hasText: "1 claimed · 1 done" }).waitFor();
    expect(await phone.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await shot(phone, "board-phone", true);
  });

  it("a read-only token sees the board, counts and all, with no control; its attempts to act are refused", async () => {
    const { link } = await c.ok("token", { action: "create", name: "board-watcher", readOnly: true });
    const roToken = new URL(link).searchParams.get("token")!;
    const page = await hub({ token: roToken });
    await item(page, 3).waitFor();
    await page.locator(".ro-badge", { hasText: "read-only" }).waitFor();
    await page.locator(".board-sum", { hasText: "1 claimed · 1 done" }).waitFor();
    expect(
      await page.locator(".task-form, .task-actions:visible, main button, main select, main input").count(),
    ).toBe(0);
    // The page's own request, as its token: refused for a token that may only look.
    const refused = await page.evaluate(async () => {
      const r = await fetch("api/task", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ action: "add", title: "sneaked in" }),
      });
      return r.json();
    });
    expect(refused).toMatchObject({ ok: false, code: "policy" });
    // Live for it too: a new task shows up.
    await c.ok("task", { action: "add", title: "seen by the watcher" });
    await item(page, 4).waitFor();
    await shot(page, "board-read-only", true);
    expect(pageErrors(page)).toEqual([]);
  });

  it("a task done with a failure shows failed, and the tab counts it as needing you", async () => {
    const page = await hub();
    await item(page, 4).waitFor();
    // Two tasks the worker does and fails: one says a non-zero exit, one is done with `failed`.
    const { task: a } = await c.ok("task", { action: "add", title: "run the tests" });
    const { task: b } = await c.ok("task", { action: "add", title: "deploy" });
    const { task: ok } = await c.ok("task", { action: "add", title: "lint" });
    for (const t of [a, b, ok]) await worker.c.ok("task", { action: "claim", id: t.id });
    await worker.c.ok("task", { action: "done", id: ok.id, result: "exit 0, no warnings" });
    await worker.c.ok("task", { action: "done", id: a.id, result: "npm test: exit code 1 (3 failing)" });
    await expect.poll(() => tabCount(page).textContent(), { timeout: WAIT }).toBe("1 failed");
    const { task: failed } = await worker.c.ok("task", {
      action: "done",
      id: b.id,
      result: "the host refused the upload",
      failed: true,
    });
    expect(failed.result).toBe("failed: the host refused the upload");
    await expect.poll(() => tabCount(page).textContent(), { timeout: WAIT }).toBe("2 failed");
    expect(await tabCount(page).locator("..").getAttribute("aria-label")).toBe("Board: 2 failed");
    for (const t of [a, b])
      await item(page, t.id).locator(".badge.b-failed", { hasText: "failed" }).waitFor();
    await item(page, ok.id).locator(".badge.b-done", { hasText: "done" }).waitFor();
    expect(await item(page, a.id).locator(".task-actions").isHidden()).toBe(true); // done is done
    await page.locator(".board-section.s-done h2", { hasText: "(2 failed)" }).waitFor();
    await shot(page, "board-failed", true);
    expect(pageErrors(page)).toEqual([]);
  });

  it("an assign that cannot reach its session (20 items waiting) says not sent and why; the task stays open", async () => {
    const swamped = await session(d, c, "swamped");
    for (let i = 0; i < LIMITS.peerItemsWaiting; i++)
      await worker.c.ok("send", { to: swamped.id, text: `item ${i}` });
    const { task } = await c.ok("task", { action: "add", title: "no room for it" });
    const page = await hub();
    await item(page, task.id).getByLabel(`Session to send task ${task.id} to`).selectOption(swamped.id);
    await item(page, task.id).getByRole("button", { name: "Assign" }).click();
    const status = item(page, task.id).locator(".row-status", { hasText: "Not sent to swamped:" });
    await status.waitFor();
    expect(await status.textContent()).toContain("20 peer items waiting");
    expect(await status.getAttribute("data-kind")).toBe("error");
    expect((await c.ok("task", { action: "list" })).tasks.find((t: any) => t.id === task.id)).toMatchObject({
      state: "open",
      assigned: null,
    });
    expect(pageErrors(page)).toEqual([]);
  });
});
