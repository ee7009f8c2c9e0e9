/**
 * The merge queue across a daemon killed mid-queue (docs/worktrees.md, "The merge queue"): the
 * daemon as its own process, killed -9 while a check runs; restarted, the queue goes on and each
 * branch is landed exactly once. And an entry about to land waits on uncommitted changes where its
 * target is checked out, landing once they are gone.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDaemon, until } from "../helpers/daemon.js";
import { git, head, makeRepo } from "../helpers/git.js";
import { committedJob, startQueueDaemon } from "../helpers/queue.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let c: RawClient;
const dirs: string[] = [];

beforeAll(async () => {
  d = await startQueueDaemon();
  c = await d.client();
}, 30_000);
afterAll(async () => {
  await d?.cleanup();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
}

const jobWith = (base: string, file: string) => committedJob(c, base, { [file]: `${file}\n` }, file);

const entry = async (n: number) => (await c.ok("queue", {})).entries.find((e: any) => e.n === n);

function commitOnMain(base: string, file: string): void {
  fs.writeFileSync(path.join(base, file), "main\n");
  git(base, "add", "-A");
  git(base, "commit", "-q", "-m", `main: ${file}`);
}

describe("a daemon killed -9 mid-queue", () => {
  it("resumes once restarted; each branch is landed once, nothing twice", async () => {
    const base = repo();
    const j1 = await jobWith(base, "one.txt");
    const j2 = await jobWith(base, "two.txt");
    commitOnMain(base, "moved.txt"); // each landing is then a merge commit
    const marks = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "roost-marks-")), "checks");
    dirs.push(path.dirname(marks));
    const check = `echo "$(basename "$PWD")" >> ${marks}; sleep 2; echo checked`;
    const { entries } = await c.ok("queue-add", { ids: [j1.id, j2.id], check });
    const [n1, n2] = entries.map((e: any) => e.n);
    await until("the first checking", async () => (await entry(n1))?.state === "checking");
    await until("its check started", () => fs.existsSync(marks)); // and sleeping: killed mid-check
    await d.restart("SIGKILL");
    c = await d.client();
    const done = await until(
      "both landed",
      async () => {
        const [e1, e2] = [await entry(n1), await entry(n2)];
        return e1?.state === "landed" && e2?.state === "landed" ? [e1, e2] : null;
      },
      60_000,
    );
    expect(done[1].commit).toBe(head(base, "main"));
    // One merge of each branch in main's history, and each branch's commit once.
    const merges = git(base, "log", "--merges", "--format=%s", "main").trim().split("\n");
    expect(merges).toEqual([
      `Merge roost/${j2.id} into main (roost queue #${n2}, job ${j2.id})`,
      `Merge roost/${j1.id} into main (roost queue #${n1}, job ${j1.id})`,
    ]);
    const subjects = git(base, "log", "--format=%s", "main").trim().split("\n");
    expect(subjects.filter((s) => s === "one.txt")).toHaveLength(1);
    expect(subjects.filter((s) => s === "two.txt")).toHaveLength(1);
    // The first's check ran again after the restart, in its scratch worktree, now gone.
    expect(fs.readFileSync(marks, "utf8").trim().split("\n")).toEqual([String(n1), String(n1), String(n2)]);
    expect(fs.existsSync(path.join(d.home, "queue", String(n1)))).toBe(false);
    expect(git(base, "worktree", "list")).not.toContain(path.join(d.home, "queue"));
  }, 90_000);
});

describe("uncommitted changes found as an entry is about to land", () => {
  it("the entry waits, saying why, and lands once they are gone", async () => {
    const base = repo();
    const j = await jobWith(base, "waits.txt");
    const { entries } = await c.ok("queue-add", { ids: [j.id], check: "sleep 1" });
    const n = entries[0].n;
    await until("checking", async () => (await entry(n))?.state === "checking");
    fs.writeFileSync(path.join(base, "scratch-notes.txt"), "mine\n");
    const waiting = await until("waiting", async () => {
      const e = await entry(n);
      return e?.detail?.startsWith("waiting: ") ? e : null;
    });
    expect(waiting.state).toBe("landing");
    expect(waiting.detail).toContain(
      `${base}, where main is checked out, has uncommitted changes (scratch-notes.txt)`,
    );
    expect(head(base, "main")).not.toBe(head(j.worktree.path));
    fs.rmSync(path.join(base, "scratch-notes.txt"));
    const landed = await until("landed", async () => {
      const e = await entry(n);
      return e?.state === "landed" ? e : null;
    });
    expect(landed).toMatchObject({ detail: null, commit: head(j.worktree.path) });
    expect(head(base, "main")).toBe(landed.commit);
  }, 30_000);
});
