/**
 * The merge queue (docs/worktrees.md, "The merge queue"; protocol.md, `queue-add`): jobs' branches
 * landed one at a time, in the order queued, each merged onto its target as it then is and checked
 * there first (land.ts). Kept in the store, so that a restart resumes it: an entry found `landing`
 * whose merge commit its target already has is landed, never again; one cut short while merging or
 * checking starts again. Every change is written and pushed (`queue` events); each landing and
 * failure is a `queue` feed entry.
 */
import fs from "node:fs";
import { type OpArgs, QUEUE_ENDED, type QueueEntry, RoostError } from "../../../sdk/ts/protocol/index.js";
import { QUEUE_ENDED_KEPT, type QueueRecord } from "../../store/queue.js";
import type { Store } from "../../store/store.js";
import type { Actor, Feed } from "../feed.js";
import type { Registry } from "../jobs/index.js";
import type { Pushes } from "../pushes.js";
import { messageOf } from "../text.js";
import { git, gitOk } from "../worktrees/index.js";
import { type Failure, type Lander, land, logOf, removeScratch, scratchOf } from "./land.js";
import { checkAdd } from "./queue-add.js";
import { checkWords, conflictWords } from "./tell-words.js";

export interface QueueParts {
  store: Pick<Store, "queue" | "synced">;
  pushes: Pick<Pushes, "queue">;
  feed: Pick<Feed, "record">;
  registry: Pick<Registry, "get" | "find">;
  home: string;
  worktreesDir: string;
  /** A reply to the job, as `reply` saves and sends one (jobs/reply.ts). */
  tell: (id: string, text: string, actor: Actor) => Promise<unknown>;
  /** The job stopped and removed with its worktree and branch, as `rm --delete-branch` does. */
  clean: (id: string, actor: Actor) => Promise<void>;
  /** What an entry's output says passes it first: it goes to every hub. */
  redact: (text: string) => string;
}

const DEFAULT_TIMEOUT_MS = 30 * 60_000;
const OUTPUT_PUSH_MS = 1000;

const isEnded = (rec: QueueRecord) => QUEUE_ENDED.has(rec.state);
const actorOf = (rec: QueueRecord): Actor => ({ who: `queue #${rec.n}`, whoId: null });

export class MergeQueue implements Lander {
  private readonly all = new Map<number, QueueRecord>();
  private running = false;
  /** Set by `start`: until then nothing runs, so that an entry cut short by a restart goes first. */
  private started = false;
  /** Entries whose output changed since it was last pushed, and when each was. */
  private readonly outputPushed = new Map<number, { at: number; timer: NodeJS.Timeout | null }>();
  checking: Lander["checking"] = null;
  closed = false;
  readonly home: string;
  readonly worktreesDir: string;

  constructor(private readonly parts: QueueParts) {
    this.home = parts.home;
    this.worktreesDir = parts.worktreesDir;
    for (const rec of parts.store.queue.all()) this.all.set(rec.n, rec);
  }

  /** The entries queued and running, and the latest ended ones, in order. */
  list(): QueueEntry[] {
    return [...this.all.values()].sort((a, b) => a.n - b.n).map(view);
  }

  /** `queue-add`: every job checked first (refused: nothing queued), then all queued at once. */
  async add(args: OpArgs<"queue-add">, actor: Actor): Promise<QueueEntry[]> {
    const open = [...this.all.values()].filter((r) => !isEnded(r));
    const planned = await checkAdd(this.parts, args, open);
    const added = new Date().toISOString();
    const recs = this.parts.store.queue.create(
      planned.map((p) => (n: number) => ({
        n,
        ...p,
        check: args.check ?? null,
        tell: args.tell ?? false,
        push: args.push ?? null,
        clean: args.clean ?? false,
        state: "queued" as const,
        detail: null,
        conflicts: [],
        output: "",
        commit: null,
        pushed: null,
        added,
        started: null,
        ended: null,
        timeoutMs: args.timeout !== undefined ? args.timeout * 1000 : DEFAULT_TIMEOUT_MS,
        merged: null,
        onto: null,
        files: [],
        checkPid: null,
      })),
    );
    await this.parts.store.synced();
    for (const rec of recs) {
      this.all.set(rec.n, rec);
      this.parts.pushes.queue(view(rec));
      this.parts.feed.record(
        rec.id,
        "queue",
        `queued ${rec.branch} to land on ${rec.into} (#${rec.n})`,
        actor,
      );
    }
    const answer = recs.map(view); // as queued: the first may start at once
    this.kick();
    return answer;
  }

  /** `queue-cancel`: a queued entry dropped; one under way is not (`conflict`). */
  async cancel(n: number, actor: Actor): Promise<QueueEntry> {
    const rec = this.all.get(n);
    if (!rec)
      throw new RoostError("not_found", `there is no entry #${n} in the queue (\`queue\` lists them)`);
    if (rec.state !== "queued")
      throw new RoostError(
        "conflict",
        isEnded(rec)
          ? `#${n} has ended already (${rec.state})`
          : `#${n} is under way (${rec.state}): only a queued entry can be cancelled`,
      );
    this.end(rec, { state: "cancelled", detail: `cancelled by ${actor.who}` });
    this.parts.feed.record(rec.id, "queue", `#${n} (${rec.branch} onto ${rec.into}) cancelled`, actor);
    await this.parts.store.synced();
    return view(rec);
  }

  /**
   * At the daemon's start: an entry cut short is looked at again. One `landing` whose merge commit
   * its target has is landed (its push and clean done now); any other under way starts again.
   */
  async start(): Promise<void> {
    for (const rec of [...this.all.values()].sort((a, b) => a.n - b.n)) {
      if (isEnded(rec) || rec.state === "queued") continue;
      try {
        if (rec.state === "landing" && rec.merged && (await has(rec, rec.merged))) {
          await this.landed(rec, rec.merged, rec.onto ?? rec.merged);
          continue;
        }
        await removeScratch(rec, scratchOf(this.home, rec.n));
      } catch (err) {
        console.error(`roost: queue #${rec.n}: ${messageOf(err)}`);
      }
      this.update(rec, {
        state: "queued",
        checkPid: null,
        detail: `started again: roost stopped while it was ${rec.state}`,
      });
    }
    this.started = true;
    this.kick();
  }

  /** The daemon stopping: a check under way is ended; its entry starts again at the next start. */
  close(): void {
    this.closed = true;
    this.checking?.kill();
    for (const p of this.outputPushed.values()) if (p.timer) clearTimeout(p.timer);
  }

  private kick(): void {
    if (this.running || this.closed || !this.started) return;
    this.running = true;
    void (async () => {
      try {
        for (;;) {
          if (this.closed) break;
          const next = [...this.all.values()]
            .filter((r) => r.state === "queued")
            .sort((a, b) => a.n - b.n)[0];
          if (!next) break;
          this.update(next, {
            state: "merging",
            started: new Date().toISOString(),
            detail: null,
            conflicts: [],
            output: "",
            merged: null,
            onto: null,
          });
          await land(this, next).catch((err) => {
            // A daemon stopping cuts its git and its check short: the entry starts again at the next start.
            if (!this.closed) return this.failed(next, `roost could not land it: ${messageOf(err)}`, null);
          });
        }
      } finally {
        this.running = false;
      }
    })();
  }

  update(rec: QueueRecord, changes: Partial<QueueRecord>): void {
    Object.assign(rec, changes);
    if (changes.output !== undefined) rec.output = this.parts.redact(rec.output);
    this.parts.store.queue.put(rec, isEnded(rec));
    this.parts.pushes.queue(view(rec));
  }

  output(rec: QueueRecord, tail: string): void {
    rec.output = tail;
    const p = this.outputPushed.get(rec.n) ?? { at: 0, timer: null };
    this.outputPushed.set(rec.n, p);
    if (p.timer) return;
    const wait = Math.max(0, p.at + OUTPUT_PUSH_MS - Date.now());
    p.timer = setTimeout(() => {
      p.timer = null;
      p.at = Date.now();
      if (rec.state === "checking") this.update(rec, { output: rec.output });
    }, wait);
  }

  synced(): Promise<void> {
    return this.parts.store.synced();
  }

  async failed(rec: QueueRecord, detail: string, why: Failure): Promise<void> {
    const conflicts = why && "conflicts" in why ? why.conflicts : [];
    this.end(rec, { state: "failed", detail, conflicts, checkPid: null });
    this.parts.feed.record(rec.id, "queue", `#${rec.n} not landed: ${detail}`, actorOf(rec));
    if (!rec.tell || !why) return;
    const text =
      "conflicts" in why
        ? conflictWords(rec, why.conflicts, this.firstThere(rec, why.conflicts))
        : checkWords(rec, why.check);
    await this.parts
      .tell(rec.id, this.parts.redact(text), actorOf(rec))
      .catch((err) =>
        this.update(rec, { detail: `${detail}; ${rec.id} could not be told: ${messageOf(err)}` }),
      );
  }

  /** The job whose landing, in this queue, last changed one of these files in the same target. */
  private firstThere(rec: QueueRecord, files: string[]): string | null {
    const landed = [...this.all.values()]
      .filter((r) => r.state === "landed" && r.repo === rec.repo && r.into === rec.into)
      .sort((a, b) => b.n - a.n);
    return landed.find((r) => r.files.some((f) => files.includes(f)))?.id ?? null;
  }

  async landed(rec: QueueRecord, commit: string, onto: string): Promise<void> {
    const files =
      commit === onto
        ? []
        : (await gitOk(rec.repo, ["diff", "--name-only", "-z", onto, commit])).split("\0").filter(Boolean);
    const notes: string[] = [];
    if (commit === onto) notes.push(`nothing to land: ${rec.into} has all of ${rec.branch}`);
    let pushed: boolean | null = null;
    if (rec.push) {
      // The user's git and the user's remote, as when they push by hand.
      const r = await git(
        rec.repo,
        ["push", "--quiet", rec.push, `refs/heads/${rec.into}:refs/heads/${rec.into}`],
        {
          usersOwn: true,
        },
      );
      pushed = r.code === 0;
      if (!pushed) notes.push(`the push to ${rec.push} failed: ${r.stderr || `exit ${r.code}`}`);
    }
    if (rec.clean && this.parts.registry.find(rec.id))
      await this.parts
        .clean(rec.id, actorOf(rec))
        .catch((err) => notes.push(`not cleaned: ${messageOf(err)}`));
    this.end(rec, {
      state: "landed",
      commit,
      files,
      pushed,
      detail: notes.length ? notes.join("; ") : null,
      checkPid: null,
    });
    const how =
      commit === onto
        ? "already there"
        : `${files.length} file${files.length === 1 ? "" : "s"}, ${rec.into} now ${commit.slice(0, 12)}`;
    const also =
      pushed === null ? "" : pushed ? `; pushed to ${rec.push}` : `; the push to ${rec.push} failed`;
    this.parts.feed.record(
      rec.id,
      "queue",
      `#${rec.n} landed ${rec.branch} on ${rec.into} (${how})${also}`,
      actorOf(rec),
    );
  }

  /** Ended: written, pushed, and the oldest ended entries past the latest 100 forgotten. */
  private end(rec: QueueRecord, changes: Partial<QueueRecord>): void {
    const p = this.outputPushed.get(rec.n);
    if (p?.timer) clearTimeout(p.timer);
    this.outputPushed.delete(rec.n);
    this.update(rec, { ...changes, ended: new Date().toISOString() });
    const ended = [...this.all.values()].filter(isEnded).sort((a, b) => b.n - a.n);
    for (const old of ended.slice(QUEUE_ENDED_KEPT)) {
      this.all.delete(old.n);
      fs.rmSync(logOf(this.home, old.n), { force: true });
    }
  }
}

/** Whether the entry's target has `commit` now. */
async function has(rec: QueueRecord, commit: string): Promise<boolean> {
  return (await git(rec.repo, ["merge-base", "--is-ancestor", commit, `refs/heads/${rec.into}`])).code === 0;
}

/** What the wire shows of a record. */
function view(rec: QueueRecord): QueueEntry {
  const { timeoutMs: _t, merged: _m, onto: _o, files: _f, checkPid: _p, ...entry } = rec;
  return entry;
}
