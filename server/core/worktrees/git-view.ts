/**
 * A job's tree as git sees it, read through a git directory of roost's own, made for the look in a
 * temporary directory (docs/worktrees.md, "What roost trusts"). The repository's git directory is
 * named, never found from the tree (a `.git` there is the job's to write), and only asked for its
 * HEAD, its paths and a few settings; everything else (status, add, diff, log) runs on roost's:
 *
 * - its config is roost's: no hook, fsmonitor, filter, textconv, driver or remote of the
 *   repository's (a job's own checkout's `.git/config` is the job's to write) is read at all;
 * - its `info/attributes`, which wins over every `.gitattributes` in the tree, unsets `filter`;
 * - its objects are its own, the repository's borrowed read-only (an alternate): what `git add`
 *   hashes of the tree's files is written there and goes with it. Looking never writes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { configEnv, git, gitOk, NO_NETWORK } from "./git.js";

/** A tree and the git directory that is its (a worktree's in `.git/worktrees/`, or a checkout's `.git`). */
export interface GitTree {
  gitDir: string;
  workTree: string;
}

/** Where git runs to look at a tree: its top, with the environment that points git at roost's copy. */
export interface GitView {
  dir: string;
  env: Record<string, string>;
  /** The tree's HEAD commit, null before its first. */
  head: string | null;
  /** Its branch (`main`), null on a detached HEAD. */
  branch: string | null;
  /** The repository's git directory (its objects are the view's, read-only). */
  commonDir: string;
}

/**
 * The settings of the repository's that change what git sees in the tree (how it compares files,
 * its object format), and nothing that names a command: copied to roost's config.
 */
const KEPT =
  /^(core\.(ignorecase|filemode|symlinks|autocrlf|eol|safecrlf|precomposeunicode|checkstat|trustctime)|extensions\.objectformat|core\.repositoryformatversion)$/;

/**
 * `fn` with a view of `tree`; what the view made is gone after, whatever `fn` did. `objects`: where
 * what git hashes goes instead, kept after (roost's own, for a look whose objects outlive it:
 * overlaps.ts compares the snapshots of several trees).
 */
export async function withView<T>(
  tree: GitTree,
  fn: (view: GitView) => Promise<T>,
  objects?: string,
): Promise<T> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "roost-view-"));
  try {
    return await fn(await makeView(tree, tmp, objects));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** git in the repository's own git directory, named (never found from the tree), nothing it may run. */
const inRepository = (tree: GitTree, args: string[]) =>
  git(tree.workTree, [`--git-dir=${tree.gitDir}`, ...args], { env: configEnv(NO_NETWORK) });

async function makeView(tree: GitTree, tmp: string, objects = path.join(tmp, "objects")): Promise<GitView> {
  // Asked together: each is a git of its own, and the look waits on the slowest alone.
  const [where, headAt, symbolic, settings] = await Promise.all([
    inRepository(tree, [
      "rev-parse",
      "--path-format=absolute",
      "--git-common-dir",
      "--git-path",
      "index",
      "--git-path",
      "info/exclude",
    ]),
    inRepository(tree, ["rev-parse", "-q", "--verify", "HEAD"]),
    inRepository(tree, ["symbolic-ref", "-q", "--short", "HEAD"]),
    inRepository(tree, ["config", "-z", "--get-regexp", "."]),
  ]);
  if (where.code !== 0) throw new Error(`git rev-parse failed: ${where.stderr}`);
  const [common = "", index = "", exclude = ""] = where.stdout.split("\n");
  const head = headAt.code === 0 ? headAt.stdout.trim() : null;
  const gitDir = path.join(tmp, "git");
  fs.mkdirSync(path.join(gitDir, "refs"), { recursive: true });
  fs.mkdirSync(path.join(gitDir, "info"));
  fs.mkdirSync(objects, { recursive: true, mode: 0o700 });
  // A detached HEAD at the tree's commit (an unborn branch before the first).
  fs.writeFileSync(path.join(gitDir, "HEAD"), head ? `${head}\n` : "ref: refs/heads/unborn\n");
  fs.writeFileSync(path.join(gitDir, "config"), configOf(settings.stdout));
  fs.writeFileSync(path.join(gitDir, "info", "attributes"), "* -filter\n");
  copyIfFile(exclude, path.join(gitDir, "info", "exclude"));
  const env = {
    ...configEnv(NO_NETWORK),
    GIT_DIR: gitDir,
    GIT_WORK_TREE: tree.workTree,
    GIT_INDEX_FILE: path.join(tmp, "index"),
    GIT_OBJECT_DIRECTORY: objects,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(common, "objects"),
  };
  await seedIndex(index, env, head !== null);
  const branch = symbolic.code === 0 ? symbolic.stdout.trim() : null;
  return { dir: tree.workTree, env, head, branch, commonDir: common };
}

/** `git config -z` (`KEY\nVALUE\0`...): the kept settings, as a config file of their own. */
function configOf(listed: string): string {
  const lines = ["[core]", "\tbare = false"];
  const sections = new Map<string, string[]>();
  for (const entry of listed.split("\0")) {
    const nl = entry.indexOf("\n");
    const key = nl < 0 ? entry : entry.slice(0, nl);
    if (!KEPT.test(key)) continue;
    const value = nl < 0 ? "true" : entry.slice(nl + 1);
    const dot = key.indexOf(".");
    const section = key.slice(0, dot);
    const list = sections.get(section) ?? [];
    list.push(
      `\t${key.slice(dot + 1)} = "${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, "\\n")}"`,
    );
    sections.set(section, list);
  }
  lines.push(...(sections.get("core") ?? []));
  for (const [section, list] of sections) if (section !== "core") lines.push(`[${section}]`, ...list);
  return `${lines.join("\n")}\n`;
}

/**
 * `from` copied, if it is a file: never a FIFO or a device, which the tree's owner could put in
 * its git directory to hold the daemon (the copy is synchronous) or feed it without end.
 */
function copyIfFile(from: string, to: string): boolean {
  try {
    if (!fs.lstatSync(from).isFile()) return false;
    fs.copyFileSync(from, to);
    return true;
  } catch {
    return false;
  }
}

/**
 * roost's index starts as a copy of the tree's own (so git hashes only what changed since the
 * agent's last `git add`; a split index's shared part beside it), or from HEAD when it has none.
 */
async function seedIndex(own: string, env: Record<string, string>, hasHead: boolean): Promise<void> {
  if (copyIfFile(own, env.GIT_INDEX_FILE!)) {
    const dir = path.dirname(own);
    for (const f of fs.readdirSync(dir))
      if (f.startsWith("sharedindex.")) copyIfFile(path.join(dir, f), path.join(env.GIT_DIR!, f));
    return;
  }
  if (hasHead) await gitOk(env.GIT_WORK_TREE!, ["read-tree", "HEAD"], { env });
}
