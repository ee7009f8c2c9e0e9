/**
 * The merge queue (docs/worktrees.md, "The merge queue"), against a real daemon and real git
 * repositories: jobs' branches landed one at a time, a conflict and a failed check leaving the
 * target as it was and the jobs told, a dirty target checkout refused, a push and a clean, the
 * CLI following its entries, and what is refused. The daemon killed mid-queue: queue-restart.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roost, userEnv } from "../helpers/cli.js";
import { type TestDaemon, until } from "../helpers/daemon.js";
import { branches, git, head, makeRepo } from "../helpers/git.js";
import { committedJob, startQueueDaemon } from "../helpers/queue.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let c: RawClient;
const repos: string[] = [];

beforeAll(async () => {
  d = await startQueueDaemon();
  c = await d.client();
}, 30_000);
afterAll(async () => {
  await d?.cleanup();
  for (const r of repos) fs.rmSync(r, { recursive: true, force: true });
});

function repo(): string {
  const dir = makeRepo();
  repos.push(dir);
  return dir;
}

const jobWith = (base: string, files: Record<string, string>, message?: string) =>
  committedJob(c, base, files, message);

/** Waits until the entries numbered `ns` have all ended: the queue's entries. */
async function ended(ns: number[], ms = 30_000): Promise<Map<number, any>> {
  return until(
    `entries ${ns.join(", ")} ended`,
    async () => {
      const { entries } = await c.ok("queue", {});
      const byN = new Map<number, any>(entries.map((e: any) => [e.n, e]));
      return ns.every((n) => ["landed", "failed", "cancelled"].includes(byN.get(n)?.state)) ? byN : null;
    },
    ms,
  );
}

async function refused(op: string, args: unknown): Promise<{ code: string; error: string }> {
  const r = await c.request(op, args);
  if (r.ok) throw new Error(`${op} was not refused: ${JSON.stringify(r.result)}`);
  return { code: r.code ?? "", error: r.error ?? "" };
}

const pendingTexts = async (id: string) =>
  (await c.ok("pending", { id })).replies.map((r: { text: string }) => r.text);

const CHECK =
  "if [ -f c.txt ]; then echo 'tests: 1 failed: c.txt must not exist'; exit 3; fi; echo 'tests: all passed'";

describe("a queue of three", () => {
  it("lands the first; the second's conflict and the third's failed check leave main as it was, the jobs told, the feed saying each", async () => {
    const base = repo();
    const j1 = await jobWith(base, { "shared.txt": "one\n" }, "one");
    const j2 = await jobWith(base, { "shared.txt": "two\n" }, "two");
    const j3 = await jobWith(base, { "c.txt": "three\n" }, "three");
    const { entries } = await c.ok("queue-add", { ids: [j1.id, j2.id, j3.id], check: CHECK, tell: true });
    expect(entries.map((e: any) => [e.id, e.branch, e.into, e.state])).toEqual([
      [j1.id, `roost/${j1.id}`, "main", "queued"],
      [j2.id, `roost/${j2.id}`, "main", "queued"],
      [j3.id, `roost/${j3.id}`, "main", "queued"],
    ]);
    const [n1, n2, n3] = entries.map((e: any) => e.n);
    const done = await ended([n1, n2, n3]);

    // main has the first alone: a fast-forward to its commit, the base checkout's files following.
    const first = done.get(n1);
    expect(first).toMatchObject({ state: "landed", commit: head(base, "main"), conflicts: [], detail: null });
    expect(first.output).toContain("tests: all passed");
    expect(head(base, "main")).toBe(head(j1.worktree.path));
    expect(git(base, "log", "--format=%s", "main").trim().split("\n")).toEqual(["one", "base"]);
    expect(fs.readFileSync(path.join(base, "shared.txt"), "utf8")).toBe("one\n");
    expect(fs.existsSync(path.join(base, "c.txt"))).toBe(false);
    expect(git(base, "status", "--porcelain")).toBe("");

    // The second: its conflicting file; the third: the check's tail.
    expect(done.get(n2)).toMatchObject({ state: "failed", conflicts: ["shared.txt"], commit: null });
    expect(done.get(n2).detail).toContain("conflicts with main in shared.txt");
    expect(done.get(n3)).toMatchObject({ state: "failed", conflicts: [], commit: null });
    expect(done.get(n3).detail).toContain("exited 3");
    expect(done.get(n3).output).toContain("tests: 1 failed: c.txt must not exist");
    expect(fs.readFileSync(path.join(d.home, "queue", `${n3}.log`), "utf8")).toContain(
      "c.txt must not exist",
    );

    // Both told what to fix.
    const told2 = (await pendingTexts(j2.id)).join("\n");
    expect(told2).toContain(
      `your branch roost/${j2.id} conflicts with main in shared.txt (${j1.id} landed there first)`,
    );
    expect(told2).toContain("Rebase on main");
    const told3 = (await pendingTexts(j3.id)).join("\n");
    expect(told3).toContain("the check `");
    expect(told3).toContain("failed (exited 3)");
    expect(told3).toContain("tests: 1 failed: c.txt must not exist");
    expect((await pendingTexts(j1.id)).join("\n")).not.toContain("merge queue");

    // The feed says each.
    const { events } = await c.ok("events", { limit: 200 });
    const said = (id: string) =>
      events.filter((e: any) => e.kind === "queue" && e.id === id).map((e: any) => e.text);
    expect(said(j1.id).join("\n")).toContain(`#${n1} landed roost/${j1.id} on main`);
    expect(said(j2.id).join("\n")).toContain(
      `#${n2} not landed: roost/${j2.id} conflicts with main in shared.txt`,
    );
    expect(said(j3.id).join("\n")).toContain(`#${n3} not landed: the check`);

    // No scratch worktree is left, in roost's home or in git's list.
    for (const n of [n1, n2, n3]) expect(fs.existsSync(path.join(d.home, "queue", String(n)))).toBe(false);
    expect(git(base, "worktree", "list")).not.toContain(path.join(d.home, "queue"));
  }, 60_000);
});

describe("what queue-add refuses, nothing queued", () => {
  it("uncommitted changes in the target's checkout", async () => {
    const base = repo();
    const j = await jobWith(base, { "a.txt": "a\n" });
    fs.writeFileSync(path.join(base, "notes.txt"), "mine\n");
    const before = (await c.ok("queue", {})).entries.length;
    const r = await refused("queue-add", { ids: [j.id] });
    expect(r.code).toBe("conflict");
    expect(r.error).toContain(`${base}, where main is checked out, has uncommitted changes (notes.txt)`);
    expect(r.error).toContain("commit or stash them");
    expect((await c.ok("queue", {})).entries.length).toBe(before);
  });

  it("an unknown job, a job without a worktree, too many ids, a bad remote", async () => {
    const base = repo();
    const j = await jobWith(base, { "a.txt": "a\n" });
    const { job: plain } = await c.ok("dispatch", { profile: "quiet", task: "x", cwd: base });
    const before = (await c.ok("queue", {})).entries.length;

    const unknown = await refused("queue-add", { ids: [j.id, "j9999"] });
    expect(unknown.code).toBe("not_found");
    expect(unknown.error).toContain("j9999");

    const noWorktree = await refused("queue-add", { ids: [j.id, plain.id] });
    expect(noWorktree).toMatchObject({ code: "bad_request" });
    expect(noWorktree.error).toContain(`${plain.id} has no worktree`);
    expect(noWorktree.error).toContain("worktree: true");

    const many = await refused("queue-add", { ids: Array.from({ length: 51 }, (_, i) => `j${i + 1}`) });
    expect(many.code).toBe("bad_request");
    expect(many.error).toBe("queue-add: ids must not have more than 50 items");

    for (const remote of ["-oops", "two words"]) {
      const bad = await refused("queue-add", { ids: [j.id], push: remote });
      expect(bad.code).toBe("bad_request");
      expect(bad.error).toContain("is not a remote's name");
    }
    const none = await refused("queue-add", { ids: [j.id], push: "upstream" });
    expect(none.code).toBe("bad_request");
    expect(none.error).toContain(`${base} has no remote upstream`);
    expect((await c.ok("queue", {})).entries.length).toBe(before);

    const missing = await refused("queue-cancel", { n: 99999 });
    expect(missing.code).toBe("not_found");
  });
});

describe("a check's time limit, and cancelling", () => {
  it("a check past its timeout fails the entry; a queued entry is cancelled, one under way is not", async () => {
    const base = repo();
    const slow = await jobWith(base, { "slow.txt": "s\n" });
    const next = await jobWith(base, { "next.txt": "n\n" });
    const { entries } = await c.ok("queue-add", {
      ids: [slow.id, next.id],
      check: "echo begun; sleep 30",
      timeout: 1,
    });
    const [n1, n2] = entries.map((e: any) => e.n);
    await until(
      "checking",
      async () => (await c.ok("queue", {})).entries.find((e: any) => e.n === n1).state === "checking",
    );
    const busy = await refused("queue-cancel", { n: n1 });
    expect(busy.code).toBe("conflict");
    expect(busy.error).toContain(`#${n1} is under way (checking)`);
    const { entry } = await c.ok("queue-cancel", { n: n2 });
    expect(entry).toMatchObject({ n: n2, state: "cancelled" });
    const done = await ended([n1, n2]);
    expect(done.get(n1)).toMatchObject({ state: "failed" });
    expect(done.get(n1).detail).toContain("timed out after 1 s");
    expect(done.get(n1).output).toContain("begun");
    expect(done.get(n2).state).toBe("cancelled");
    expect(git(base, "log", "--format=%s", "main").trim()).toBe("base");
  }, 30_000);
});

describe("push and clean", () => {
  it("pushes the landed target to a remote, and removes the landed job, its worktree and branch", async () => {
    const base = repo();
    const bare = fs.realpathSync(fs.mkdtempSync(path.join(path.dirname(base), "roost-bare-")));
    repos.push(bare);
    git(bare, "init", "-q", "--bare", "-b", "main");
    git(base, "remote", "add", "origin", bare);
    const j = await jobWith(base, { "pushed.txt": "p\n" });
    // main moves meanwhile: the landing is a merge commit of git's clean tree.
    fs.writeFileSync(path.join(base, "other.txt"), "o\n");
    git(base, "add", "-A");
    git(base, "commit", "-q", "-m", "main moved");
    const { entries } = await c.ok("queue-add", { ids: [j.id], push: "origin", clean: true });
    const e = (await ended([entries[0].n])).get(entries[0].n);
    expect(e).toMatchObject({ state: "landed", pushed: true, detail: null, check: null });
    expect(e.commit).toBe(head(base, "main"));
    expect(head(bare, "main")).toBe(e.commit);
    expect(git(base, "log", "-1", "--format=%s%n%P", "main")).toContain(`Merge roost/${j.id} into main`);
    expect(fs.readFileSync(path.join(base, "pushed.txt"), "utf8")).toBe("p\n");
    // Cleaned: the job, its worktree and its branch are gone.
    await until(
      "the job removed",
      async () => !(await c.ok("list", {})).rows.some((r: any) => r.id === j.id),
    );
    expect(fs.existsSync(j.worktree.path)).toBe(false);
    expect(branches(base)).toEqual(["main"]);
  }, 30_000);
});

describe("roost merge A B --check, and roost queue", () => {
  it("prints each entry's progress and exits 1 when one failed; roost queue --json lists them", async () => {
    const base = repo();
    const a = await jobWith(base, { "a.txt": "a\n" });
    const b = await jobWith(base, { "c.txt": "c\n" });
    const env = { ...userEnv(), ROOST_HOME: d.home };
    const r = await roost(["merge", a.id, b.id, "--check", CHECK], env);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^#\\d+ ${a.id} roost/${a.id} → main: queued$`, "m"));
    expect(r.stdout).toMatch(new RegExp(`${a.id} roost/${a.id} → main: checking`));
    expect(r.stdout).toMatch(new RegExp(`${a.id} roost/${a.id} → main: landed at [0-9a-f]{12}`));
    expect(r.stdout).toMatch(new RegExp(`${b.id} roost/${b.id} → main: failed: the check .* exited 3`));
    expect(r.stdout).toContain("    tests: 1 failed: c.txt must not exist");
    expect(fs.existsSync(path.join(base, "a.txt"))).toBe(true);

    const listed = JSON.parse((await roost(["queue", "--json"], env)).stdout);
    const mine = listed.entries.filter((e: any) => e.id === a.id || e.id === b.id);
    expect(mine.map((e: any) => [e.id, e.state])).toEqual([
      [a.id, "landed"],
      [b.id, "failed"],
    ]);
    const table = await roost(["queue"], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/#\s+JOB\s+BRANCH\s+INTO\s+STATE/);

    // One alone stays the direct merge; --no-wait returns once queued.
    const c1 = await jobWith(base, { "d.txt": "d\n" });
    const direct = await roost(["merge", c1.id], env);
    expect(direct.stdout).toContain(`merged ${c1.id} into main`);
    const c2 = await jobWith(base, { "e.txt": "e\n" });
    const queued = await roost(["merge", c2.id, "--check", "true", "--no-wait"], env);
    expect(queued.code).toBe(0);
    expect(queued.stdout).toMatch(new RegExp(`${c2.id} roost/${c2.id} → main: queued`));
    expect((await roost(["queue", "cancel", "x"], env)).code).toBe(64);
  }, 120_000); // eight CLI runs and two checks: about 10 s on a quiet machine, five times that under load
});
