/**
 * A job's pending replies on its page, in a real browser: a protocol agent that never connects
 * (so nothing is ever taken), its task and replies listed oldest first, a new reply appearing live.
 */
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TestDaemon } from "../helpers/daemon.js";
import { rmTemp, silentProfile, startCleanDaemon, tempDir } from "../helpers/jobs.js";
import { apiPost, type HubPage, launch, openHub, pageErrors, shot } from "./browser.js";

let browser: Browser;
let d: TestDaemon | undefined;
let hub: HubPage | undefined;
const temps: string[] = [];

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await hub?.context.close();
  hub = undefined;
  await d?.cleanup();
  d = undefined;
  for (const t of temps.splice(0)) rmTemp(t);
});

describe("a job's pending replies", () => {
  it("lists the replies its agent has not taken, oldest first, and a new one as it is sent", async () => {
    d = (await startCleanDaemon({ agentProfiles: { silent: silentProfile() } })).d;
    const dir = tempDir();
    temps.push(dir);
    const { job } = await apiPost(d, "dispatch", {
      profile: "silent",
      name: "never listens",
      task: "the task itself",
      cwd: dir,
    });
    const id = job.id as string;
    await apiPost(d, "reply", { id, text: "please hurry", mode: "steer" });
    const long = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of a long follow-up`).join("\n");
    await apiPost(d, "reply", { id, text: long });

    hub = await openHub(browser, d);
    const { page } = hub;
    await page.goto(`${d.url}#/jobs/${id}`);
    const section = page.getByRole("region", { name: "Pending replies" });
    const items = section.locator("li.pending-reply");
    await expect.poll(() => items.count()).toBe(3);
    expect(await items.locator(".seq").allTextContents()).toEqual(["#1", "#2", "#3"]);
    await items.nth(0).getByText("the task itself").waitFor();
    await items.nth(1).getByText("please hurry").waitFor();
    await items.nth(1).locator(".mode", { hasText: "steer" }).waitFor();
    expect(await items.nth(2).locator(".pending-text").innerText()).toBe(long);
    // The long one is clipped, with "more" to read it all.
    const text = items.nth(2).locator(".pending-text");
    const clipped = await text.evaluate((el) => el.clientHeight);
    await items.nth(2).getByRole("button", { name: "more" }).click();
    expect(await text.evaluate((el) => el.clientHeight)).toBeGreaterThan(clipped);
    await items.nth(2).getByRole("button", { name: "less" }).waitFor();
    await shot(page, "job-pending", true);

    // Sent now, by someone else: it appears without a reload (the row's push says so).
    await page.evaluate("window.__sameDocument = 'yes'");
    await apiPost(d, "reply", { id, text: "one more thing" });
    await items.nth(3).getByText("one more thing").waitFor();
    expect(await items.locator(".seq").allTextContents()).toEqual(["#1", "#2", "#3", "#4"]);
    // The opened reply stays open through the refresh.
    await items.nth(2).getByRole("button", { name: "less" }).waitFor();
    expect(await page.evaluate("window.__sameDocument")).toBe("yes");
    expect(pageErrors(page)).toEqual([]);
  });
});
