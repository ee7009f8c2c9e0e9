/**
 * The hub in a real browser against one real daemon, for what is not triage: notifications (a
 * blocked job's new question, a job's turn once asked for), the dispatch form's profiles that
 * cannot run, a job's page (its question said once, `r` only where Reply is), the events page's
 * focus ring, and the favicon.
 */
import { describe, expect, it } from "vitest";
import { cleanDaemonPerFile, rawAgent, silentProfile, startCleanDaemon } from "../helpers/jobs.js";
import { type HubPage, pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const openPage = hubBrowser();
const shared = cleanDaemonPerFile(
  {
    agentProfiles: {
      silent: silentProfile(),
      ghost: { command: ["roost-test-no-such-program"], description: "a program not installed" },
    },
  },
  startCleanDaemon,
);

const notes = (hub: HubPage) => hub.page.evaluate("window.__notes") as Promise<unknown[]>;

describe("notifications", () => {
  it("notify again when a blocked job asks something new, and of a job's turn once asked for", async () => {
    const { d, c, dir } = shared;
    const { job } = await c.ok("dispatch", { profile: "silent", name: "asker", cwd: dir });
    const id = job.id as string;
    const { agent, token } = await rawAgent(d, c, id);
    const report = (r: Record<string, unknown>) => agent.ok("report", { id, token, report: r });
    const hub = await openPage(d, { notify: true });
    const { page } = hub;
    const badge = page.locator(`li.row[data-id="${id}"] .badge`);
    await badge.filter({ hasText: "working" }).waitFor();

    // Its turn, not asked for: no notification (the next one, a question, comes first).
    await report({ state: "done", summary: "first part done" });
    await badge.filter({ hasText: "your turn" }).waitFor();
    await report({ state: "blocked", question: "Continue? (y/n)", choices: ["y", "n"] });
    await expect
      .poll(() => notes(hub), { timeout: WAIT })
      .toEqual([{ title: "asker is blocked", body: "Continue? (y/n)" }]);
    // Still blocked, a new question: notified again.
    await report({ state: "blocked", question: "Overwrite notes.txt? (y/n)", choices: ["y", "n"] });
    await expect
      .poll(() => notes(hub), { timeout: WAIT })
      .toEqual([
        { title: "asker is blocked", body: "Continue? (y/n)" },
        { title: "asker is blocked", body: "Overwrite notes.txt? (y/n)" },
      ]);

    // "It is your turn" chosen in the dialog, kept across a reload.
    await page.getByRole("button", { name: "Notify…" }).click();
    const dialog = page.getByRole("dialog", { name: "Notifications" });
    await dialog.getByText("This browser shows roost's notifications.").waitFor();
    const turn = dialog.getByRole("checkbox", { name: /It is your turn/ });
    expect(await turn.isChecked()).toBe(false);
    expect(await dialog.getByRole("checkbox", { name: /It needs you/ }).isChecked()).toBe(true);
    await turn.check();
    await shot(page, "notify-settings");
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.reload();
    await page.locator(".conn.c-live").waitFor();
    await page.getByRole("button", { name: "Notify…" }).click();
    expect(await dialog.getByRole("checkbox", { name: /It is your turn/ }).isChecked()).toBe(true);
    await dialog.getByRole("button", { name: "Close" }).click();

    await report({ state: "working", summary: "writing" });
    await badge.filter({ hasText: "working" }).waitFor();
    await report({ state: "working", status: "waiting", summary: "tell me what next" });
    await badge.filter({ hasText: "your turn" }).waitFor();
    await expect
      .poll(() => notes(hub), { timeout: WAIT })
      .toEqual([{ title: "asker: your turn", body: "tell me what next" }]);
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("the dispatch form", () => {
  it("offers the profiles that can run, and marks one not installed, saying why", async () => {
    const hub = await openPage(shared.d);
    const { page } = hub;
    await page.getByRole("button", { name: "+ Dispatch" }).click();
    const dialog = page.getByRole("dialog", { name: "Dispatch a job" });
    const select = dialog.getByLabel("Profile");
    // roost.json's profiles first, then roost's own.
    expect(
      await select.locator("optgroup").evaluateAll((gs) => gs.map((g) => g.getAttribute("label"))),
    ).toEqual(["roost.json", "built in"]);
    const ghost = select.locator('option[value="ghost"]');
    expect(await ghost.textContent()).toBe("ghost — not installed");
    expect(await ghost.evaluate((o) => (o as HTMLOptionElement).disabled)).toBe(true);
    expect(await ghost.getAttribute("title")).toBe(
      "roost-test-no-such-program is not installed: not found on the PATH",
    );
    // What can run is offered, and chosen first; the hint names what cannot.
    expect(await select.inputValue()).toBe("silent");
    expect(
      await select.locator('option[value="shell"]').evaluate((o) => (o as HTMLOptionElement).disabled),
    ).toBe(false);
    await dialog.getByText(/^Not installed here: .*ghost/).waitFor();
    await shot(page, "dispatch-profiles");
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("a job's page, the events page, the icon", () => {
  it("says a terminal's question once, offers r only where Reply is, keeps the focus ring where the keys are", async () => {
    const { d, c, dir } = shared;
    const { job } = await c.ok("dispatch", {
      profile: "shell",
      name: "asks in a shell",
      cwd: dir,
      task: "read -p 'Continue? (y/n) ' answer",
    });
    const ended = (await c.ok("dispatch", { profile: "shell", name: "ended shell", cwd: dir })).job
      .id as string;
    await c.ok("stop", { id: ended });
    const hub = await openPage(d);
    const { page } = hub;
    const favicons: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("favicon")) favicons.push(r.url());
    });

    // The icon has the dot while a job needs you.
    await page.locator(`li.row[data-id="${job.id}"] .badge`, { hasText: "blocked" }).waitFor();
    const icon = () => page.locator('link[rel="icon"]').getAttribute("href");
    await expect
      .poll(async () => decodeURIComponent((await icon()) ?? ""), { timeout: WAIT })
      .toMatch(/^data:image\/svg\+xml,<svg.*<circle/);

    // Its page: the question once in its row (the screen's last line is its summary too).
    await page.goto(`${d.url}#/jobs/${job.id}`);
    const row = page.locator(".job-view li.row");
    await row.locator(".q-text", { hasText: "Continue? (y/n)" }).waitFor();
    const text = await row.innerText();
    expect(text.split("Continue? (y/n)").length - 1).toBe(1);
    await shot(page, "job-question-once");
    // r: its Reply opens.
    await page.keyboard.press("r");
    expect(await page.evaluate("document.activeElement.getAttribute('name')")).toBe("text");
    await page.keyboard.press("Escape");

    // An ended job's page has no Reply, and r opens none.
    await page.goto(`${d.url}#/jobs/${ended}`);
    await page.locator(".job-view li.row .badge", { hasText: "stopped" }).waitFor();
    expect(await page.getByRole("button", { name: "Reply" }).count()).toBe(0);
    await page.keyboard.press("r");
    expect(await page.locator("textarea[name=text]").count()).toBe(0);

    // The events page by the keyboard: no ring around the whole page; the job filter keeps the
    // focus (and its ring) as ↓ goes from job to job.
    await page.keyboard.press("g");
    await page.keyboard.press("e");
    // Exactly: the job's page has a heading "Events in the feed", which would match at once.
    await page.getByRole("heading", { name: "Events", exact: true }).waitFor();
    const ring = () =>
      page.evaluate(`(() => {
        const s = getComputedStyle(document.activeElement);
        return [document.activeElement.tagName, s.outlineStyle, s.outlineStyle === "none" ? "" : s.outlineWidth].join(" ").trim();
      })()`);
    expect(await ring()).toBe("MAIN none");
    await page.keyboard.press("Tab");
    expect(await ring()).toBe("SELECT solid 2px");
    await page.keyboard.press("ArrowDown");
    await expect
      .poll(() => page.evaluate("location.hash"), { timeout: WAIT })
      .toMatch(/^#\/events\?job=j\d+$/);
    expect(await ring()).toBe("SELECT solid 2px");
    const chosen = (await page.evaluate("location.hash")) as string;
    await page.locator("ol.feed li.entry").first().waitFor();
    // Filtered to that job: its entries have no job column.
    expect(await page.locator("ol.feed li.entry a.job").count()).toBe(0);
    await shot(page, "events-focus");
    expect(chosen).toContain(await page.locator("#feed-filter").inputValue());
    expect(favicons).toEqual([]);
    expect(pageErrors(page)).toEqual([]);
  });
});
