/**
 * Real git repositories for the worktree tests: made in temp directories, read with git itself.
 * And the profile of a job that does to its worktree what its task says (a shell snippet), then
 * says so on its screen and waits: a terminal agent whose row comes to rest ("your turn").
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Who commits, in the tests' repositories, the jobs and the daemon (their HOME has no git config). */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "Roost Test",
  GIT_AUTHOR_EMAIL: "test@roost.invalid",
  GIT_COMMITTER_NAME: "Roost Test",
  GIT_COMMITTER_EMAIL: "test@roost.invalid",
};

/** `git ARGS...` in `dir`: its stdout. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...GIT_IDENTITY, LC_ALL: "C" },
  });
}

/** A new repository on `main` with `files` in its first commit, in a temp directory under `base`. */
export function makeRepo(
  files: Record<string, string> = { "shared.txt": "base\n" },
  base = os.tmpdir(),
): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, "roost-repo-")));
  git(dir, "init", "-q", "-b", "main");
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "base");
  return dir;
}

export const head = (dir: string, ref = "HEAD") => git(dir, "rev-parse", ref).trim();
export const branches = (dir: string) =>
  git(dir, "branch", "--format=%(refname:short)").split("\n").filter(Boolean).sort();

/**
 * A terminal job that runs its task (`argv`) as a shell snippet in its directory, then prints
 * "finished" and a prompt, and waits: its row says "your turn" once its screen is quiet (at a
 * prompt: a program quiet without one is at work, docs/terminals.md).
 */
export const editorProfile = (extra: Record<string, unknown> = {}) => ({
  // At its prompt after the task, and again after each line typed to it (a reply), as an agent CLI is.
  command: [
    "sh",
    "-c",
    'sh -c "$1"; echo finished; printf "editor> "; while read -r line; do printf "editor> "; done',
    "editor",
  ],
  task: "argv",
  quietMs: 300,
  ...extra,
});

/** A snippet for `editorProfile`: write `text` to `file`, and commit it with the message `text`. */
export const commitFile = (file: string, text: string) =>
  `printf '%s\\n' '${text}' > ${file} && git add -A && git commit -q -m '${text}'`;

/**
 * A module of two functions far apart (overlaps' tests): two jobs that change `login` conflict;
 * one that changes `login` and one `logout` overlap, and merge cleanly.
 */
export const AUTH_MODULE = [
  "export function login(user) {",
  "  return check(user);",
  "}",
  ...Array.from({ length: 12 }, (_, i) => `// line ${i}`),
  "export function logout(user) {",
  "  return clear(user);",
  "}",
  "",
].join("\n");
