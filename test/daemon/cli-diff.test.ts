/**
 * `roost diff`, `roost merge`, `roost dispatch --worktree` and `roost rm --delete-branch` (and its
 * refusal, naming --force) as a user runs them: the diff coloured at a real terminal (a pty), as git wrote it in a pipe (so that
 * `git apply` takes it), against a real daemon and a real git repository.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { atTerminal, json, needsBuild, ok, roost } from "../helpers/cli.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { branches, commitFile, editorProfile, GIT_IDENTITY, git, head, makeRepo } from "../helpers/git.js";

beforeAll(needsBuild);

const ESC = "\u001b";

describe("roost diff", () => {
  let d: TestDaemon;
  let base: string;
  let id: string;
  let worktree: string;
  beforeAll(async () => {
    d = await startDaemon({ env: GIT_IDENTITY, config: { agentProfiles: { editor: editorProfile() } } });
    base = makeRepo({ "shared.txt": "base\n", "keep.txt": "keep\n" });
    // A line with an escape sequence of its own: at a terminal it must not reach the screen as one.
    const snippet = `${commitFile("shared.txt", "one")} && printf 'sneaky \\033[2J here\\n' > keep.txt && git commit -qam sneaky`;
    const started = await ok(["dispatch", "editor", snippet, "--worktree", "--cwd", base], d.env);
    const m = /^started (j\d+) \(editor\) in (\S+) on branch roost\/(j\d+)$/m.exec(started);
    if (!m) throw new Error(`roost dispatch said: ${started}`);
    id = m[1]!;
    worktree = m[2]!;
    expect(m[3]).toBe(id);
    await until(
      "its stat",
      async () => (await json(["ls", id], d.env)).rows[0].worktree?.stat?.files === 2,
      30_000,
    );
  }, 60_000);
  afterAll(async () => {
    await d?.cleanup();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  it("in a pipe: git's diff as git wrote it, no colour, which git apply takes", async () => {
    const out = await ok(["diff", id], d.env);
    const baseCommit = head(base);
    expect(out).toBe(git(worktree, "diff", "--no-color", baseCommit, "HEAD"));
    expect(out).not.toContain(`${ESC}[3`); // no colour; the file's own escape is there as it is
    expect(out).toContain(`+sneaky ${ESC}[2J here`);
    // The diff applies: the base checkout gets what the job did.
    const patch = path.join(d.home, "j.patch");
    fs.writeFileSync(patch, out);
    git(base, "apply", "--check", patch);
  });

  it("at a terminal: coloured as git colours it, the files' own control characters shown, not obeyed", async () => {
    const seen = await atTerminal(["diff", id], d.env);
    expect(seen).toContain(`${ESC}[1mdiff --git a/shared.txt b/shared.txt${ESC}[22m`);
    expect(seen).toContain(`${ESC}[36m@@ -1 +1 @@${ESC}[39m`);
    expect(seen).toContain(`${ESC}[31m-base${ESC}[39m`);
    expect(seen).toContain(`${ESC}[32m+one${ESC}[39m`);
    expect(seen).toContain(`${ESC}[32m+sneaky \ufffd[2J here${ESC}[39m`);
    expect(seen).not.toContain(`${ESC}[2J`);
    // NO_COLOR at a terminal: plain.
    const plain = await atTerminal(["diff", id], { ...d.env, NO_COLOR: "1" });
    expect(plain).not.toContain(`${ESC}[3`);
    expect(plain).toContain("+one");
  });

  it("--stat lists the files and the totals; --json is the op's answer", async () => {
    const short = head(base).slice(0, 12);
    expect(await ok(["diff", id, "--stat"], d.env)).toBe(
      ` keep.txt   | +1 -1\n shared.txt | +1 -1\n2 files changed, +2 -2, 2 commits against ${short} (roost/${id})\n`,
    );
    const coloured = await atTerminal(["diff", id, "--stat"], d.env);
    expect(coloured).toContain(`${ESC}[32m+1${ESC}[39m ${ESC}[31m-1${ESC}[39m`);
    const r = await json(["diff", id], d.env);
    expect(r).toMatchObject({
      id,
      dir: worktree,
      branch: `roost/${id}`,
      added: 2,
      removed: 2,
      truncated: false,
    });
    expect(r.commits.map((c: { subject: string }) => c.subject)).toEqual(["sneaky", "one"]);
  });

  it("an unknown job: a clear error, exit 1", async () => {
    const r = await roost(["diff", "j999"], d.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no job "j999"');
  });

  it("roost merge lands it; roost rm --delete-branch takes the worktree and the branch", async () => {
    expect(await ok(["merge", id], d.env)).toMatch(
      new RegExp(`^merged ${id} into main \\(fast-forward [0-9a-f]{12}; 2 files\\)\\n$`),
    );
    expect(fs.readFileSync(path.join(base, "shared.txt"), "utf8")).toBe("one\n");
    expect(await ok(["merge", id], d.env)).toBe(`${id}: nothing to merge (main has it all)\n`);
    // Uncommitted work in it: refused, the error naming the option a person types.
    fs.writeFileSync(path.join(worktree, "unsaved.txt"), "work\n");
    const refused = await roost(["rm", id], d.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("unsaved.txt");
    expect(refused.stderr).toContain(`commit them, or \`roost rm ${id} --force\` to lose them`);
    expect(JSON.parse((await roost(["rm", id, "--json"], d.env)).stderr).code).toBe("conflict");
    expect(await ok(["rm", id, "--delete-branch", "--force"], d.env)).toBe(`removed ${id}\n`);
    expect(fs.existsSync(worktree)).toBe(false);
    expect(branches(base)).toEqual(["main"]);
  });
});
