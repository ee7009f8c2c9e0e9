/**
 * The hub's dispatch form and roost's sandbox (docs/security.md), in a real browser against a real
 * daemon and a real bubblewrap: the Sandbox box is ticked as the chosen profile says, a job
 * dispatched with it ticked runs sandboxed, and its row says so.
 */
import { describe, expect, it } from "vitest";
import { cleanDaemonPerFile, startCleanDaemon } from "../helpers/jobs.js";
import { apiRow, pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const openPage = hubBrowser();
const shared = cleanDaemonPerFile(
  {
    agentProfiles: {
      boxed: { command: ["sleep", "600"], sandbox: true, description: "sandboxed by its profile" },
      plain: { command: ["sleep", "600"], description: "run as the user" },
    },
  },
  startCleanDaemon,
);

describe("the dispatch form's Sandbox box", () => {
  it("is ticked as the profile says; ticked, the job runs sandboxed and its row says so", async () => {
    const { d, dir } = shared;
    const { page } = await openPage(d);
    await page.getByRole("button", { name: "+ Dispatch" }).click();
    const dialog = page.getByRole("dialog", { name: "Dispatch a job" });
    const box = dialog.getByRole("checkbox", { name: "Sandbox" });
    await dialog.getByLabel("Profile").selectOption("boxed");
    expect(await box.isChecked()).toBe(true);
    await dialog.getByLabel("Profile").selectOption("plain");
    expect(await box.isChecked()).toBe(false);
    await box.check();
    await dialog.getByLabel("Name").fill("in the box");
    await dialog.getByLabel("Working directory").fill(dir);
    await shot(page, "dispatch-sandbox");
    await dialog.getByRole("button", { name: "Dispatch" }).click();
    const row = page.locator("li.row", { hasText: "in the box" });
    await row.locator(".sandboxed", { hasText: "sandboxed" }).waitFor({ timeout: WAIT });
    const id = await row.getAttribute("data-id");
    expect(await apiRow(d, id!)).toMatchObject({ sandboxed: true, profile: "plain", name: "in the box" });
    expect(pageErrors(page)).toEqual([]);
  });
});
