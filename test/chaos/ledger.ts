/**
 * What the chaos cases check once the faults are over and every job has taken what waits for it:
 * what the test agents handled (handled.jsonl, calls.jsonl in each job's directory) against what
 * the daemon answered. Each rule broken is one line of the result, so that a failure says all.
 *
 * - Every reply answered `saved` was handled, once, by its job; nothing else was.
 * - A job's seqs were handled in order, none twice. The one allowance: an agent killed (kill -9)
 *   after its handler finished and before its `agent.json` was written handles that seq again in
 *   its next process; so a repeat is allowed only of a killed process's last seq.
 * - A hub's replies to one job were handled in the order it sent them.
 * - Every peer message whose `send` was answered (delivered, queued, or duplicate of one that
 *   was) was handled once by its receiver; one whose answer was lost (the connection went) at
 *   most once; none that nobody sent.
 * - A board task is done at most once, and only by a `done` that was answered ok. Its holder's
 *   `done` again (a reply handled again after the agent was killed, a request resent after a
 *   restart) is answered `duplicate: true` and changes nothing: not a second done.
 */
import path from "node:path";
import { lines } from "../helpers/jobs.js";
import type { SavedReply } from "./hub-load.js";

export interface Handled {
  seq: number;
  text: string;
  item: boolean;
  pid: number;
}

interface Call {
  op: string;
  args?: { to?: string; text?: string; id?: number; result?: string };
  ok: boolean;
  result?: { outcome?: string; duplicate?: boolean };
  code?: string;
}

export interface LedgerInput {
  home: string;
  jobs: string[];
  saved: SavedReply[];
  /** Each job's task (its first reply), handled like any other. */
  tasks: Map<string, string>;
  /** Agent processes killed with SIGKILL (alone, or with the pty host). */
  killed: Set<number>;
  /** The board at the end (`task {action: "list"}`), when the case used it. */
  board?: { id: number; state: string; result: string | null }[];
}

export interface LedgerFigures {
  problems: string[];
  repliesHandled: number;
  itemsHandled: number;
  /** Handled again after a kill -9 of the agent between its handler and its agent.json. */
  rehandledAfterKill: number;
  sendsAnswered: number;
  tasksDone: number;
}

const jobFile = (home: string, job: string, file: string) => lines(path.join(home, "jobs", job, file));

export function checkLedger(input: LedgerInput): LedgerFigures {
  const problems: string[] = [];
  const figures = {
    repliesHandled: 0,
    itemsHandled: 0,
    rehandledAfterKill: 0,
    sendsAnswered: 0,
    tasksDone: 0,
  };
  const handledBy = new Map(input.jobs.map((j) => [j, jobFile(input.home, j, "handled.jsonl") as Handled[]]));
  const calls = input.jobs.flatMap((j) =>
    (jobFile(input.home, j, "calls.jsonl") as Call[]).map((c) => ({ ...c, from: j })),
  );

  for (const job of input.jobs) {
    const handled = handledBy.get(job)!;
    checkSeqs(job, handled, input.killed, problems, figures);
    const firsts = firstTimes(handled);
    checkReplies(
      job,
      firsts.filter((h) => !h.item),
      input,
      problems,
    );
    figures.repliesHandled += firsts.filter((h) => !h.item).length;
    figures.itemsHandled += firsts.filter((h) => h.item).length;
  }
  checkMessages(calls, handledBy, problems, figures);
  if (input.board) checkBoard(input.board, calls, problems, figures);
  return { problems, ...figures };
}

/** In order, none twice but a killed process's last. */
function checkSeqs(
  job: string,
  handled: Handled[],
  killed: Set<number>,
  problems: string[],
  figures: { rehandledAfterKill: number },
): void {
  const lastOfPid = new Map<number, Handled>();
  for (const h of handled) lastOfPid.set(h.pid, h);
  let prev: Handled | null = null;
  for (const h of handled) {
    if (prev && h.seq < prev.seq)
      problems.push(`${job}: seq ${h.seq} handled after ${prev.seq} (out of order)`);
    if (prev && h.seq === prev.seq) {
      const allowed = killed.has(prev.pid) && lastOfPid.get(prev.pid) === prev && h.pid !== prev.pid;
      if (allowed) figures.rehandledAfterKill++;
      else problems.push(`${job}: seq ${h.seq} ("${h.text}") handled twice (pids ${prev.pid}, ${h.pid})`);
    }
    prev = h;
  }
}

/** Each seq's first handling (the allowed repeats dropped; checkSeqs judged them). */
function firstTimes(handled: Handled[]): Handled[] {
  const seen = new Set<number>();
  return handled.filter((h) => !seen.has(h.seq) && seen.add(h.seq));
}

function checkReplies(job: string, handled: Handled[], input: LedgerInput, problems: string[]): void {
  const saved = input.saved.filter((s) => s.job === job);
  const byText = new Map(saved.map((s) => [s.text, s]));
  const task = input.tasks.get(job);
  const texts = new Set(handled.map((h) => h.text));
  for (const s of saved)
    if (!texts.has(s.text)) problems.push(`${job}: "${s.text}" answered saved, never handled`);
  if (task !== undefined && !texts.has(task)) problems.push(`${job}: its task "${task}" never handled`);
  const lastN = new Map<number, number>();
  for (const h of handled) {
    const s = byText.get(h.text);
    if (!s) {
      if (h.text !== task) problems.push(`${job}: "${h.text}" (seq ${h.seq}) handled, never answered saved`);
      continue;
    }
    if ((lastN.get(s.hub) ?? 0) > s.n)
      problems.push(`${job}: hub ${s.hub}'s reply ${s.n} handled after a later one`);
    lastN.set(s.hub, s.n);
  }
}

/** Peer messages: the answered ones once, the unanswered at most once, none unsent. */
function checkMessages(
  calls: (Call & { from: string })[],
  handledBy: Map<string, Handled[]>,
  problems: string[],
  figures: { sendsAnswered: number },
): void {
  const sends = calls.filter((c) => c.op === "send" && c.args?.text);
  const promised = new Set<string>();
  const maybe = new Set<string>();
  for (const s of sends) {
    const key = `${s.args!.to}\n${s.args!.text}`;
    const outcome = s.ok ? s.result?.outcome : undefined;
    if (outcome === "delivered" || outcome === "queued" || outcome === "duplicate") promised.add(key);
    else if (!s.ok && (s.code === "disconnected" || s.code === "timeout")) maybe.add(key); // answer lost: sent or not
  }
  figures.sendsAnswered = promised.size;
  for (const [job, handled] of handledBy) {
    const items = firstTimes(handled).filter((h) => h.item);
    const count = new Map<string, number>();
    for (const h of items) count.set(h.text, (count.get(h.text) ?? 0) + 1);
    for (const [text, n] of count) {
      const key = `${job}\n${text}`;
      if (n > 1) problems.push(`${job}: the message "${text}" handled ${n} times`);
      if (!promised.has(key) && !maybe.has(key))
        problems.push(`${job}: the message "${text}" handled, never sent`);
    }
    for (const key of promised) {
      const [to, text] = key.split("\n") as [string, string];
      if (to === job && !count.has(text))
        problems.push(`${job}: the message "${text}" answered sent, never handled`);
    }
  }
}

function checkBoard(
  board: { id: number; state: string; result: string | null }[],
  calls: Call[],
  problems: string[],
  figures: { tasksDone: number },
): void {
  const dones = calls.filter((c) => c.op === "task-done" && c.ok);
  for (const t of board) {
    const oks = dones.filter((c) => c.args?.id === t.id);
    const made = oks.filter((c) => c.result?.duplicate !== true);
    if (made.length > 1) problems.push(`task #${t.id} done ${made.length} times`);
    if (t.state !== "done") {
      if (oks.length) problems.push(`task #${t.id} answered done, but is ${t.state}`);
      continue;
    }
    figures.tasksDone++;
    if (!oks.some((c) => (c.args?.result ?? null) === t.result))
      problems.push(`task #${t.id} is done with "${t.result}", which no answered done said`);
  }
}
