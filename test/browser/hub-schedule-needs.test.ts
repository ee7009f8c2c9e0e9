/**
 * A schedule that needs the user, in the hub (docs/protocol.md, "A run's end"), in a real browser
 * against a real daemon whose clock runs thirty times as fast (ROOST_TEST_CLOCK): an `every 1m`
 * whose job never ends skips three times; the Schedules tab's badge counts it, live, its card says
 * why; a run that starts a job again takes the badge away.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import type { RawClient } from "../helpers/raw-client.js";
import { type FileBrowser, launch, openHub, shot, WAIT } from "./browser.js";

let browser: FileBrowser;
let d: TestDaemon;
let c: RawClient;

beforeAll(async () => {
  browser = await launch();
  d = await startDaemon({
    env: { ROOST_TEST_CLOCK: "rate=30" },
    config: { agentProfiles: { inert: { command: ["sleep", "600"], task: "type", protocol: true } } },
  });
  c = await d.client();
});
afterAll(async () => {
  await browser?.close();
  await d?.cleanup();
});

describe("a schedule that needs you", () => {
  it("is counted on the Schedules tab, live, and says why on its card; a run that starts clears it", async () => {
    const { page, context } = await openHub(browser, d, { viewport: { width: 1100, height: 900 } });
    try {
      const tab = page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: /^Schedules/ });
      await tab.waitFor();
      expect(await tab.locator(".tab-count").isHidden()).toBe(true);
      const { schedule } = await c.ok("schedule-add", {
        when: "every 1m",
        launch: { profile: "inert", task: "watch", cwd: "/tmp" },
        name: "watcher",
      });
      const s = await until(
        "three skips",
        async () => (await c.ok("schedules")).schedules.find((x: any) => x.needsYou),
        60_000,
      );
      await c.ok("schedule-pause", { id: schedule.id, paused: true });
      await expect.poll(() => tab.locator(".tab-count").textContent(), { timeout: WAIT }).toBe("1 needs you");
      expect(await tab.getAttribute("aria-label")).toBe("Schedules: 1 needs you");
      await tab.click();
      const card = page.locator(`li.schedule[data-id="${schedule.id}"]`);
      await card.locator(".needs-you").waitFor();
      expect(await card.locator(".needs-you-why").textContent()).toBe(`Needs you: ${s.needsYou}`);
      await shot(page, "schedule-needs-you");
      await c.ok("stop", { id: s.lastJob });
      await c.ok("schedule-run", { id: schedule.id });
      await expect.poll(() => tab.locator(".tab-count").isHidden(), { timeout: WAIT }).toBe(true);
      expect(await card.locator(".needs-you").count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
