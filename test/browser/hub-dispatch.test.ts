/**
 * The dispatch dialog's where, in a real browser against a real daemon and a real git repository:
 * the default directory said plainly (the daemon's home, as `profiles` gives it, or a profile's
 * own); the recent directories (the jobs') and the repositories roost has seen offered, one click
 * each; a worktree ticked with a branch named makes the job's worktree on that branch; the
 * directory dispatched to is offered first next time. Screenshot: dispatch-dialog.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { editorProfile, GIT_IDENTITY, makeRepo } from "../helpers/git.js";
import { untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { pageErrors, shot } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const hub = hubBrowser({ viewport: { width: 1200, height: 1000 } });
let d: TestDaemon;
let c: RawClient;
let repo: string;
let scratch: string;

beforeAll(async () => {
  d = await startDaemon({
    env: GIT_IDENTITY,
    config: { agentProfiles: { editor: editorProfile(), there: editorProfile({ cwd: "/tmp" }) } },
  });
  c = await d.client();
  repo = makeRepo({ "README.md": "# app\n", "pkg/index.ts": "export {};\n" });
  scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "roost-scratch-")));
}, 60_000);
afterAll(async () => {
  await d?.cleanup();
  for (const dir of [repo, scratch]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("dispatch: where the job runs", () => {
  it("says the default, offers recent directories and repositories seen, and makes a worktree on the branch named", async () => {
    // Jobs the daemon knows: one in a worktree of the repository (in a subdirectory), one in a scratch directory.
    const { job: inRepo } = await c.ok("dispatch", {
      profile: "editor",
      task: "true",
      cwd: path.join(repo, "pkg"),
      worktree: true,
    });
    await c.ok("dispatch", { profile: "editor", task: "true", cwd: scratch });
    const { profiles } = await c.ok("profiles");
    const home = profiles.find((p: { name: string }) => p.name === "editor").cwd;

    const { page } = await hub(d);
    await page.locator(`li.row[data-id="${inRepo.id}"]`).waitFor();
    await page.keyboard.press("d");
    const dialog = page.getByRole("dialog", { name: "Dispatch a job" });
    await dialog.waitFor();
    await dialog.getByLabel("Profile").selectOption("editor");
    // The default, plainly: where a job without a directory runs.
    const hint = dialog.locator(".where-default");
    expect(await hint.innerText()).toContain(`In ${home} (the daemon's home) unless you pick one.`);
    await dialog.getByLabel("Profile").selectOption("there");
    expect(await hint.innerText()).toContain("In /tmp (there's directory) unless you pick one.");
    await dialog.getByLabel("Profile").selectOption("editor");

    // Recent: the scratch directory (newest first) and the worktree job's place in its repository;
    // the repository among those seen.
    const picks = dialog.locator(".picks button.pick");
    await expect
      .poll(() => picks.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.dir)))
      .toEqual([scratch, path.join(repo, "pkg"), repo]);
    await dialog.getByRole("button", { name: `⎇ ${path.basename(repo)}` }).click();
    expect(await dialog.getByLabel("Working directory").inputValue()).toBe(repo);

    // A worktree on a branch of our naming; the branch field waits for the box.
    const branch = dialog.getByRole("textbox", { name: "Branch" });
    expect(await branch.isDisabled()).toBe(true);
    await dialog.getByLabel("A git worktree of its own").check();
    await branch.fill("fix/login");
    await dialog.getByLabel("Task").fill("echo hello > hello.txt");
    await dialog.getByLabel("Name").fill("on a branch");
    await shot(page, "dispatch-dialog");
    await dialog.getByRole("button", { name: "Dispatch" }).click();
    await dialog.waitFor({ state: "hidden" });

    const row = page.locator("li.row", { hasText: "on a branch" });
    await row.waitFor();
    const id = (await row.getAttribute("data-id"))!;
    const job = await untilRow(c, id, "its worktree", (r) => r.worktree !== null);
    expect(job.worktree).toMatchObject({ branch: "fix/login", repo });
    expect(job.cwd).toBe(job.worktree.path);

    // Next time, the directory dispatched to comes first.
    await page.keyboard.press("d");
    await dialog.waitFor();
    expect(await picks.first().getAttribute("data-dir")).toBe(repo);
    expect(await dialog.getByLabel("Working directory").inputValue()).toBe(""); // a fresh form
    expect(pageErrors(page)).toEqual([]);
  }, 120_000);
});
