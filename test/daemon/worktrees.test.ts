/**
 * Worktrees and review (docs/worktrees.md), against a real daemon and real git repositories in
 * temp directories: each job in its own worktree and branch, `changes` showing its own alone,
 * `merge` landing one and refusing a conflict with the file named, `rm` keeping or deleting the
 * branch and refusing a dirty worktree, what dispatch refuses, the bounds of a diff, a crash's
 * leftovers swept at start.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { branches, commitFile, editorProfile, GIT_IDENTITY, git, head, makeRepo } from "../helpers/git.js";
import { procEnv, row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let c: RawClient;
const repos: string[] = [];

beforeAll(async () => {
  d = await startDaemon({
    env: GIT_IDENTITY,
    config: {
      agentProfiles: {
        editor: editorProfile(),
        isolated: editorProfile({ worktree: true }),
        inert: { command: ["sleep", "600"], task: "type", protocol: true },
      },
    },
  });
  c = await d.client();
}, 30_000);
afterAll(async () => {
  await d?.cleanup();
  for (const r of repos) fs.rmSync(r, { recursive: true, force: true });
});

function repo(files?: Record<string, string>): string {
  const dir = makeRepo(files);
  repos.push(dir);
  return dir;
}

/** Dispatches `task` (a shell snippet) in a worktree of `cwd`'s repository: its row. */
async function inWorktree(cwd: string, task: string, extra: Record<string, unknown> = {}): Promise<any> {
  const { job } = await c.ok("dispatch", { profile: "editor", task, cwd, worktree: true, ...extra });
  return job;
}

/** Waits until the job has come to rest with `files` files changed: its row's stat says so. */
const untilStat = (id: string, files: number) =>
  untilRow(c, id, `a stat of ${files} files`, (r) => r.worktree?.stat?.files === files, 30_000);

async function refused(op: string, args: unknown): Promise<{ code: string; error: string }> {
  const r = await c.request(op, args);
  if (r.ok) throw new Error(`${op} was not refused: ${JSON.stringify(r.result)}`);
  return { code: r.code ?? "", error: r.error ?? "" };
}

describe("three jobs on one repository", () => {
  it("each in its own worktree and branch; changes shows each its own; merge lands one and refuses the second's conflict; rm keeps or deletes the branch", async () => {
    const base = repo();
    const baseCommit = head(base);
    const jobs = [];
    for (const word of ["one", "two", "three"])
      jobs.push(await inWorktree(base, commitFile("shared.txt", word)));
    const [j1, j2, j3] = jobs;

    // Each its own place and branch, from the base checkout's HEAD.
    for (const job of jobs) {
      expect(job.worktree).toMatchObject({
        path: path.join(d.home, "worktrees", job.id),
        branch: `roost/${job.id}`,
        repo: base,
        base: "main",
        baseCommit,
        baseDirty: false,
      });
      expect(job.cwd).toBe(job.worktree.path);
    }
    expect(new Set(jobs.map((j) => j.worktree.path)).size).toBe(3);
    for (const job of jobs) await untilStat(job.id, 1);
    expect(branches(base)).toEqual(["main", `roost/${j1.id}`, `roost/${j2.id}`, `roost/${j3.id}`]);
    // The base checkout is untouched.
    expect(fs.readFileSync(path.join(base, "shared.txt"), "utf8")).toBe("base\n");
    expect(git(base, "status", "--porcelain")).toBe("");

    // Each job's changes are its own alone.
    for (const [job, word] of [
      [j1, "one"],
      [j2, "two"],
      [j3, "three"],
    ] as const) {
      const ch = await c.ok("changes", { id: job.id });
      expect(ch).toMatchObject({
        dir: job.worktree.path,
        against: baseCommit,
        branch: `roost/${job.id}`,
        files: [{ path: "shared.txt", added: 1, removed: 1, binary: false }],
        added: 1,
        removed: 1,
        truncated: false,
        note: null,
      });
      expect(ch.commits.map((x: { subject: string }) => x.subject)).toEqual([word]);
      expect(ch.diff).toContain(`-base\n+${word}\n`);
      for (const other of ["one", "two", "three"].filter((w) => w !== word))
        expect(ch.diff).not.toContain(other);
      expect((await row(c, job.id)).worktree.stat).toMatchObject({ files: 1, added: 1, removed: 1 });
    }

    // The first lands: a fast-forward, in the base checkout, its file following.
    const landed = await c.ok("merge", { id: j1.id });
    expect(landed).toEqual({
      into: "main",
      commit: head(j1.worktree.path),
      fastForward: true,
      files: ["shared.txt"],
    });
    expect(head(base)).toBe(landed.commit);
    expect(fs.readFileSync(path.join(base, "shared.txt"), "utf8")).toBe("one\n");

    // The second changed the same line: refused, the file named, nothing changed.
    const conflict = await refused("merge", { id: j2.id });
    expect(conflict.code).toBe("conflict");
    expect(conflict.error).toContain("shared.txt");
    expect(conflict.error).toContain(`roost/${j2.id}`);
    expect(head(base)).toBe(landed.commit);
    expect(git(base, "status", "--porcelain")).toBe("");
    expect(fs.readFileSync(path.join(base, "shared.txt"), "utf8")).toBe("one\n");

    // rm keeps the branch by default; deleteBranch deletes it.
    await c.ok("rm", { id: j3.id });
    expect(fs.existsSync(j3.worktree.path)).toBe(false);
    expect(branches(base)).toContain(`roost/${j3.id}`);
    expect(git(base, "log", "-1", "--format=%s", `roost/${j3.id}`).trim()).toBe("three");
    await c.ok("rm", { id: j2.id, deleteBranch: true });
    expect(fs.existsSync(j2.worktree.path)).toBe(false);
    expect(branches(base)).not.toContain(`roost/${j2.id}`);
    expect(git(base, "worktree", "list", "--porcelain")).not.toContain(j2.worktree.path);
    const feed = (await c.ok("events", { id: j1.id })).events.map((e: { kind: string; text: string }) => e);
    expect(feed.find((e: { kind: string }) => e.kind === "merge")?.text).toBe(
      `merged roost/${j1.id} into main (fast-forward; 1 file)`,
    );
    await c.ok("rm", { id: j1.id });
  }, 120_000);
});

describe("rm", () => {
  it("refuses a worktree with uncommitted changes without force, changing nothing; force removes it, the branch kept", async () => {
    const base = repo();
    const job = await inWorktree(base, "true");
    await untilRow(c, job.id, "your turn", (r) => r.status === "idle");
    fs.writeFileSync(path.join(job.worktree.path, "notes.txt"), "unsaved work\n");
    fs.appendFileSync(path.join(job.worktree.path, "shared.txt"), "more\n");

    const no = await refused("rm", { id: job.id });
    expect(no.code).toBe("conflict");
    expect(no.error).toContain("notes.txt");
    expect(no.error).toContain("shared.txt");
    expect(no.error).toContain("force");
    // Nothing was done: the job runs, its worktree and files are there.
    const still = await row(c, job.id);
    expect(still.life).toBe("running");
    expect(fs.readFileSync(path.join(job.worktree.path, "notes.txt"), "utf8")).toBe("unsaved work\n");

    await c.ok("rm", { id: job.id, force: true });
    expect((await c.ok("list", {})).rows.some((r: { id: string }) => r.id === job.id)).toBe(false);
    expect(fs.existsSync(job.worktree.path)).toBe(false);
    expect(branches(base)).toContain(`roost/${job.id}`);
  }, 60_000);
});

describe("dispatch with a worktree", () => {
  it("refuses, before any row is made: a directory outside git, a repository with no commit, a branch git refuses or that exists", async () => {
    const before = (await c.ok("list", {})).rows.length;
    const plain = fs.mkdtempSync(path.join(d.home, "plain-"));
    const outside = await refused("dispatch", {
      profile: "editor",
      task: "true",
      cwd: plain,
      worktree: true,
    });
    expect(outside.code).toBe("bad_request");
    expect(outside.error).toContain("not in a git repository");

    const empty = fs.mkdtempSync(path.join(d.home, "empty-"));
    git(empty, "init", "-q");
    const noCommit = await refused("dispatch", {
      profile: "editor",
      task: "true",
      cwd: empty,
      worktree: true,
    });
    expect(noCommit.code).toBe("bad_request");
    expect(noCommit.error).toContain("no commit");

    const base = repo();
    git(base, "branch", "taken");
    const taken = await refused("dispatch", { profile: "editor", task: "true", cwd: base, branch: "taken" });
    expect(taken.code).toBe("conflict");
    expect(taken.error).toContain('"taken" exists already');
    const bad = await refused("dispatch", { profile: "editor", task: "true", cwd: base, branch: "a..b" });
    expect(bad.code).toBe("bad_request");
    expect(bad.error).toContain("not a name git allows");
    const both = await refused("dispatch", {
      profile: "editor",
      task: "true",
      cwd: base,
      branch: "x",
      worktree: false,
    });
    expect(both.code).toBe("bad_request");

    expect((await c.ok("list", {})).rows.length).toBe(before);
    const made = path.join(d.home, "worktrees");
    expect(fs.existsSync(made) ? fs.readdirSync(made).length : 0).toBe(
      (await c.ok("list", {})).rows.filter((r: any) => r.worktree).length,
    );
  });

  it("a named branch, a subdirectory's place kept, a dirty base said; the profile's default, and worktree: false", async () => {
    const base = repo({ "shared.txt": "base\n", "pkg/app/index.txt": "app\n" });
    fs.writeFileSync(path.join(base, "shared.txt"), "uncommitted\n");
    const job = await inWorktree(path.join(base, "pkg/app"), "pwd > where.txt", { branch: "fix/login" });
    expect(job.worktree).toMatchObject({ branch: "fix/login", baseDirty: true, repo: base });
    expect(job.cwd).toBe(path.join(job.worktree.path, "pkg/app"));
    await until("where.txt", () => fs.existsSync(path.join(job.cwd, "where.txt")));
    // The worktree starts from the commit: the base checkout's uncommitted change is not in it.
    expect(fs.readFileSync(path.join(job.worktree.path, "shared.txt"), "utf8")).toBe("base\n");
    expect(branches(base)).toContain("fix/login");

    const byProfile = (await c.ok("dispatch", { profile: "isolated", task: "true", cwd: base })).job;
    expect(byProfile.worktree?.branch).toBe(`roost/${byProfile.id}`);
    const here = (await c.ok("dispatch", { profile: "isolated", task: "true", cwd: base, worktree: false }))
      .job;
    expect(here.worktree).toBeNull();
    expect(here.cwd).toBe(base);
    const profiles = (await c.ok("profiles", {})).profiles;
    expect(profiles.find((p: { name: string }) => p.name === "isolated").worktree).toBe(true);
    expect(profiles.find((p: { name: string }) => p.name === "editor").worktree).toBe(false);
    for (const j of [job, byProfile, here]) await c.ok("rm", { id: j.id, force: true, deleteBranch: true });
  }, 60_000);

  it("spawn: a session's child in a worktree of its own", async () => {
    const base = repo();
    const { job: parent } = await c.ok("dispatch", { profile: "inert", cwd: base });
    const running = await untilRow(c, parent.id, "a pid", (r) => r.pid);
    const token = await until("its token", () => procEnv(running.pid).ROOST_JOB_TOKEN);
    const session = await d.client();
    await session.ok("hello", { protocol: 1, agent: { name: "raw", version: "0" }, capabilities: ["peers"] });
    await session.ok("report", { id: parent.id, token, report: { state: "working" } });
    const { job: child } = await session.ok("spawn", {
      profile: "editor",
      task: commitFile("shared.txt", "child"),
      cwd: base,
      worktree: true,
    });
    expect(child.parent).toBe(parent.id);
    expect(child.worktree).toMatchObject({ branch: `roost/${child.id}`, repo: base });
    await untilStat(child.id, 1);
    expect(fs.readFileSync(path.join(base, "shared.txt"), "utf8")).toBe("base\n");
    session.close();
    for (const j of [child, parent]) await c.ok("rm", { id: j.id, deleteBranch: true });
  }, 60_000);

  it("a schedule's launch with worktree: each run's job gets its own; one outside git is refused when added", async () => {
    const base = repo();
    const { schedule } = await c.ok("schedule-add", {
      when: "every 1h",
      launch: { profile: "editor", task: "true", cwd: base, worktree: true },
    });
    expect(schedule.launch.worktree).toBe(true);
    const { job } = await c.ok("schedule-run", { id: schedule.id });
    expect(job.worktree?.branch).toBe(`roost/${job.id}`);
    expect(job.cwd).toBe(path.join(d.home, "worktrees", job.id));
    const plain = fs.mkdtempSync(path.join(d.home, "plain-"));
    const no = await refused("schedule-add", {
      when: "every 1h",
      launch: { profile: "editor", task: "true", cwd: plain, worktree: true },
    });
    expect(no.code).toBe("bad_request");
    await c.ok("schedule-rm", { id: schedule.id });
    await c.ok("rm", { id: job.id, deleteBranch: true });
  }, 60_000);
});

describe("changes", () => {
  it("a job without a worktree: its repository against HEAD, new files too, the agent's index untouched", async () => {
    const base = repo();
    const { job } = await c.ok("dispatch", {
      profile: "editor",
      task: "printf 'x\\n' >> shared.txt && printf 'new\\n' > added.txt",
      cwd: base,
    });
    expect(job.worktree).toBeNull();
    await until("added.txt", () => fs.existsSync(path.join(base, "added.txt")));
    const ch = await c.ok("changes", { id: job.id });
    expect(ch).toMatchObject({ dir: base, against: head(base), branch: "main", commits: [] });
    expect(ch.files).toEqual([
      { path: "added.txt", added: 1, removed: 0, binary: false },
      { path: "shared.txt", added: 1, removed: 0, binary: false },
    ]);
    expect(ch.diff).toContain("+++ b/added.txt");
    // git's own index still has the new file untracked: roost read it into a copy.
    expect(git(base, "status", "--porcelain")).toBe(" M shared.txt\n?? added.txt\n");
    const stat = await c.ok("changes", { id: job.id, stat: true });
    expect(stat.diff).toBe("");
    expect(stat.files).toEqual(ch.files);
    // A read: over HTTP by GET too, its args as query parameters.
    const res = await fetch(`${d.url}api/changes?id=${job.id}&stat=true`, {
      headers: { authorization: `Bearer ${d.token}` },
    });
    expect(((await res.json()) as any).result).toEqual(stat);

    const plain = fs.mkdtempSync(path.join(d.home, "plain-"));
    const { job: outside } = await c.ok("dispatch", { profile: "editor", task: "true", cwd: plain });
    const no = await refused("changes", { id: outside.id });
    expect(no.code).toBe("bad_request");
    expect(no.error).toContain("not in a git repository");
    expect((await refused("changes", { id: "j999999" })).code).toBe("not_found");
    for (const j of [job, outside]) await c.ok("rm", { id: j.id });
  }, 60_000);

  it("is bounded: a diff past 1 MiB cut at a file's start with a note; a binary file named, not shown", async () => {
    const base = repo();
    // Three files of about 455 KB of text each (two fit in 1 MiB, three do not), and a binary file.
    const big = "for i in 1 2 3; do head -c 450000 /dev/zero | tr '\\0' 'a' | fold -w 99 > big$i.txt; done";
    const job = await inWorktree(
      base,
      `${big} && printf 'a\\000b' > blob.bin && git add -A && git commit -qm big`,
    );
    await untilStat(job.id, 4);
    const ch = await c.ok("changes", { id: job.id });
    expect(ch.files.map((f: { path: string }) => f.path)).toEqual([
      "big1.txt",
      "big2.txt",
      "big3.txt",
      "blob.bin",
    ]);
    expect(ch.files[3]).toEqual({ path: "blob.bin", added: null, removed: null, binary: true });
    expect(ch.added).toBe(3 * Math.ceil(450000 / 99));
    expect(ch.truncated).toBe(true);
    expect(Buffer.byteLength(ch.diff)).toBeLessThanOrEqual(1024 * 1024);
    expect(ch.diff).toContain("diff --git a/big1.txt b/big1.txt");
    expect(ch.diff).toContain("diff --git a/big2.txt b/big2.txt");
    expect(ch.diff).not.toContain("big3.txt");
    expect(ch.diff.endsWith("\n")).toBe(true);
    expect(ch.note).toContain("2 of 4 files shown");
    expect(ch.note).toContain(`git diff ${head(base).slice(0, 12)}`);
    await c.ok("rm", { id: job.id, deleteBranch: true });

    const bin = await inWorktree(base, "printf 'a\\000b' > blob.bin");
    await untilStat(bin.id, 1);
    const binary = await c.ok("changes", { id: bin.id });
    expect(binary.diff).toContain("Binary files /dev/null and b/blob.bin differ");
    await c.ok("rm", { id: bin.id, force: true, deleteBranch: true });
  }, 90_000);
});

describe("merge", () => {
  it("a clean merge when the base moved in other files: a merge commit in the base checkout", async () => {
    const base = repo({ "shared.txt": "base\n", "other.txt": "other\n" });
    const job = await inWorktree(base, commitFile("shared.txt", "mine"));
    await untilStat(job.id, 1);
    fs.writeFileSync(path.join(base, "other.txt"), "moved on\n");
    git(base, "commit", "-q", "-am", "meanwhile");
    const moved = head(base);
    const r = await c.ok("merge", { id: job.id });
    expect(r).toMatchObject({ into: "main", fastForward: false, files: ["shared.txt"] });
    expect(head(base)).toBe(r.commit);
    expect(git(base, "rev-parse", `${r.commit}^1`, `${r.commit}^2`).trim().split("\n")).toEqual([
      moved,
      head(base, `roost/${job.id}`),
    ]);
    expect(fs.readFileSync(path.join(base, "shared.txt"), "utf8")).toBe("mine\n");
    expect(fs.readFileSync(path.join(base, "other.txt"), "utf8")).toBe("moved on\n");
    // Merged already: nothing left to land.
    expect(await c.ok("merge", { id: job.id })).toMatchObject({ into: "main", files: [] });
    await c.ok("rm", { id: job.id });
  }, 60_000);

  it("into a branch checked out nowhere: its ref moves; refusals for uncommitted work, no branch, no worktree", async () => {
    const base = repo();
    git(base, "branch", "release");
    const job = await inWorktree(base, commitFile("shared.txt", "shipped"));
    await untilStat(job.id, 1);
    const r = await c.ok("merge", { id: job.id, into: "release" });
    expect(r).toMatchObject({ into: "release", fastForward: true, files: ["shared.txt"] });
    expect(head(base, "release")).toBe(head(base, `roost/${job.id}`));
    expect(fs.readFileSync(path.join(base, "shared.txt"), "utf8")).toBe("base\n"); // main's checkout as it was

    fs.writeFileSync(path.join(job.worktree.path, "wip.txt"), "wip\n");
    const dirty = await refused("merge", { id: job.id });
    expect(dirty.code).toBe("conflict");
    expect(dirty.error).toContain("wip.txt");
    expect(head(base)).toBe(head(base, "main"));
    fs.rmSync(path.join(job.worktree.path, "wip.txt"));
    expect((await refused("merge", { id: job.id, into: "nosuch" })).code).toBe("not_found");

    const { job: plain } = await c.ok("dispatch", { profile: "editor", task: "true", cwd: base });
    const none = await refused("merge", { id: plain.id });
    expect(none.code).toBe("bad_request");
    expect(none.error).toContain("has no worktree");
    for (const j of [job, plain]) await c.ok("rm", { id: j.id });
  }, 60_000);
});

describe("after a crash", () => {
  it("at start, a worktree no job has is removed when clean, and left (and logged) with uncommitted changes", async () => {
    const base = repo();
    const dir = path.join(d.home, "worktrees");
    fs.mkdirSync(dir, { recursive: true });
    const clean = path.join(dir, "j900");
    const dirty = path.join(dir, "j901");
    git(base, "worktree", "add", "-q", "-b", "left/clean", clean);
    git(base, "worktree", "add", "-q", "-b", "left/dirty", dirty);
    fs.writeFileSync(path.join(dirty, "unsaved.txt"), "mine\n");

    await d.restart();
    c = await d.client();
    await until("the clean one removed", () => !fs.existsSync(clean));
    await until("the log says so", () =>
      d.output.includes(`${dirty}: no job has it, but it has uncommitted changes`),
    );
    expect(fs.readFileSync(path.join(dirty, "unsaved.txt"), "utf8")).toBe("mine\n");
    expect(branches(base)).toEqual(expect.arrayContaining(["left/clean", "left/dirty"]));
    expect(git(base, "worktree", "list", "--porcelain")).not.toContain(clean);
    execFileSync("git", ["-C", base, "worktree", "remove", "--force", dirty]);
  }, 60_000);
});
