/**
 * Overlaps in the hub, in a real browser against a real daemon and a real git repository: two jobs
 * that changed the same function are marked on their rows as conflicting, a third that changed the
 * same file elsewhere as overlapping; a job's page lists each file with who else changed it.
 * Screenshots in test-output/screenshots/ (overlaps-rows, overlaps-job).
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { AUTH_MODULE, editorProfile, GIT_IDENTITY, makeRepo } from "../helpers/git.js";
import { untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { type FileBrowser, type HubPage, launch, openHub, pageErrors, shot } from "./browser.js";

let browser: FileBrowser;
let d: TestDaemon;
let c: RawClient;
let repo: string;
let hub: HubPage | undefined;

beforeAll(async () => {
  browser = await launch();
  d = await startDaemon({ env: GIT_IDENTITY, config: { agentProfiles: { editor: editorProfile() } } });
  c = await d.client();
  repo = makeRepo({ "src/auth.ts": AUTH_MODULE });
}, 60_000);
afterAll(async () => {
  await hub?.context.close();
  await browser?.close();
  await d?.cleanup();
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

async function job(name: string, task: string): Promise<string> {
  const { job } = await c.ok("dispatch", { profile: "editor", task, cwd: repo, worktree: true, name });
  return job.id;
}

describe("overlaps in the hub", () => {
  it("marks conflicting and overlapping rows, and lists the files on a job's page", async () => {
    const a = await job("login fix", "sed -i 's/check(user)/checkA(user)/' src/auth.ts");
    const b = await job(
      "login rework",
      "sed -i 's/check(user)/checkB(user)/' src/auth.ts && git commit -qam b",
    );
    const l = await job("logout tidy", "sed -i 's/clear(user)/wipe(user)/' src/auth.ts && git commit -qam l");
    for (const id of [a, b, l])
      await untilRow(
        c,
        id,
        "both overlaps",
        (r) => r.view === "your turn" && r.overlaps?.length === 2,
        30_000,
      );

    hub = await openHub(browser, d);
    const { page } = hub;
    const tag = (id: string) => page.locator(`li.row[data-id="${id}"] .overlap`);
    await tag(a).waitFor();
    expect(await tag(a).innerText()).toBe(`⚠ conflicts with ${b}`);
    expect(await tag(a).getAttribute("class")).toBe("overlap conflict");
    expect(await tag(b).innerText()).toBe(`⚠ conflicts with ${a}`);
    expect(await tag(l).innerText()).toBe(`overlaps ${a}, ${b}`);
    expect(await tag(l).getAttribute("class")).toBe("overlap");
    expect(await tag(l).getAttribute("title")).toBe(
      `${a} changed src/auth.ts too: would merge cleanly\n${b} changed src/auth.ts too: would merge cleanly`,
    );
    await shot(page, "overlaps-rows");

    await page.goto(`${d.url}#/jobs/${a}`);
    const list = page.locator(".job-view ul.overlaps");
    await list.waitFor();
    expect(await list.innerText()).toBe(`src/auth.ts also changed by ${b}: would conflict, ${l}`);
    await list.locator("li.conflict").waitFor();
    await shot(page, "overlaps-job");
    expect(pageErrors(page)).toEqual([]);
  }, 90_000);
});
