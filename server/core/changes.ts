/**
 * `changes` (docs/worktrees.md): what a job changed, as git says it. A job with a worktree: its
 * branch's commits and its uncommitted work against the commit it started from; one without:
 * its working directory's repository against HEAD. Untracked files are in it (git's own
 * `.gitignore` rules apply), without touching the agent's index: git reads them into a copy.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type ChangedFile, type Changes, LIMITS, RoostError } from "../../sdk/ts/protocol/index.js";
import type { Core } from "./core.js";
import { git, gitOk } from "./git.js";
import type { LiveJob } from "./registry.js";

/** What a diff is taken in and against. */
interface Scope {
  dir: string;
  against: string;
  branch: string | null;
}

export async function changes(core: Core, id: string, statOnly: boolean): Promise<Changes> {
  const job = core.registry.get(id);
  const scope = await scopeOf(job);
  const taken = await diffOf(scope.dir, scope.against, statOnly);
  const result: Changes = { id, ...scope, ...taken };
  const wt = job.rec.worktree;
  if (wt) core.worktrees.keepStat(job, result);
  return result;
}

async function scopeOf(job: LiveJob): Promise<Scope> {
  const id = job.rec.id;
  const wt = job.rec.worktree;
  if (wt) {
    if (!fs.existsSync(wt.path))
      throw new RoostError("not_found", `${id}'s worktree ${wt.path} is gone: there is nothing to diff`);
    return { dir: wt.path, against: wt.baseCommit, branch: wt.branch };
  }
  const cwd = job.rec.launch.cwd;
  const top = await git(cwd, ["rev-parse", "--show-toplevel"]);
  if (top.code !== 0)
    throw new RoostError(
      "bad_request",
      `${id} runs in ${cwd}, which is not in a git repository: there is no diff to show (dispatch with worktree to have one)`,
    );
  const dir = top.stdout.trim();
  const head = await git(dir, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  // A repository with no commit yet: everything in it is new, against git's empty tree.
  const against = head.code === 0 ? head.stdout.trim() : (await emptyTree(dir)).trim();
  const symbolic = await git(dir, ["symbolic-ref", "--short", "-q", "HEAD"]);
  return { dir, against, branch: symbolic.code === 0 ? symbolic.stdout.trim() : null };
}

const emptyTree = (dir: string) => gitOk(dir, ["hash-object", "-t", "tree", "--stdin"]);

/** The diff of `dir`'s working tree (untracked files too) against `against`, bounded. */
export async function diffOf(
  dir: string,
  against: string,
  statOnly: boolean,
): Promise<Omit<Changes, "id" | "dir" | "against" | "branch">> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "roost-diff-"));
  try {
    const env = { GIT_INDEX_FILE: path.join(tmp, "index") };
    await seedIndex(dir, env.GIT_INDEX_FILE);
    await gitOk(dir, ["add", "--all", "--", "."], { env });
    const numstat = await gitOk(dir, ["diff", "--cached", "--numstat", "-z", "-M", against, "--"], { env });
    const all = parseNumstat(numstat);
    const files = all.slice(0, LIMITS.diffFiles);
    const notes: string[] = [];
    if (all.length > files.length)
      notes.push(`${all.length} files changed; the first ${files.length} are listed`);
    let diff = "";
    if (!statOnly) {
      const r = await git(dir, ["diff", "--cached", "-M", "--no-ext-diff", against, "--"], {
        env,
        maxBytes: LIMITS.diffBytes,
      });
      diff = r.cut ? cutAtFile(r.stdout) : r.stdout;
      if (r.cut) {
        const shown = diff.split("\ndiff --git ").length - (diff.startsWith("diff --git ") ? 0 : 1);
        notes.push(
          `the diff is cut at ${LIMITS.diffBytes / 1024 / 1024} MiB (${shown} of ${all.length} files shown): \`git diff ${against.slice(0, 12)}\` in ${dir} shows it all`,
        );
      }
    }
    const commits = await branchCommits(dir, against);
    return {
      commits,
      files,
      added: all.reduce((n, f) => n + (f.added ?? 0), 0),
      removed: all.reduce((n, f) => n + (f.removed ?? 0), 0),
      diff,
      truncated: notes.length > 0,
      note: notes.length > 0 ? `${notes.join("; ")}.` : null,
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The temporary index starts as a copy of the worktree's own (so git hashes only what changed
 * since the agent's last `git add`), or from HEAD when it has none.
 */
async function seedIndex(dir: string, index: string): Promise<void> {
  const own = (await gitOk(dir, ["rev-parse", "--path-format=absolute", "--git-path", "index"])).trim();
  try {
    fs.copyFileSync(own, index);
    return;
  } catch {}
  const head = await git(dir, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  if (head.code === 0) await gitOk(dir, ["read-tree", "HEAD"], { env: { GIT_INDEX_FILE: index } });
}

/** Cut where a file's diff starts, so that no file is shown in part; a first file alone is cut as it is. */
function cutAtFile(text: string): string {
  const at = text.lastIndexOf("\ndiff --git ");
  return at > 0 ? text.slice(0, at + 1) : text;
}

/** `git diff --numstat -z`: `A\tR\tPATH\0`, or for a rename `A\tR\t\0FROM\0TO\0`; `-\t-` for binary. */
export function parseNumstat(out: string): ChangedFile[] {
  const parts = out.split("\0");
  const files: ChangedFile[] = [];
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry === "") continue;
    const [a = "", r = "", p = ""] = entry.split("\t");
    const binary = a === "-" && r === "-";
    const counts = { added: binary ? null : Number(a), removed: binary ? null : Number(r), binary };
    if (p !== "") files.push({ path: p, ...counts });
    else {
      const from = parts[++i] ?? "";
      const to = parts[++i] ?? "";
      files.push({ path: to, from, ...counts });
    }
  }
  return files;
}

/** The commits on the branch since `against`, newest first (at most 100). */
async function branchCommits(dir: string, against: string): Promise<Changes["commits"]> {
  const r = await git(dir, ["log", "--format=%H%x09%s", "-n", "100", `${against}..HEAD`]);
  if (r.code !== 0) return []; // no HEAD yet
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf("\t");
      return { sha: line.slice(0, tab), subject: line.slice(tab + 1) };
    });
}
