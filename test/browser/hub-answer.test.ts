/**
 * An answer goes to the question it was drawn for, in a real browser against a real daemon
 * (docs/hub.md, "Answering"): six blocked rows, two clicks 250 ms apart on the top row's first
 * choice answer that row once (the answered row holds its place under the pointer, marked
 * answered, its choices disabled; the keyboard goes on to the next blocked row; it moves once the
 * pointer leaves), and no other row gets an answer; a question changed between the draw and the
 * click is refused (`conflict`), said on the row, nothing sent, and the row drawn again with it;
 * a press on a choice (or on a roomy card's Stop, or on a row's name) before a push to its row and
 * the release after it is still a click; text selected in a row outlives a push that changed
 * something else.
 */
import type { Locator, Page, WebSocketRoute } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { agentProfile, until } from "../helpers/daemon.js";
import { cleanDaemonPerFile, handled, startCleanDaemon } from "../helpers/jobs.js";
import { api, apiPost, apiRow, pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const openPage = hubBrowser({ viewport: { width: 1280, height: 900 } });
const shared = cleanDaemonPerFile({ agentProfiles: { agent: agentProfile() } }, startCleanDaemon);

/** The replies the daemon took for a job, as its feed has them. */
async function replies(id: string): Promise<string[]> {
  const { events } = await api(shared.d, `events?id=${id}`);
  return events.filter((e: any) => e.kind === "reply").map((e: any) => e.text);
}

/** A job of the test agent, blocked on `question` with `choices`. */
async function blockedJob(name: string, question: string, choices: string[]): Promise<string> {
  const { job } = await shared.c.ok("dispatch", {
    profile: "agent",
    name,
    cwd: shared.dir,
    task: `block ${question}|${choices.join(",")}`,
  });
  await until(`${job.id} blocked`, async () => (await apiRow(shared.d, job.id)).question === question);
  return job.id;
}

const rowAt = (page: Page, x: number, y: number) =>
  page.evaluate(
    ([px, py]) =>
      (document.elementFromPoint(px!, py!)?.closest("li.row") as HTMLElement | null)?.dataset.id ?? null,
    [x, y],
  );

/** The page's pushes, held back on demand while the test changes a row (as a slow network would). */
async function holdPushes(page: Page): Promise<{ hold(): void; release(): void }> {
  let holding = false;
  const held: (string | Buffer)[] = [];
  let client: WebSocketRoute | null = null;
  await page.routeWebSocket(/\/api\/subscribe/, (ws) => {
    client = ws;
    const server = ws.connectToServer();
    server.onMessage((m) => {
      if (holding) held.push(m);
      else ws.send(m);
    });
  });
  return {
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const m of held.splice(0)) (client as WebSocketRoute | null)?.send(m);
    },
  };
}

describe("answering a moving list", () => {
  const ids: string[] = [];
  beforeAll(async () => {
    for (let i = 1; i <= 6; i++) ids.push(await blockedJob(`deploy-${i}`, `Deploy deploy-${i}?`, ["y", "n"]));
  }, 120000);

  it("two clicks 250 ms apart on the top row's first choice answer that row once, and no other", async () => {
    const { page } = await openPage(shared.d);
    await expect
      .poll(() => page.locator("li.row .badge", { hasText: "blocked" }).count(), { timeout: WAIT })
      .toBe(6);
    const order = await page
      .locator("li.row")
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id!));
    const top = order[0]!;
    const second = order[1]!;
    const topRow = page.locator(`li.row[data-id="${top}"]`);
    const box = (await topRow.locator("button.choice").first().boundingBox())!;
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    const before = await apiRow(shared.d, top);

    const sent: Promise<unknown>[] = [];
    page.on("request", (req) => {
      if (req.url().endsWith("/api/reply")) sent.push(req.response());
    });
    const t0 = Date.now();
    await page.mouse.click(x, y);
    // The keyboard went on to the next row that needs you.
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id)).toBe(
      second,
    );
    // The user's pace, not a wait for anything.
    await new Promise((r) => setTimeout(r, Math.max(0, 250 - (Date.now() - t0))));
    await page.mouse.click(x, y);

    // The answer reached the agent (after its task), which went to work: no longer blocked
    await until("the top row's answer handled", () => handled(shared.d, top).length === 2);
    await until("the top row working", async () => (await apiRow(shared.d, top)).state === "working");
    await Promise.all(sent);
    expect(sent.length).toBe(1); // the second click fell on a disabled choice: nothing went
    expect(await replies(top)).toEqual(["y"]);
    for (const id of ids.filter((i) => i !== top)) {
      expect(await replies(id)).toEqual([]);
      expect((await apiRow(shared.d, id)).state).toBe("blocked");
    }
    expect((await apiRow(shared.d, top)).asked).toBeGreaterThan(before.asked);

    // It holds its place under the pointer, marked answered, its choices gone or disabled; the
    // second click selected nothing.
    await topRow.locator(".badge", { hasText: "answered" }).waitFor();
    await expect.poll(() => topRow.locator(".q-text, button.choice:enabled").count()).toBe(0);
    expect(await topRow.getAttribute("class")).toContain("answered");
    expect(await page.locator("li.row.selected").count()).toBe(0);
    expect(await rowAt(page, x, y)).toBe(top);
    expect(await page.locator("li.row").first().getAttribute("data-id")).toBe(top);
    await shot(page, "answered-held");

    // The pointer leaves the list: after the settle, the answered row goes where it belongs.
    await page.mouse.move(5, 5);
    await expect
      .poll(() => page.locator("li.row").first().getAttribute("data-id"), { timeout: WAIT })
      .not.toBe(top);
    await topRow.locator(".badge", { hasText: "working" }).waitFor({ timeout: WAIT });
    expect(await topRow.getAttribute("class")).not.toContain("answered");
    expect(pageErrors(page)).toEqual([]);
  });

  it("a question changed between the draw and the click: refused, said on the row, nothing sent, drawn again", async () => {
    const id = await blockedJob("release", "Release to staging?", ["go", "wait"]);
    const { page } = await openPage(shared.d);
    const pushes = await holdPushes(page);
    await page.reload();
    const row = page.locator(`li.row[data-id="${id}"]`);
    await row.getByText("Release to staging?").waitFor({ timeout: WAIT });
    const drawn = (await apiRow(shared.d, id)).asked;

    pushes.hold();
    await apiPost(shared.d, "reply", { id, text: "block Release to production?|go,wait" });
    await until(
      `${id} asks of production`,
      async () => (await apiRow(shared.d, id)).question === "Release to production?",
    );
    expect(await row.getByText("Release to staging?").count()).toBe(1); // the page still shows the old one

    const answered = page.waitForResponse((r) => r.url().endsWith("/api/reply"));
    await row.getByRole("button", { name: /go/ }).click();
    const refused = await (await answered).json();
    expect(refused).toMatchObject({ ok: false, code: "conflict" });
    await row.getByText(`${id} now asks something else`).waitFor();
    expect(await replies(id)).toEqual(["block Release to production?|go,wait"]); // the test's own, no other
    expect((await apiRow(shared.d, id)).asked).toBeGreaterThan(drawn);

    // The pushes arrive: the row is drawn with the new question, and its choice answers that.
    pushes.release();
    await row.getByText("Release to production?").waitFor({ timeout: WAIT });
    await shot(page, "answer-conflict");
    await page.mouse.move(5, 5);
    await row.getByRole("button", { name: /go/ }).click();
    await until("the answer to production", async () => (await replies(id)).length === 2);
    expect(await replies(id)).toEqual(["block Release to production?|go,wait", "go"]);
    expect(pageErrors(page)).toEqual([]);
  });

  it("a press before a push to its row and a release after it: still a click (a choice, Stop on a roomy card, its name)", async () => {
    const id = await blockedJob("press", "Ship it?", ["ship", "hold"]);
    const other = await blockedJob("long task", "Go on?", ["y", "n"]);
    /** Presses `button`, pushes a change to its row (a rename, drawn), releases. */
    const pressAcrossPush = async (page: Page, rowId: string, button: Locator, name: string) => {
      const box = (await button.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await apiPost(shared.d, "rename", { id: rowId, name });
      await page.locator(`li.row[data-id="${rowId}"] .name`, { hasText: name }).waitFor({ timeout: WAIT });
      await page.mouse.up();
    };

    const dense = (await openPage(shared.d)).page;
    const choice = dense.locator(`li.row[data-id="${id}"]`).getByRole("button", { name: /ship/ });
    await choice.waitFor({ timeout: WAIT });
    await pressAcrossPush(dense, id, choice, "press, renamed");
    await until("the choice pressed across a push answered", async () => (await replies(id)).length === 1);
    expect(await replies(id)).toEqual(["ship"]);

    const roomy = (await openPage(shared.d, { prefs: { density: "roomy" } })).page;
    const stop = roomy.locator(`li.row[data-id="${other}"]`).getByRole("button", { name: "Stop" });
    // Pressed once its card has its whole height: its resources, when they first come, add a line
    // above the button, which moves it from under the pointer (seen: 23 px down).
    await roomy.locator(`li.row[data-id="${other}"] .meta .res`).waitFor({ timeout: WAIT });
    await stop.waitFor({ timeout: WAIT });
    await pressAcrossPush(roomy, other, stop, "long task, renamed");
    await until(
      "Stop pressed across a push went",
      async () => (await apiRow(shared.d, other)).life !== "running",
    );
    expect(await replies(other)).toEqual([]);

    // A row's name, pressed before a pin (drawn) and released after: its page opens.
    const link = dense.locator(`li.row[data-id="${id}"] a.name`);
    const box = (await link.boundingBox())!;
    await dense.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await dense.mouse.down();
    await apiPost(shared.d, "pin", { id, pinned: true });
    await dense.locator(`li.row[data-id="${id}"] .pin`).waitFor({ timeout: WAIT });
    await dense.mouse.up();
    await dense.waitForFunction((want) => location.hash === want, `#/jobs/${id}`, { timeout: WAIT });
    expect(pageErrors(dense)).toEqual([]);
    expect(pageErrors(roomy)).toEqual([]);
  });

  it("text selected in a card's summary or id, or in a line's words, stays selected across a push to its row", async () => {
    const { job } = await shared.c.ok("dispatch", {
      profile: "agent",
      name: "notes to copy",
      cwd: shared.dir,
      task: "copy these words",
    });
    const words = "did: copy these words";
    await until(`${job.id} says it`, async () => (await apiRow(shared.d, job.id)).summary === words);
    // A push that leaves the row in its place (a pin would move it, and a node moved loses what
    // is selected in it, as the browser has it): a rename, seen drawn.
    let renames = 0;
    const renamed = async (page: Page) => {
      const name = `notes, renamed ${++renames}`;
      await apiPost(shared.d, "rename", { id: job.id, name });
      await page.locator(`li.row[data-id="${job.id}"] .name`, { hasText: name }).waitFor({ timeout: WAIT });
    };
    const selectedAcrossPush = async (page: Page, part: Locator) => {
      await part.waitFor({ timeout: WAIT });
      await part.evaluate((el) => getSelection()?.selectAllChildren(el));
      const before = await page.evaluate(() => getSelection()?.toString());
      await renamed(page);
      return { before, after: await page.evaluate(() => getSelection()?.toString()) };
    };
    const roomy = (await openPage(shared.d, { prefs: { density: "roomy" } })).page;
    const card = roomy.locator(`li.row[data-id="${job.id}"]`);
    expect(await selectedAcrossPush(roomy, card.locator("p.summary"))).toEqual({
      before: words,
      after: words,
    });
    const ident = `${job.id} · agent`;
    expect(await selectedAcrossPush(roomy, card.locator(".ident"))).toEqual({ before: ident, after: ident });
    const dense = (await openPage(shared.d)).page;
    const line = dense.locator(`li.row[data-id="${job.id}"]`);
    expect(await selectedAcrossPush(dense, line.locator(".cell-text"))).toEqual({
      before: words,
      after: words,
    });
    expect(pageErrors(roomy)).toEqual([]);
    expect(pageErrors(dense)).toEqual([]);
  });

  it("the reply box: a message begun for one question, sent after the row asks another, is refused and said; sent again, it goes", async () => {
    const id = await blockedJob("notes", "Keep the old notes?", ["y", "n"]);
    const { page } = await openPage(shared.d);
    const pushes = await holdPushes(page);
    await page.reload();
    const row = page.locator(`li.row[data-id="${id}"]`);
    await row.getByText("Keep the old notes?").waitFor({ timeout: WAIT });
    await row.focus();
    await page.keyboard.press("r");
    const box = row.getByRole("textbox", { name: "Reply to notes" });
    await box.fill("keep them, and tag them old");

    pushes.hold();
    await apiPost(shared.d, "reply", { id, text: "block Delete the new notes?|y,n" });
    await until(
      `${id} asks of the new notes`,
      async () => (await apiRow(shared.d, id)).question === "Delete the new notes?",
    );
    await box.press("Enter");
    await row.getByText(`${id} now asks something else`).waitFor();
    expect(await replies(id)).toEqual(["block Delete the new notes?|y,n"]);
    expect(await box.inputValue()).toBe("keep them, and tag them old"); // kept, to send again

    pushes.release();
    await row.getByText("Delete the new notes?").waitFor({ timeout: WAIT });
    await box.press("Enter");
    await until("the reply sent", async () => (await replies(id)).length === 2);
    expect(await replies(id)).toEqual(["block Delete the new notes?|y,n", "keep them, and tag them old"]);
    expect(pageErrors(page)).toEqual([]);
  });
});
