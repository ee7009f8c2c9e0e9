/**
 * The hub's schedules view (`#/schedules`) in a real browser against a real daemon: in the nav;
 * the form reads a `when` before it is saved (its words and next three runs, or what is wrong)
 * and adds the schedule; each schedule's when in words, next run with its time zone, last runs
 * linking to their jobs; pause, resume, run now and remove; live when schedules change elsewhere;
 * a read-only token sees it all and can do none of it. Screenshots in test-output/screenshots/.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TestDaemon } from "../helpers/daemon.js";
import { rmTemp, silentProfile, startCleanDaemon, tempDir } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { type FileBrowser, type HubPage, launch, openHub, pageErrors, shot, WAIT } from "./browser.js";

let browser: FileBrowser;
let d: TestDaemon;
let c: RawClient;
let dir: string;
const hubs: HubPage[] = [];

beforeAll(async () => {
  browser = await launch();
  d = (
    await startCleanDaemon({
      agentProfiles: { silent: silentProfile({ description: "waits, says nothing" }) },
    })
  ).d;
  c = await d.client();
  dir = tempDir();
});
afterAll(async () => {
  await browser?.close();
  await d?.cleanup();
  if (dir) rmTemp(dir);
});
afterEach(async () => {
  for (const hub of hubs.splice(0)) await hub.context.close();
  for (const s of (await c.ok("schedules")).schedules) await c.ok("schedule-rm", { id: s.id });
  for (const r of (await c.ok("list")).rows) await c.ok("rm", { id: r.id });
});

async function hub(
  opts: { token?: string; viewport?: { width: number; height: number }; mobile?: boolean } = {},
): Promise<HubPage> {
  const page = await openHub(browser, d, { viewport: { width: 1100, height: 1000 }, ...opts });
  hubs.push(page);
  return page;
}

describe("the schedules view", () => {
  it("reads a when before saving, adds a schedule, and pauses, runs and removes it; live", async () => {
    const { page } = await hub();
    // g s goes there from the jobs; so does the nav, where it is marked as the page shown.
    await page.keyboard.press("g");
    await page.keyboard.press("s");
    await page.getByRole("heading", { name: "Schedules", level: 1 }).waitFor();
    await page.goto(`${d.url}#/`);
    const nav = page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Schedules" });
    await nav.click();
    await page.getByRole("heading", { name: "Schedules", level: 1 }).waitFor();
    expect(await nav.getAttribute("aria-current")).toBe("page");
    expect(await page.title()).toBe("roost: schedules");
    await page.getByText("No schedules yet.").waitFor();

    // The when is read as it is typed: what is wrong, then its words and next three runs.
    const form = page.locator("form.schedule-form");
    const when = form.getByLabel("When");
    await when.fill("daily 25:00");
    const preview = form.locator(".when-preview");
    await preview.getByText("daily 25:00: the hour must be 00–23").waitFor();
    await when.fill("weekdays 09:00 tz Europe/Berlin");
    await preview.getByText("Monday to Friday at 09:00, Europe/Berlin time").waitFor();
    await preview.getByText("times in Europe/Berlin").waitFor();
    const next = preview.getByRole("list", { name: "Its next runs" }).getByRole("listitem");
    await expect.poll(() => next.count(), { timeout: WAIT }).toBe(3);
    for (const text of await next.allTextContents())
      expect(text).toMatch(/^(Mon|Tue|Wed|Thu|Fri) \d{1,2} \w{3} 09:00 in \d+ [smhd]( \d+ m)?$/);
    expect(await c.ok("schedules")).toEqual({ schedules: [] }); // nothing saved yet

    await form.getByLabel("Profile").selectOption("silent");
    await form.getByLabel("Task").fill("read the overnight logs");
    await form.getByLabel("Name").fill("morning logs");
    await form.getByLabel("Working directory").fill(dir);
    await shot(page, "schedules-form");
    await form.getByRole("button", { name: "Add the schedule" }).click();
    const card = page.locator('li.schedule[data-id="s1"]');
    await card.getByRole("heading", { name: "morning logs" }).waitFor();
    await expect.poll(() => form.getByLabel("When").inputValue(), { timeout: WAIT }).toBe("");
    expect(await card.locator(".when").textContent()).toBe("Monday to Friday at 09:00, Europe/Berlin time");
    expect(await card.locator(".next").textContent()).toMatch(
      /^Next run: (Mon|Tue|Wed|Thu|Fri) \d{1,2} \w{3} 09:00 Europe\/Berlin \(in \d+ [smhd]( \d+ m)?\)$/,
    );
    const [saved] = (await c.ok("schedules")).schedules;
    expect(saved).toMatchObject({
      name: "morning logs",
      launch: { profile: "silent", task: "read the overnight logs", cwd: dir },
    });

    // Run now: a job, its run listed with a link to it.
    await card.getByRole("button", { name: "Run now" }).click();
    const run = card.getByRole("list", { name: "Last runs of morning logs" }).getByRole("listitem");
    await run.first().locator(".badge", { hasText: "started" }).waitFor();
    const jobId = (await c.ok("schedules")).schedules[0].lastJob as string;
    await run
      .first()
      .getByRole("link", { name: `read the overnight logs (${jobId})` })
      .waitFor();
    expect(await run.first().locator(".why").textContent()).toBe("by hand");

    // Pause, then resume.
    await card.getByRole("button", { name: "Pause" }).click();
    await card.locator(".badge", { hasText: "paused" }).waitFor();
    expect(await card.locator(".next").textContent()).toBe("Paused: it runs only when you run it.");
    expect((await c.ok("schedules")).schedules[0].paused).toBe(true);
    await card.getByRole("button", { name: "Resume" }).click();
    await card.locator(".next", { hasText: "Next run:" }).waitFor();

    // Live: what another client does shows at once.
    await c.ok("schedule-add", {
      when: "every 2h",
      launch: { profile: "silent", task: "tidy", cwd: dir },
      name: "tidy up",
    });
    const other = page.locator('li.schedule[data-id="s2"]');
    await other.getByRole("heading", { name: "tidy up" }).waitFor();
    expect(await other.locator(".when").textContent()).toBe("every 2 hours");
    expect(await other.locator(".next").textContent()).toMatch(
      / UTC \(in (1|2) h( \d+ m)?\)$|UTC \(in \d+ m\)$/,
    );
    await c.ok("schedule-run", { id: "s1" });
    await expect.poll(() => run.count(), { timeout: WAIT }).toBe(2);
    await shot(page, "schedules");

    // The first run's link (now the second in the list, newest first) goes to its job's page.
    await run
      .nth(1)
      .getByRole("link", { name: `read the overnight logs (${jobId})` })
      .click();
    await page.locator("#job-title", { hasText: "read the overnight logs" }).waitFor();
    expect(await page.evaluate(() => location.hash)).toBe(`#/jobs/${jobId}`);
    await page.goBack();
    await card.waitFor();

    // Remove asks once more on the button, then it goes; asked, it stays asked while another
    // schedule changes (that card alone is drawn again).
    await card.getByRole("button", { name: "Remove…" }).click();
    const sure = card.getByRole("button", { name: "Remove s1: sure?" });
    await sure.waitFor();
    await c.ok("schedule-pause", { id: "s2", paused: true });
    await other.locator(".badge", { hasText: "paused" }).waitFor();
    expect(await sure.count()).toBe(1);
    await sure.click();
    await card.waitFor({ state: "detached" });
    await c.ok("schedule-rm", { id: "s2" });
    await other.waitFor({ state: "detached" });
    await page.getByText("No schedules yet.").waitFor();

    // The feed says it too, each entry linking to the schedules.
    await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Events" }).click();
    const entry = page
      .locator("ol.feed li.k-schedule", { hasText: `morning logs: started ${jobId} (by hand)` })
      .first();
    await entry.waitFor();
    expect(await entry.getByRole("link", { name: "s1" }).getAttribute("href")).toBe("#/schedules");
    expect(await entry.getByRole("link", { name: jobId }).getAttribute("href")).toBe(`#/jobs/${jobId}`);
    expect(pageErrors(page)).toEqual([]);
  });

  it("a read-only token sees the schedules and their runs, and can change none", async () => {
    const { schedule } = await c.ok("schedule-add", {
      when: "daily 18:00",
      launch: { profile: "silent", task: "evening report", cwd: dir },
      name: "evening",
    });
    await c.ok("schedule-run", { id: schedule.id });
    const made = await c.ok("token", { action: "create", name: "wall", readOnly: true });
    const { page } = await hub({ token: new URL(made.link).searchParams.get("token")! });
    await page.goto(`${d.url}#/schedules`);
    const card = page.locator(`li.schedule[data-id="${schedule.id}"]`);
    await card.getByRole("heading", { name: "evening" }).waitFor();
    expect(await card.locator(".when").textContent()).toBe("every day at 18:00");
    await card.locator("ol.runs .badge", { hasText: "started" }).waitFor();
    expect(await page.locator("form.schedule-form").count()).toBe(0);
    expect(await card.getByRole("button").count()).toBe(0);
    await shot(page, "schedules-read-only");
    expect(pageErrors(page)).toEqual([]);
    await c.ok("token", { action: "revoke", name: "wall" });
  });

  it("fits a phone: one column, no sideways scrolling", async () => {
    const { schedule } = await c.ok("schedule-add", {
      when: 'cron "*/15 9-17 * * 1-5" tz America/Los_Angeles',
      launch: { profile: "silent", task: "look at the queue and say what is stuck", cwd: dir },
      name: "queue watch",
    });
    await c.ok("schedule-run", { id: schedule.id });
    const { page } = await hub({ viewport: { width: 390, height: 844 }, mobile: true });
    await page.goto(`${d.url}#/schedules`);
    const card = page.locator(`li.schedule[data-id="${schedule.id}"]`);
    await card.locator("ol.runs .badge", { hasText: "started" }).waitFor();
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await shot(page, "schedules-phone", true);
    expect(pageErrors(page)).toEqual([]);
  });
});
