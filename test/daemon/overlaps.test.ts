/**
 * Overlaps (docs/worktrees.md, "Overlaps") against a real daemon and a real git repository: jobs in
 * worktrees of one repository that change the same function (a conflict, on both rows, before any
 * merge, committed or not), the same file in different places (an overlap that merges cleanly), and
 * another file (none); a new conflict in the feed; a job removed leaves the others' rows.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { AUTH_MODULE, editorProfile, GIT_IDENTITY, makeRepo } from "../helpers/git.js";
import { untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let c: RawClient;
let repo: string;

beforeAll(async () => {
  d = await startDaemon({ env: GIT_IDENTITY, config: { agentProfiles: { editor: editorProfile() } } });
  c = await d.client();
  repo = makeRepo({ "src/auth.ts": AUTH_MODULE, "src/util.ts": "export const one = 1;\n" });
}, 30_000);
afterAll(async () => {
  await d?.cleanup();
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

/** A job in a worktree of the repository that runs `task` (a shell snippet) and rests at its prompt. */
async function job(task: string): Promise<string> {
  const { job } = await c.ok("dispatch", { profile: "editor", task, cwd: repo, worktree: true });
  return job.id;
}

const overlapsOf = (id: string, what: string, pred: (o: any[]) => boolean) =>
  untilRow(c, id, what, (r) => r.view === "your turn" && pred(r.overlaps ?? []), 30_000).then(
    (r) => r.overlaps,
  );

describe("overlaps between jobs of one repository", () => {
  it("a conflict on both rows before any merge, an overlap that merges cleanly, none for another file; said in the feed; gone with a job", async () => {
    // Same line of login: one leaves it uncommitted, the other commits it.
    const a = await job("sed -i 's/check(user)/checkA(user)/' src/auth.ts");
    const b = await job("sed -i 's/check(user)/checkB(user)/' src/auth.ts && git commit -qam b");
    // logout, in the same file: overlaps both, conflicts with neither.
    const cid = await job("sed -i 's/clear(user)/wipe(user)/' src/auth.ts && git commit -qam c");
    const e = await job("echo 'export const two = 2;' >> src/util.ts");

    const auth = ["src/auth.ts"];
    const ofA = await overlapsOf(a, "overlaps with b and c", (o) => o.length === 2);
    expect(ofA).toEqual([
      { id: b, files: auth, conflicts: auth },
      { id: cid, files: auth, conflicts: [] },
    ]);
    expect(await overlapsOf(b, "overlaps with a and c", (o) => o.length === 2)).toEqual([
      { id: a, files: auth, conflicts: auth },
      { id: cid, files: auth, conflicts: [] },
    ]);
    expect(await overlapsOf(cid, "overlaps with a and b", (o) => o.length === 2)).toEqual([
      { id: a, files: auth, conflicts: [] },
      { id: b, files: auth, conflicts: [] },
    ]);
    expect(await overlapsOf(e, "at rest", () => true)).toEqual([]);

    // The conflict, once, in the feed (which wakes the concierge); the clean overlaps are not news.
    const { events } = await c.ok("events", { limit: 1000 });
    const said = events.filter((x: any) => x.kind === "overlap");
    expect(said).toHaveLength(1);
    expect(said[0].text).toContain(`(${a})`);
    expect(said[0].text).toContain(`(${b})`);
    expect(said[0].text).toContain("would conflict if both landed: both changed src/auth.ts");

    // Nothing of it reached the repository or the worktrees' own indexes.
    expect(execFileSync("git", ["-C", repo, "status", "--porcelain"]).toString()).toBe("");
    const { rows } = await c.ok("list", { id: a });
    expect(execFileSync("git", ["-C", rows[0].worktree.path, "status", "--porcelain"]).toString()).toBe(
      " M src/auth.ts\n",
    );

    // `roost overlaps`: each pair once, the conflict said.
    const cli = (...args: string[]) =>
      execFileSync(process.execPath, [CLI, "overlaps", ...args], {
        env: { ...process.env, ...d.env },
      }).toString();
    expect(JSON.parse(cli("--json"))).toEqual([
      { a, b, files: auth, conflicts: auth },
      { a, b: cid, files: auth, conflicts: [] },
      { a: b, b: cid, files: auth, conflicts: [] },
    ]);
    const plain = cli(b).trim().split("\n");
    expect(plain).toEqual([
      expect.stringMatching(
        new RegExp(`^${b} ".*" and ${a} ".*": src/auth.ts \\(would conflict in 1 file\\)$`),
      ),
      expect.stringMatching(new RegExp(`^${b} ".*" and ${cid} ".*": src/auth.ts \\(would merge cleanly\\)$`)),
    ]);
    expect(cli(e).trim()).toBe(`${e} changed no file another job changed.`);

    // b removed: a overlaps c alone.
    await c.ok("rm", { id: b, force: true });
    expect(await overlapsOf(a, "b gone", (o) => o.length === 1)).toEqual([
      { id: cid, files: auth, conflicts: [] },
    ]);
  }, 60_000);
});
