/**
 * The peers in the hub, in a real browser against one real daemon: sessions (inert protocol jobs
 * spoken for by raw clients, as test/daemon/peers.test.ts does) that spawn children are drawn as trees,
 * each child under its parent, foldable, the fold kept; a blocked child is found first (its tree
 * goes up, its parent says so, the "need you" filter shows it apart); a message from one session
 * to another is on both job pages (sender → receiver), live, with a watch's notice and the spawns,
 * and readable in the events feed; a child's Parent link, pressed across a push, still opens its
 * parent's page. Screenshots of the tree in the dense and roomy views, a job's
 * page with its messages and the feed go to test-output/screenshots/.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { cleanDaemonPerFile, rawAgent, silentProfile, startCleanDaemon } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { type HubOptions, pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const openPage = hubBrowser({ viewport: { width: 1280, height: 720 } });
const shared = cleanDaemonPerFile({ agentProfiles: { silent: silentProfile() } }, startCleanDaemon);
const hub = async (opts: HubOptions = {}): Promise<Page> => (await openPage(shared.d, opts)).page;

/** A running job whose connection speaks for it (hello, report): a session, as its agent would be. */
interface Session {
  id: string;
  agent: RawClient;
  report(r: Record<string, unknown>): Promise<unknown>;
}

async function session(id: string, summary: string): Promise<Session> {
  const { agent, token } = await rawAgent(shared.d, shared.c, id);
  const report = (r: Record<string, unknown>) => agent.ok("report", { id, token, report: r });
  await report({ state: "working", summary });
  return { id, agent, report };
}

async function dispatched(name: string, summary: string): Promise<Session> {
  const { job } = await shared.c.ok("dispatch", { profile: "silent", name, cwd: shared.dir });
  return session(job.id, summary);
}

async function spawned(parent: Session, name: string, task: string): Promise<Session> {
  const { job } = await parent.agent.ok("spawn", { profile: "silent", name, task, cwd: shared.dir });
  return session(job.id, task);
}

/** The rows drawn, in order: each one's name and depth (aria-level 2 for a child, none for a root). */
const drawn = (page: Page) =>
  page
    .locator("ol.rows li.row")
    .evaluateAll((els) =>
      els.map(
        (e) => `${e.querySelector(".name")?.textContent}@${Number(e.getAttribute("aria-level") ?? 1) - 1}`,
      ),
    );

describe("a parent and its children", () => {
  it("are drawn as a tree, each child under its parent, indented and foldable, the fold kept", async () => {
    const other = await dispatched("unrelated job", "minding its own business");
    const planner = await dispatched("planner", "splitting the release into parts");
    const scout = await spawned(planner, "scout", "read the open issues");
    const builder = await spawned(planner, "builder", "build the release tarball");
    const probe = await spawned(builder, "probe", "check the disk space");
    await builder.report({ state: "blocked", question: "Overwrite dist/? (y/n)", choices: ["y", "n"] });
    await scout.report({ state: "done", summary: "12 issues read" });

    const page = await hub();
    // Needs you first: the planner's tree goes up for its blocked child, the child that needs you
    // first among its parent's, its own child under it.
    await expect
      .poll(() => drawn(page), { timeout: WAIT })
      .toEqual(["planner@0", "builder@1", "probe@2", "scout@1", "unrelated job@0"]);
    expect(await page.locator("li.group").allTextContents()).toEqual(["blocked · 1", "working · 1"]);
    const line = (id: string) => page.locator(`li.row[data-id="${id}"]`);
    await line(planner.id).locator(".need-under", { hasText: "1 below needs you" }).waitFor();
    expect(await line(other.id).locator(".need-under").count()).toBe(0);
    // Indented by depth, in the name's cell: the states stay in one column. Read in one go: a
    // push between two reads draws a row's cells anew, and an element let go of measures 0.
    const lefts = await page.evaluate(
      (ids) =>
        Object.fromEntries(
          ids.flatMap((id) =>
            [".name", ".badge"].map((sel) => [
              `${id} ${sel}`,
              document.querySelector(`li.row[data-id="${id}"] ${sel}`)!.getBoundingClientRect().left,
            ]),
          ),
        ),
      [planner.id, builder.id, probe.id],
    );
    const x = (id: string, sel: string) => lefts[`${id} ${sel}`]!;
    expect(x(builder.id, ".name")).toBeGreaterThan(x(planner.id, ".name"));
    expect(x(probe.id, ".name")).toBeGreaterThan(x(builder.id, ".name"));
    expect(x(builder.id, ".badge")).toBe(x(planner.id, ".badge"));
    await shot(page, "peers-tree-dense");

    // Folded: the children hidden, how many said, the badge still there; kept across a reload.
    const toggle = line(planner.id).getByRole("button", { name: "Hide the 3 jobs under planner" });
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    // Pressed, the planner's row drawn again for its report, released: still the toggle's click.
    const box = (await toggle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await planner.report({ state: "working", summary: "splitting the release into four parts" });
    await line(planner.id).getByText("splitting the release into four parts").waitFor({ timeout: WAIT });
    await page.mouse.up();
    await expect.poll(() => drawn(page), { timeout: WAIT }).toEqual(["planner@0", "unrelated job@0"]);
    await line(planner.id).locator(".folded-count", { hasText: "+3" }).waitFor();
    await line(planner.id).locator(".need-under").waitFor();
    expect(await page.locator("li.group").allTextContents()).toEqual(["blocked · 1", "working · 1"]);
    await page.reload();
    await page.locator(".conn.c-live").waitFor();
    await expect.poll(() => drawn(page), { timeout: WAIT }).toEqual(["planner@0", "unrelated job@0"]);
    await shot(page, "peers-tree-folded");
    // The keyboard, as in a tree view: → shows what is under a row; ← folds it, and from a row
    // folded (or with nothing under it) goes to its parent.
    await line(planner.id).focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => drawn(page), { timeout: WAIT }).toHaveLength(5);
    await page.keyboard.press("j");
    expect(await page.evaluate("document.activeElement.dataset.id")).toBe(builder.id);
    await page.keyboard.press("ArrowLeft");
    await expect
      .poll(() => drawn(page), { timeout: WAIT })
      .toEqual(["planner@0", "builder@1", "scout@1", "unrelated job@0"]);
    await page.keyboard.press("ArrowLeft");
    expect(await page.evaluate("document.activeElement.dataset.id")).toBe(planner.id);
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => drawn(page), { timeout: WAIT }).toEqual(["planner@0", "unrelated job@0"]);
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => drawn(page), { timeout: WAIT }).toHaveLength(4);
    await page.keyboard.press("j");
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => drawn(page), { timeout: WAIT }).toHaveLength(5);

    // The "need you" filter: the blocked child alone, drawn apart, saying whose child it is.
    await page.locator("header button.attention").click();
    await expect.poll(() => drawn(page), { timeout: WAIT }).toEqual(["builder@0"]);
    await line(builder.id).locator(".apart", { hasText: "↳ of planner" }).waitFor();
    await page.locator("header button.attention").click();

    // Your order: the tree as you put the roots (a new one on top), children under their parent;
    // Alt+↓ moves a child among its parent's children, its own under it.
    await page.getByLabel("Sort").selectOption("mine");
    await expect
      .poll(() => drawn(page), { timeout: WAIT })
      .toEqual(["planner@0", "builder@1", "probe@2", "scout@1", "unrelated job@0"]);
    await line(builder.id).focus();
    await page.keyboard.press("Alt+ArrowDown");
    await expect
      .poll(() => drawn(page), { timeout: WAIT })
      .toEqual(["planner@0", "scout@1", "builder@1", "probe@2", "unrelated job@0"]);
    await page.getByLabel("Sort").selectOption("state");

    // Roomy: each child's card indented under its parent's, with the same toggle.
    await page.getByRole("button", { name: "Roomy" }).click();
    await line(planner.id).locator(".row-actions").waitFor();
    const left = (id: string) => line(id).evaluate((e) => e.getBoundingClientRect().left);
    expect(await left(builder.id)).toBeGreaterThan(await left(planner.id));
    expect(await left(probe.id)).toBeGreaterThan(await left(builder.id));
    await line(planner.id)
      .getByRole("button", { name: /the 3 jobs under planner/ })
      .waitFor();
    await shot(page, "peers-tree-roomy");
    await page.getByRole("button", { name: "Dense" }).click();
    expect(pageErrors(page)).toEqual([]);

    // Dark, and a phone: the tree fits the screen, nothing sideways.
    const dark = await hub({ dark: true });
    await expect.poll(() => drawn(dark), { timeout: WAIT }).toHaveLength(5);
    await shot(dark, "peers-tree-dense-dark");
    const phone = await hub({ viewport: { width: 390, height: 844 }, mobile: true });
    await expect.poll(() => drawn(phone), { timeout: WAIT }).toHaveLength(5);
    expect(await phone.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await shot(phone, "peers-tree-phone");
  });
});

describe("messages between sessions", () => {
  it("a message sent from one session to another is on both job pages, and readable in the feed", async () => {
    const { d, c, dir } = shared;
    const left = await dispatched("left", "asks for a review");
    const right = await dispatched("right", "reviews the release");
    await left.agent.ok("send", { to: right.id, text: "please review PR 412 before the release" });
    await right.agent.ok("send", { to: left.id, text: "looks good, one nit in store.ts" });
    // A watch that fires: its notice goes to the watcher. One that has not fired yet is listed.
    expect((await left.agent.ok("watch", { id: right.id, when: "idle" })).fired).toBe(false);
    expect((await left.agent.ok("watch", { id: right.id, when: "ended" })).fired).toBe(false);
    await right.report({ state: "done", summary: "review finished" });
    const helper = await spawned(right, "nit fixer", "fix the nit in store.ts");

    const page = await hub({ viewport: { width: 1280, height: 900 } });
    const messages = (id: string) => page.getByRole("list", { name: `Messages of ${id}` });
    /** Each entry as it reads: its kind, who to whom, what. */
    const said = (id: string) =>
      messages(id)
        .locator("li.entry")
        .evaluateAll((els) =>
          els.map((e) =>
            [".kind", ".from-to", ".text"].map((s) => e.querySelector(s)?.textContent?.trim()).join(" | "),
          ),
        );
    const L = `left (${left.id})`;
    const R = `right (${right.id})`;
    await page.goto(`${d.url}#/jobs/${left.id}`);
    await expect
      .poll(() => said(left.id), { timeout: WAIT })
      .toEqual([
        `notice | roost → ${L} | right is your turn (watch: idle)`,
        `message | ${R} → ${L} | looks good, one nit in store.ts`,
        `message | ${L} → ${R} | please review PR 412 before the release`,
      ]);
    // The page's own job is not a link; the other is, to its page.
    expect(await messages(left.id).locator(`a[href="#/jobs/${right.id}"]`).count()).toBe(2);
    expect(await messages(left.id).locator(`a[href="#/jobs/${left.id}"]`).count()).toBe(0);
    // Its watch not fired yet: on whom, for what, until when; the other job a link.
    const watching = page.getByRole("list", { name: "Its watches" });
    // A watch lasts 12 h: "12 h" in its first second, "11 h 59 m" after (its minutes said too).
    await expect
      .poll(() => watching.locator("li").allTextContents(), { timeout: WAIT })
      .toEqual([
        expect.stringMatching(
          new RegExp(`^right \\(${right.id}\\) has ended · expires in 1[12] h( \\d+ m)?$`),
        ),
      ]);
    expect(await watching.locator(`a[href="#/jobs/${right.id}"]`).count()).toBe(1);
    await page.getByRole("heading", { name: /^Watching/ }).scrollIntoViewIfNeeded();
    await shot(page, "peers-job-watches");

    await page.goto(`${d.url}#/jobs/${right.id}`);
    await expect
      .poll(() => said(right.id), { timeout: WAIT })
      .toEqual([
        `spawn | ${R} → nit fixer (${helper.id}) | ${helper.id} (silent): fix the nit in store.ts`,
        // The notice about it is its event too (whoId), though roost sent it to the watcher.
        `notice | roost → ${L} | right is your turn (watch: idle)`,
        `message | ${R} → ${L} | looks good, one nit in store.ts`,
        `message | ${L} → ${R} | please review PR 412 before the release`,
      ]);
    // Live: one sent while the page is open comes on top; and the child's handback.
    await left.agent.ok("send", { to: right.id, text: "thanks! merging now" });
    await helper.agent.ok("handback", { text: "nit fixed in store.ts", done: false });
    await expect
      .poll(async () => (await said(right.id)).slice(0, 2), { timeout: WAIT })
      .toEqual([
        `handback | nit fixer (${helper.id}) → ${R} | nit fixed in store.ts`,
        `message | ${L} → ${R} | thanks! merging now`,
      ]);
    await page.getByRole("heading", { name: /^Messages/ }).scrollIntoViewIfNeeded();
    await shot(page, "peers-job-messages");

    // The child's page: its Parent link, pressed, the child's row drawn again for its report,
    // released: the parent's page opens.
    await page.goto(`${d.url}#/jobs/${helper.id}`);
    const parentLink = page.locator("dl.details a", { hasText: right.id });
    await parentLink.waitFor();
    const box = (await parentLink.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await helper.report({ state: "working", summary: "checking the other files too" });
    await page.locator(".job-view .summary", { hasText: "checking the other files too" }).waitFor();
    await page.mouse.up();
    await page.waitForFunction((want) => location.hash === want, `#/jobs/${right.id}`, { timeout: WAIT });

    // A job with none has no Messages section.
    const { job: quiet } = await c.ok("dispatch", { profile: "silent", name: "quiet", cwd: dir });
    await page.goto(`${d.url}#/jobs/${quiet.id}`);
    await page.locator(".job-view ol.feed[aria-label^='Events'] li").first().waitFor();
    expect(await page.locator(".messages-section").isHidden()).toBe(true);
    expect(await page.locator(".watches-section").isHidden()).toBe(true);

    // The events page: who to whom, the sender not said twice.
    await page.goto(`${d.url}#/events`);
    const entry = page.locator("ol.feed li.k-message", { hasText: "thanks! merging now" });
    await entry.waitFor();
    expect(await entry.locator(".from-to").textContent()).toBe(`${L} → ${R}`);
    expect(await entry.locator(".who").count()).toBe(0);
    await page.locator("ol.feed li.k-handback").waitFor();
    await shot(page, "peers-events");
    expect(pageErrors(page)).toEqual([]);

    // A phone: who to whom and the text fit the screen.
    const phone = await hub({ viewport: { width: 390, height: 844 }, mobile: true });
    await phone.goto(`${d.url}#/jobs/${right.id}`);
    await phone
      .getByRole("list", { name: `Messages of ${right.id}` })
      .locator("li.k-handback")
      .waitFor();
    expect(await phone.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await phone.getByRole("heading", { name: /^Messages/ }).scrollIntoViewIfNeeded();
    await shot(phone, "peers-job-messages-phone");

    // The watch fires (right ends): it leaves left's page, live.
    await page.goto(`${d.url}#/jobs/${left.id}`);
    await watching.locator("li").first().waitFor();
    await c.ok("stop", { id: right.id });
    await expect.poll(() => page.locator(".watches-section").isHidden(), { timeout: WAIT }).toBe(true);
    await expect
      .poll(() => said(left.id), { timeout: WAIT })
      .toContain(`notice | roost → ${L} | right is stopped (watch: ended)`);
  });
});
