/**
 * The hub's concierge panel (`#/concierge`) in a real browser against a real daemon, the concierge
 * a scripted protocol agent (an inert job the test speaks for; roost.json names its profile, so the
 * panel's button starts it): turn it on; ask it something and see its answer; its need raised at
 * the top; its suggestion on a waiting row taken with a click; the policy changed with its
 * switches; its last answer undone; standing orders added and removed. Screenshots in
 * test-output/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextDelivery, session } from "../helpers/board.js";
import { blockedOn, CONFIG } from "../helpers/concierge.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import type { RawClient } from "../helpers/raw-client.js";
import { type FileBrowser, launch, openHub, pageErrors, shot, WAIT } from "./browser.js";

let browser: FileBrowser;
let d: TestDaemon;
let c: RawClient;

beforeAll(async () => {
  browser = await launch();
  d = await startDaemon({ config: { ...CONFIG, concierge: { profile: "inert" } } });
  c = await d.client();
});
afterAll(async () => {
  await browser?.close();
  await d?.cleanup();
});

const status = () => c.ok("concierge", { action: "status" });

describe("the concierge panel", () => {
  it("on, ask and its answer, a need, a suggestion taken with a click, the policy, undo, orders", async () => {
    const { page, context } = await openHub(browser, d, { viewport: { width: 1100, height: 1100 } });
    const nav = page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Concierge" });
    await nav.click();
    await page.getByRole("heading", { name: "Concierge", level: 1 }).waitFor();
    expect(await nav.getAttribute("aria-current")).toBe("page");
    await page.getByText("Off: turn it on").waitFor();

    // On, with its button: the job is roost.json's profile, spoken for by the test.
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByText(/^On: j\d+ is /).waitFor();
    const { id } = await status();
    const concierge = await session(d, c, "concierge", { id });

    // Ask: the words reach the concierge; its answer shows in the conversation.
    const talk = page.getByRole("list", { name: "Conversation" });
    await page.getByRole("textbox", { name: "Conversation" }).fill("What needs me?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const asked = await concierge.c.event(
      (e) => e.event === "deliver" && e.text === "What needs me?",
      "the question",
    );
    await concierge.c.ok("ack", { id, token: concierge.token, seq: asked.seq });
    await talk.getByText("What needs me?").waitFor();
    await concierge.c.ok("concierge-say", {
      kind: "answer",
      text: "Nothing yet: both sessions are working.",
    });
    await talk.getByText("Nothing yet: both sessions are working.").waitFor();

    // A need: raised at the top, and counted as a job that needs you.
    await concierge.c.ok("concierge-say", { kind: "need", text: "j9 wants the staging password" });
    const need = page.locator(".concierge-need");
    await need.getByText("j9 wants the staging password").waitFor();
    await expect.poll(() => page.title(), { timeout: WAIT }).toMatch(/^\(1\) roost/);
    await shot(page, "concierge-panel");

    // The policy: its switches, each saying what it allows.
    await page.getByText("It answers the questions it judges routine").waitFor();
    await page.getByRole("radio", { name: /Routine ones/ }).click();
    await until("answer: routine", async () => (await status()).policy.answer === "routine");
    await page.getByRole("checkbox", { name: /stop, respawn and dispatch/ }).click();
    await until("act: true", async () => (await status()).policy.act === true);
    await page.getByText("it may, when it judges it right").waitFor();

    // A suggestion on a waiting row: one click answers with it.
    const asker = await session(d, c, "migrator");
    await blockedOn(asker, "Run the migration?", ["yes", "no"]);
    await concierge.c.ok("concierge-suggest", {
      id: asker.id,
      text: "yes, on staging",
      why: "a dev database",
    });
    await page.goto(`${d.url}#/`);
    const suggested = page.getByRole("button", { name: /Concierge suggests:.*yes, on staging/ });
    await suggested.waitFor();
    expect(await suggested.getAttribute("title")).toBe("a dev database: answer with it");
    // On the dense line the question keeps its room beside the choices and the suggestion (it was
    // once cut to "Ru…"), and the suggestion reads "✦ yes, on staging".
    const question = page.locator(`li.row[data-id="${asker.id}"] .cell-text`);
    expect(await question.innerText()).toBe("Run the migration?");
    expect(await question.evaluate((e) => e.clientWidth)).toBeGreaterThanOrEqual(150);
    expect(await suggested.innerText()).toBe("yes, on staging"); // the lead hidden, ✦ before it
    expect(await suggested.evaluate((e) => getComputedStyle(e, "::before").content)).toBe('"✦ "');
    await shot(page, "concierge-suggestion");
    await suggested.click();
    expect((await nextDelivery(asker, 1)).text).toBe("yes, on staging");
    const replied = (await c.ok("events", { id: asker.id })).events.filter((e: any) => e.kind === "reply");
    expect(replied.map((e: any) => e.who)).toEqual(["user"]);

    // Its answer in the user's place, and the undo.
    const other = await session(d, c, "deployer");
    await blockedOn(other, "Deploy now?", ["yes", "no"]);
    await concierge.c.ok("concierge-reply", { id: other.id, text: "no", why: "it is Friday evening" });
    // The conversation, above Undo, answers late: the page is drawn once it is in, so that nothing
    // moves under the pointer measured next (drawn late, it once pushed Undo from under it).
    await page.route("**/events?*", async (route) => {
      await new Promise((r) => setTimeout(r, 500));
      await route.continue();
    });
    await page.goto(`${d.url}#/concierge`);
    await page.getByText("Why: it is Friday evening").waitFor();
    // Pressed, the policy changed elsewhere (a status push, its switches drawn again), released:
    // still Undo's click.
    const undoButton = page.getByRole("button", { name: "Undo this answer" });
    const undo = (await undoButton.boundingBox())!;
    await expect.poll(() => talk.locator("li.said").count(), { timeout: WAIT }).toBe(3);
    expect(await undoButton.boundingBox()).toEqual(undo);
    await page.mouse.move(undo.x + undo.width / 2, undo.y + undo.height / 2);
    await page.mouse.down();
    await c.ok("concierge", { action: "answer", answer: "never" });
    await expect
      .poll(() => page.getByRole("radio", { name: /Never/ }).isChecked(), { timeout: WAIT })
      .toBe(true);
    await page.mouse.up();
    await page.getByText("undone", { exact: true }).waitFor();
    await page.unrouteAll({ behavior: "wait" });
    // Back on the page: the conversation loaded again, each thing said once.
    expect(await talk.locator("li.said").allTextContents()).toEqual([
      expect.stringContaining("What needs me?"),
      expect.stringContaining("Nothing yet: both sessions are working."),
      expect.stringContaining("j9 wants the staging password"),
    ]);
    expect((await status()).answered.undone).toBe(true);
    expect((await nextDelivery(other, 2)).mode).toBe("steer");

    // Standing orders: added (on a clock), shown with when it is next, removed.
    await page.getByRole("textbox", { name: "The order" }).fill("Summarise the day");
    await page.getByRole("textbox", { name: "When" }).fill("daily 18:00");
    await page.getByRole("button", { name: "Add the order" }).click();
    const orders = page.getByRole("list", { name: "Standing orders" });
    await orders.getByText("#1 Summarise the day").waitFor();
    await orders.getByText(/every day at 18:00 · next in \d+ [smhd]( \d+ m)? · applied 0×/).waitFor();
    await shot(page, "concierge-orders", true);
    await page.getByRole("button", { name: "Remove order #1" }).click();
    await orders.getByText("None: add what it should keep doing.").waitFor();
    expect((await c.ok("concierge-order", { action: "list" })).orders).toEqual([]);

    // Asking answers its need: the alert goes.
    await page.getByRole("textbox", { name: "Conversation" }).fill("Here: hunter2");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await need.waitFor({ state: "hidden" });
    expect(pageErrors(page)).toEqual([]);
    await context.close();
  });
});
