/**
 * What a job writes in its own tree never runs in the daemon's git (docs/worktrees.md, "What roost
 * trusts"), against a real daemon and real git: a worktree whose `.git` the job replaced with one
 * of its own (`core.fsmonitor` set to a command, its objects borrowed from the real repository),
 * through the row's stat, `changes`, `roost diff`, `merge` and `rm`; a job's own checkout, without a
 * worktree, whose `.git/config` and `.gitattributes` name commands; looking (`changes`) writing
 * nothing into the repository; `roost diff --stat` on file names that drive a terminal.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { atTerminal, needsBuild, roost } from "../helpers/cli.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { editorProfile, GIT_IDENTITY, git, makeRepo } from "../helpers/git.js";
import { api } from "../helpers/http.js";
import { rawAgent, row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

beforeAll(needsBuild);

let d: TestDaemon;
let c: RawClient;
const temps: string[] = [];

beforeAll(async () => {
  d = await startDaemon({ env: GIT_IDENTITY, config: { agentProfiles: { editor: editorProfile() } } });
  c = await d.client();
}, 30_000);
afterAll(async () => {
  await d?.cleanup();
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

function repo(files?: Record<string, string>): string {
  const dir = makeRepo(files);
  temps.push(dir);
  return dir;
}

async function refused(op: string, args: unknown): Promise<{ code: string; error: string }> {
  const r = await c.request(op, args);
  if (r.ok) throw new Error(`${op} was not refused: ${JSON.stringify(r.result)}`);
  return { code: r.code ?? "", error: r.error ?? "" };
}

/** Loose objects in a repository's object store: what `git add` or `hash-object -w` leaves there. */
function looseObjects(gitDir: string): string[] {
  const objects = path.join(gitDir, "objects");
  return fs
    .readdirSync(objects)
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .flatMap((d) => fs.readdirSync(path.join(objects, d)).map((f) => d + f));
}

/**
 * What a job makes of its worktree's `.git`: a git directory of its own whose config runs `marker`
 * (its HEAD the worktree's commit, its objects the real repository's).
 */
const replaceGit = (marker: string) =>
  [
    "mkdir -p evilgit/objects/info evilgit/refs",
    "git rev-parse HEAD > evilgit/HEAD",
    'echo "$(git rev-parse --path-format=absolute --git-common-dir)/objects" > evilgit/objects/info/alternates',
    `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch ${marker}; true"\\n' > evilgit/config`,
    "printf 'gitdir: ./evilgit\\n' > .git",
  ].join(" && ");

describe("a worktree whose .git the job replaced, its config running a command", () => {
  let base: string;
  let marker: string;
  let id: string;
  let worktree: string;
  const gone = () => expect(fs.existsSync(marker), `${marker} was made: the job's config ran`).toBe(false);

  beforeAll(async () => {
    base = repo({ "shared.txt": "base\n" });
    marker = path.join(base, "..", `${path.basename(base)}-ran`);
    temps.push(marker);
    // The job commits, then makes a git directory of its own (its HEAD the branch's commit, its
    // objects the real repository's) and points its worktree's .git at it.
    const evil = `printf 'one\\n' > shared.txt && git add -A && git commit -q -m one && ${replaceGit(marker)}`;
    const { job } = await c.ok("dispatch", { profile: "editor", task: evil, cwd: base, worktree: true });
    id = job.id;
    worktree = job.worktree.path;
  }, 30_000);

  it("the row's stat, taken as the job comes to rest, does not run it; the row says why it has none", async () => {
    const r = await untilRow(c, id, "at rest", (x) => x.status === "idle", 30_000);
    // The stat is taken in the background as it comes to rest: give it the time it takes.
    await untilRow(
      c,
      id,
      "its worktree refused",
      (x) => typeof x.worktree?.refused === "string",
      10_000,
    ).catch(() => null);
    gone();
    const now = await row(c, id);
    expect(fs.readFileSync(path.join(worktree, ".git"), "utf8")).toBe("gitdir: ./evilgit\n");
    expect(now.worktree.refused).toContain(".git");
    expect(now.worktree.stat).toBeNull();
    expect(r.worktree.path).toBe(worktree);
  }, 60_000);

  it("changes refuses it, saying why, and does not run it", async () => {
    fs.rmSync(marker, { force: true });
    const no = await refused("changes", { id });
    gone();
    expect(no.code).toBe("conflict");
    expect(no.error).toContain(".git");
    expect(no.error).toContain("force");
  }, 30_000);

  it("roost diff refuses it (exit 1) and does not run it", async () => {
    fs.rmSync(marker, { force: true });
    for (const args of [
      ["diff", id],
      ["diff", id, "--stat"],
    ]) {
      const r = await roost(args, d.env);
      gone();
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(".git");
    }
  }, 30_000);

  it("merge refuses it and does not run it; the base branch is as it was", async () => {
    fs.rmSync(marker, { force: true });
    const before = git(base, "rev-parse", "main");
    const no = await refused("merge", { id });
    gone();
    expect(no.code).toBe("conflict");
    expect(no.error).toContain(".git");
    expect(git(base, "rev-parse", "main")).toBe(before);
  }, 30_000);

  it("rm refuses it without force and does not run it; rm --force removes it, git forgets it, and runs nothing", async () => {
    fs.rmSync(marker, { force: true });
    const no = await refused("rm", { id });
    gone();
    expect(no.code).toBe("conflict");
    expect(no.error).toContain("force");
    expect(fs.existsSync(worktree)).toBe(true);

    const r = await roost(["rm", id, "--force"], d.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    gone();
    expect(fs.existsSync(worktree)).toBe(false);
    expect(git(base, "worktree", "list", "--porcelain")).not.toContain(worktree);
    // The branch and its commit are kept, as for any rm.
    expect(git(base, "log", "-1", "--format=%s", `roost/${id}`).trim()).toBe("one");
  }, 60_000);
});

describe("merge into a branch checked out in another job's worktree", () => {
  it("is refused, running nothing of that worktree's .git; the branch is as it was", async () => {
    const base = repo({ "shared.txt": "base\n" });
    git(base, "branch", "side");
    const marker = `${base}-ran`;
    temps.push(marker);
    // One job takes `side` in its worktree and replaces its .git; another commits on its own branch.
    const holder = (
      await c.ok("dispatch", {
        profile: "editor",
        task: `git checkout -q side && ${replaceGit(marker)}`,
        cwd: base,
        worktree: true,
      })
    ).job;
    const worker = (
      await c.ok("dispatch", {
        profile: "editor",
        task: "printf 'two\\n' > shared.txt && git commit -q -am two",
        cwd: base,
        worktree: true,
      })
    ).job;
    for (const j of [holder, worker]) await untilRow(c, j.id, "at rest", (x) => x.status === "idle", 30_000);
    fs.rmSync(marker, { force: true });
    const side = git(base, "rev-parse", "side");

    const no = await refused("merge", { id: worker.id, into: "side" });
    expect(fs.existsSync(marker), "the other job's config ran").toBe(false);
    expect(no.code).toBe("conflict");
    expect(no.error).toContain(holder.worktree.path);
    expect(git(base, "rev-parse", "side")).toBe(side);
    await c.ok("rm", { id: worker.id, force: true });
    await c.ok("rm", { id: holder.id, force: true });
  }, 60_000);
});

describe("at start, a directory in worktrees/ that no job has, its .git the job's", () => {
  it("is left as it is, logged, and nothing of its .git runs", async () => {
    const base = repo();
    const marker = `${base}-ran`;
    temps.push(marker);
    const left = path.join(d.home, "worktrees", "j990");
    fs.mkdirSync(path.dirname(left), { recursive: true });
    git(base, "worktree", "add", "-q", "-b", "left/evil", left);
    execFileSync("sh", ["-c", replaceGit(marker)], { cwd: left, env: { ...process.env, ...GIT_IDENTITY } });
    fs.rmSync(marker, { force: true });

    await d.restart();
    c = await d.client();
    await until("the sweep's word on it", () => d.output.includes(`${left}: `));
    expect(fs.existsSync(marker), "its config ran").toBe(false);
    expect(d.output).toContain(`${left}: not a git worktree roost can check; left as it is`);
    expect(fs.existsSync(path.join(left, "evilgit", "config"))).toBe(true);
  }, 60_000);
});

describe("a job's own checkout, without a worktree, whose git config names commands", () => {
  it("changes runs none of them: fsmonitor, an external diff, a textconv, a filter, a nested repository's fsmonitor", async () => {
    const checkout = repo({ "shared.txt": "base\n", "notes.txt": "notes\n" });
    const ran = (what: string) => path.join(checkout, "..", `${path.basename(checkout)}-${what}`);
    const markers = ["fsmonitor", "external", "textconv", "clean", "process", "nested"].map(ran);
    temps.push(...markers);
    // What the job writes: its checkout's config, attributes that pick its drivers, and a
    // repository of its own inside, added as a submodule would be, with a config of its own.
    const hostile = [
      "git init -q sub && printf 'x\\n' > sub/x && git -C sub add x && git -C sub commit -q -m x",
      "git add sub",
      "printf 'y\\n' > sub/x",
      "printf 'changed\\n' > shared.txt",
      "printf 'fresh\\n' > fresh.txt",
      "printf '* diff=evil filter=evil\\nfresh.txt filter=proc\\n' > .gitattributes",
      `git -C sub config core.fsmonitor "touch ${ran("nested")}; true"`,
      `git config core.fsmonitor "touch ${ran("fsmonitor")}; true"`,
      `git config diff.external "touch ${ran("external")}; true"`,
      `git config diff.evil.textconv "touch ${ran("textconv")}; cat"`,
      `git config filter.evil.clean "touch ${ran("clean")}; cat"`,
      `git config filter.proc.process "touch ${ran("process")}"`,
    ].join(" && ");
    const { job } = await c.ok("dispatch", { profile: "editor", task: hostile, cwd: checkout });
    await untilRow(c, job.id, "at rest", (x) => x.status === "idle", 30_000);
    for (const m of markers) fs.rmSync(m, { force: true }); // the job's own git may have run them

    const ranNow = () => markers.filter((m) => fs.existsSync(m)).map((m) => path.basename(m));
    const full = await c.request("changes", { id: job.id });
    expect(ranNow()).toEqual([]);
    expect(full.error).toBeUndefined();
    const ch = full.result;
    // The diff is still there, as git makes it without them.
    expect(ch.files.map((f: { path: string }) => f.path)).toEqual(
      expect.arrayContaining([".gitattributes", "fresh.txt", "shared.txt", "sub"]),
    );
    expect(ch.diff).toContain("-base\n+changed\n");
    const stat = await c.request("changes", { id: job.id, stat: true });
    expect(ranNow()).toEqual([]);
    expect(stat.result.added).toBe(ch.added);
    await c.ok("rm", { id: job.id });
  }, 60_000);
});

describe("a session's spawn with a worktree of a repository it made, its config naming a smudge filter", () => {
  it("checks the worktree out with no filter of that repository's run; its files and index are as committed", async () => {
    // A repository the session made itself (in its tree, as a sandboxed one could), committed
    // plainly, then given a filter that would run as the user, outside any sandbox, at checkout.
    const own = repo({ "a.txt": "one\n", "b.txt": "two\n" });
    const marker = `${own}-smudged`;
    temps.push(marker);
    execFileSync(
      "sh",
      [
        "-c",
        `printf '* filter=evil\n' > .git/info/attributes && git config filter.evil.smudge "touch ${marker}; cat" && git config filter.evil.process "touch ${marker}"`,
      ],
      { cwd: own },
    );
    const parent = (await c.ok("dispatch", { profile: "editor", task: "true", cwd: own })).job;
    const { agent } = await rawAgent(d, c, parent.id);
    const { job } = await agent.ok("spawn", { profile: "editor", task: "true", cwd: own, worktree: true });
    expect(fs.existsSync(marker), "the repository's smudge filter ran at the checkout").toBe(false);
    expect(fs.readFileSync(path.join(job.worktree.path, "a.txt"), "utf8")).toBe("one\n");
    expect(fs.readFileSync(path.join(job.worktree.path, "b.txt"), "utf8")).toBe("two\n");
    // The worktree's own index is the commit's, its stat fresh: nothing shows as changed, to git or to roost.
    expect(
      git(
        job.worktree.path,
        "-c",
        "filter.evil.smudge=",
        "-c",
        "filter.evil.process=",
        "status",
        "--porcelain",
      ),
    ).toBe("");
    expect((await c.ok("changes", { id: job.id })).files).toEqual([]);
    expect(fs.existsSync(marker)).toBe(false);
    await c.ok("rm", { id: job.id, force: true });
    await c.ok("rm", { id: parent.id });
  }, 60_000);

  it("a worktree the user dispatched keeps the user's own filters (the user's repository is the user's)", async () => {
    const own = repo({ "a.txt": "one\n" });
    execFileSync(
      "sh",
      [
        "-c",
        "printf '* filter=upper\n' > .git/info/attributes && git config filter.upper.smudge 'tr a-z A-Z'",
      ],
      { cwd: own },
    );
    const { job } = await c.ok("dispatch", { profile: "editor", task: "true", cwd: own, worktree: true });
    expect(fs.readFileSync(path.join(job.worktree.path, "a.txt"), "utf8")).toBe("ONE\n");
    await c.ok("rm", { id: job.id, force: true });
  }, 60_000);
});

describe("looking never writes", () => {
  it("changes by a read-only token over HTTP writes no object into the repository, with or without a worktree", async () => {
    const made = await c.ok("token", { action: "create", name: "viewer", readOnly: true });
    const viewer = new URL(made.link).searchParams.get("token")!;

    // Without a worktree: its checkout's untracked file, hashed for the diff, is not kept.
    const checkout = repo();
    const plain = (
      await c.ok("dispatch", { profile: "editor", task: "printf 'fresh one\\n' > new.txt", cwd: checkout })
    ).job;
    await untilRow(c, plain.id, "at rest", (x) => x.status === "idle", 30_000);
    const before = looseObjects(path.join(checkout, ".git"));
    const r = await api(d, "changes", { id: plain.id }, { token: viewer, method: "GET" });
    expect(r.status).toBe(200);
    expect(r.body.result.files).toEqual([{ path: "new.txt", added: 1, removed: 0, binary: false }]);
    expect(looseObjects(path.join(checkout, ".git"))).toEqual(before);
    await c.ok("rm", { id: plain.id });

    // With one: neither its stat (at rest) nor changes keeps the untracked file's object.
    const base = repo();
    const start = looseObjects(path.join(base, ".git"));
    const wt = (
      await c.ok("dispatch", {
        profile: "editor",
        task: "printf 'fresh two\\n' > new.txt",
        cwd: base,
        worktree: true,
      })
    ).job;
    await untilRow(c, wt.id, "its stat", (x) => x.worktree?.stat?.files === 1, 30_000);
    const w = await api(d, "changes", { id: wt.id }, { token: viewer, method: "GET" });
    expect(w.body.result.diff).toContain("+fresh two");
    expect(looseObjects(path.join(base, ".git"))).toEqual(start);
    await c.ok("rm", { id: wt.id, force: true });
  }, 90_000);
});

describe("roost diff --stat on file names that drive a terminal", () => {
  it("prints no raw ESC, BEL or bidi override: a clipboard write, a title, a clear screen, a reversed name", async () => {
    const base = repo();
    const names = ["\\033]52;c;SGVsbG8=\\007", "\\033]0;pwned\\007", "\\033[2J", "evil\\342\\200\\256txt.sh"];
    const task = names.map((n) => `printf 'x\\n' > "$(printf '${n}')"`).join(" && ");
    const { job } = await c.ok("dispatch", { profile: "editor", task, cwd: base, worktree: true });
    await untilRow(c, job.id, "its stat", (x) => x.worktree?.stat?.files === 4, 30_000);

    const piped = await roost(["diff", job.id, "--stat"], d.env);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain("4 files changed");
    for (const raw of ["\u001b", "\u0007", "\u202e"]) expect(piped.stdout).not.toContain(raw);
    expect(piped.stdout).toContain("\ufffd]0;pwned\ufffd");

    const seen = await atTerminal(["diff", job.id, "--stat"], d.env);
    expect(seen).toContain("4 files changed");
    expect(seen).not.toContain("\u001b]");
    expect(seen).not.toContain("\u001b[2J");
    expect(seen).not.toContain("\u202e");
    await c.ok("rm", { id: job.id, force: true });
  }, 60_000);
});
