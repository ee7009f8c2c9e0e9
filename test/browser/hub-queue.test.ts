/**
 * The merge queue in the hub, in a real browser against a real daemon and a real repository:
 * Merge… on selected rows (only rows with worktrees), its dialog saying the daemon's refusal in
 * its words, then the queue's page live: the first landed with its commit, a queued one cancelled
 * (its Cancel pressed before the list is drawn again, released after),
 * the one whose check failed with the check's tail; the tab's count while entries wait.
 * Screenshots in test-output/screenshots/.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { GIT_IDENTITY, git, head, makeRepo } from "../helpers/git.js";
import { silentProfile } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const hub = hubBrowser({ viewport: { width: 1100, height: 900 } });
let d: TestDaemon;
let c: RawClient;
let base: string;

beforeAll(async () => {
  d = await startDaemon({
    env: { ...GIT_IDENTITY, ROOST_QUEUE_WAIT_MS: "200" },
    config: { agentProfiles: { quiet: silentProfile() } },
  });
  c = await d.client();
  base = makeRepo();
}, 30_000);
afterAll(async () => {
  await d?.cleanup();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/** A job in a worktree of the repository, `files` committed on its branch by hand, as its agent would. */
async function jobWith(name: string, files: Record<string, string>) {
  const { job } = await c.ok("dispatch", { profile: "quiet", task: "work", name, cwd: base, worktree: true });
  for (const [file, text] of Object.entries(files))
    fs.writeFileSync(path.join(job.worktree.path, file), text);
  git(job.worktree.path, "add", "-A");
  git(job.worktree.path, "commit", "-q", "-m", name);
  return job;
}

// Slow enough that the entries after the first wait their turn while the page cancels one.
const CHECK =
  "sleep 3; if [ -f bad ]; then echo 'checking bad'; echo 'bad: this file must not be here'; exit 1; fi; echo 'all good'";

describe("the merge queue in the hub", () => {
  it("merges selected jobs through the queue: one lands, one is cancelled, one fails its check", async () => {
    // Newest on top: the rows show clean, bad, late, so they are queued in that order.
    const late = await jobWith("late work", { "late.txt": "late\n" });
    const bad = await jobWith("bad work", { bad: "oops\n" });
    const clean = await jobWith("clean work", { "clean.txt": "clean\n" });
    const plain = (await c.ok("dispatch", { profile: "quiet", task: "no tree", name: "no tree", cwd: base }))
      .job;

    const { page } = await hub(d);
    const bar = page.getByRole("region", { name: "Selected jobs" });
    const rowOf = (id: string) => page.locator(`li.row[data-id="${id}"]`);
    await rowOf(late.id).waitFor();
    // A row without a worktree among the selected: Merge… is not offered.
    for (const j of [plain, clean, bad, late]) await rowOf(j.id).locator(".select").click();
    await bar.getByText("4 selected").waitFor();
    const merge = bar.getByRole("button", { name: "Merge…" });
    expect(await merge.isDisabled()).toBe(true);
    await rowOf(plain.id).locator(".select").click();
    await bar.getByText("3 selected").waitFor();
    await merge.click();

    const dialog = page.getByRole("dialog", { name: "Merge through the queue" });
    const order = dialog.getByRole("list", { name: "The branches, in the order they land" });
    expect(await order.getByRole("listitem").allTextContents()).toEqual([
      `clean work roost/${clean.id} → main`,
      `bad work roost/${bad.id} → main`,
      `late work roost/${late.id} → main`,
    ]);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("merge-check");
    await dialog.getByLabel("Check", { exact: true }).fill(CHECK);
    // The daemon's refusal, in its words; nothing queued.
    await dialog.getByLabel("Into", { exact: true }).fill("no-such-branch");
    await dialog.getByRole("button", { name: "Queue 3 jobs" }).click();
    await dialog.locator(".form-status", { hasText: /^Failed: .*no-such-branch/ }).waitFor();
    expect((await c.ok("queue", {})).entries).toEqual([]);
    await dialog.getByLabel("Into", { exact: true }).fill("");
    await dialog.getByText("Tell the job").click();
    await shot(page, "queue-form");
    await dialog.getByRole("button", { name: "Queue 3 jobs" }).click();

    // The queue's page, its tab counting what waits.
    await page.getByRole("heading", { name: "Merge queue", level: 1 }).waitFor();
    expect(await page.title()).toBe("roost: merge queue");
    const tab = page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: /^Merge queue/ });
    expect(await tab.getAttribute("aria-current")).toBe("page");
    expect(await tab.locator(".tab-count").textContent()).toMatch(/^[1-3] to land$/);
    const { entries } = await c.ok("queue", {});
    expect(entries.map((e: any) => [e.id, e.tell, e.check])).toEqual([
      [clean.id, true, CHECK],
      [bad.id, true, CHECK],
      [late.id, true, CHECK],
    ]);
    const [n1, n2, n3] = entries.map((e: any) => e.n as number);
    const entry = (n: number) => page.locator(`li.queue-entry[data-n="${n}"]`);
    await entry(n1)
      .getByRole("link", { name: `clean work (${clean.id})` })
      .waitFor();
    expect(await entry(n1).locator(".queue-branch").textContent()).toBe(`roost/${clean.id} → main`);

    // The last is cancelled while the first's check runs: pressed, the first's state drawn again
    // (the list is, on every change), released: the click is the Cancel's.
    await entry(n3).locator(".queue-state", { hasText: "queued" }).waitFor();
    const box = (await entry(n3)
      .getByRole("button", { name: `Cancel #${n3} (${late.id})` })
      .boundingBox())!;
    const firstWas = await entry(n1).locator(".queue-state").textContent();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await expect
      .poll(() => entry(n1).locator(".queue-state").textContent(), { timeout: WAIT })
      .not.toBe(firstWas);
    await page.mouse.up();
    await entry(n3).locator(".queue-state", { hasText: "cancelled" }).waitFor();
    expect(
      await entry(n3)
        .getByRole("button", { name: /Cancel/ })
        .count(),
    ).toBe(0);

    // The first lands: main's commit shown; its output folded, opened on a click.
    await entry(n1).locator(".queue-state", { hasText: "landed" }).waitFor({ timeout: WAIT });
    await expect
      .poll(() => entry(n1).locator(".queue-commit").textContent(), { timeout: WAIT })
      .toBe(`main is now ${head(base, "main").slice(0, 12)}`);
    const output = entry(n1).locator("details.queue-output");
    expect(await output.getAttribute("open")).toBeNull();
    await output.locator("summary").click();
    await output.locator("pre", { hasText: "all good" }).waitFor();

    // The second fails its check: why, and the check's tail without a click.
    await entry(n2).locator(".queue-state", { hasText: "failed" }).waitFor({ timeout: WAIT });
    expect(await entry(n2).locator(".queue-detail").textContent()).toContain("exited 1");
    expect(await entry(n2).getByLabel(`The end of the check's output of #${n2}`).textContent()).toBe(
      "checking bad\nbad: this file must not be here",
    );
    expect(await entry(n2).locator("details.queue-output").getAttribute("open")).toBeNull();
    // Nothing waits: the tab says nothing; main has the clean work alone.
    await tab.locator(".tab-count").waitFor({ state: "hidden" });
    expect(git(base, "log", "--format=%s", "main").trim().split("\n")).toEqual(["clean work", "base"]);
    // The output opened stays open as the entries are drawn again.
    expect(await output.getAttribute("open")).toBe("");

    await page.mouse.move(0, 0);
    await shot(page, "queue-page", true);

    // g q comes back to it from the jobs.
    await page.goto(`${d.url}#/`);
    await rowOf(clean.id).waitFor({ state: "attached" });
    await page.keyboard.press("g");
    await page.keyboard.press("q");
    await page.getByRole("heading", { name: "Merge queue", level: 1 }).waitFor();
    await entry(n2).locator(".queue-state", { hasText: "failed" }).waitFor();

    // Dark, on a phone's width: nothing sideways.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await shot(page, "queue-page-dark-narrow", true);
    expect(pageErrors(page)).toEqual([]);
  });
});
