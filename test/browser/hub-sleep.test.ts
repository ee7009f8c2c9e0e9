/**
 * The hub's Sleep, in a real browser against a real daemon and real agent processes: two resting
 * rows selected and put to sleep together (`stop` with reason idle), their badges "asleep", the
 * third untouched; a sleeping row's Wake respawns it, and its row is awake again.
 */
import { describe, expect, it } from "vitest";
import { agentProfile, startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { untilRow } from "../helpers/jobs.js";
import { api, pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const hub = hubBrowser({ viewport: { width: 1200, height: 800 } });

describe("Sleep", () => {
  it("puts two selected rows to sleep; they say asleep, and Wake respawns one", async () => {
    let d: TestDaemon | undefined;
    try {
      d = await startDaemon({ config: { agentProfiles: { agent: agentProfile() } } });
      const c = await d.client();
      const ids: string[] = [];
      for (const name of ["first", "second", "third"])
        ids.push((await c.ok("dispatch", { profile: "agent", task: "done", name, cwd: d.env.HOME })).job.id);
      for (const id of ids) await untilRow(c, id, "resting", (r) => r.view === "your turn");
      const [a, b, other] = ids as [string, string, string];

      const { page } = await hub(d, { prefs: { density: "roomy" } });
      const line = (id: string) => page.locator(`li.row[data-id="${id}"]`);
      await expect.poll(() => page.locator("li.row").count(), { timeout: WAIT }).toBe(3);
      await line(a).locator(".select").click();
      await line(b).locator(".select").click();
      const bar = page.getByRole("region", { name: "Selected jobs" });
      await bar.getByText("2 selected").waitFor();
      await bar.getByRole("button", { name: "Sleep" }).click();
      await bar.getByText("Put to sleep 2 jobs.").waitFor({ timeout: WAIT });

      const rows = (await api(d, "list")).rows as any[];
      const by = (id: string) => rows.find((r) => r.id === id);
      expect(by(a)).toMatchObject({ life: "stopped", stopReason: "idle" });
      expect(by(b)).toMatchObject({ life: "stopped", stopReason: "idle" });
      expect(by(other)).toMatchObject({ life: "running", stopReason: null });
      await expect.poll(() => page.locator(`#state-${a}`).innerText()).toBe("asleep");
      await expect.poll(() => page.locator(`#state-${b}`).innerText()).toBe("asleep");
      expect(await page.locator(`#state-${other}`).innerText()).toBe("your turn");
      // Once the selection is cleared, each asleep row's action reads Wake, the running one's Stop.
      await page.locator("li.row").first().focus();
      await page.keyboard.press("Escape");
      await expect.poll(() => line(a).getByRole("button", { name: "Wake" }).count()).toBe(1);
      expect(await line(other).getByRole("button", { name: "Wake" }).count()).toBe(0);
      await shot(page, "hub-sleep-asleep");

      await line(a).getByRole("button", { name: "Wake" }).click();
      await untilRow(c, a, "awake", (r) => r.life === "running" && r.stopReason === null);
      await expect.poll(() => page.locator(`#state-${a}`).innerText(), { timeout: WAIT }).not.toBe("asleep");
      expect(await page.locator(`#state-${b}`).innerText()).toBe("asleep");
      expect(pageErrors(page)).toEqual([]);
    } finally {
      await d?.cleanup();
    }
  });
});
