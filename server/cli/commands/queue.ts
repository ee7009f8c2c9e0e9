/**
 * `roost queue`: the merge queue (docs/worktrees.md, "The merge queue"): its entries, or one
 * cancelled. And how `roost merge` with several jobs (or a check) follows the entries it queued.
 */
import type { OpArgs, QueueEntry } from "../../../sdk/ts/protocol/index.js";
import { QUEUE_ENDED } from "../../../sdk/ts/protocol/queue-states.js";
import { CliError, type Command, type Invocation, out, printJson, UsageError } from "../command.js";
import { callOnce, connect } from "../connect.js";
import { ago, clean, columns, terminalWidth, wantsColour } from "../format.js";
import { io } from "../io.js";

/** How many of the check's last lines a failure prints. */
const FAILED_LINES = 15;

function list(entries: QueueEntry[], env: NodeJS.ProcessEnv): void {
  if (entries.length === 0) {
    out("the queue is empty: `roost merge ID ID... --check CMD` queues jobs' branches");
    return;
  }
  const lines = columns(
    ["#", "JOB", "BRANCH", "INTO", "STATE", "WHEN", "DETAIL"],
    entries.map((e) => [
      String(e.n),
      e.id,
      e.branch,
      e.into,
      e.state,
      ago(e.ended ?? e.started ?? e.added),
      clean(e.detail ?? (e.check ? `check: ${e.check}` : "")),
    ]),
    {
      width: terminalWidth(io().stdout, env),
      colour: wantsColour(io().stdout, env),
      max: [5, 8, 30, 20],
    },
  );
  for (const line of lines) out(line);
}

/** One line for an entry's state: "#4 j3 roost/j3 → main: checking (npm test)". */
export function entryLine(e: QueueEntry): string {
  const head = `#${e.n} ${e.id} ${e.branch} → ${e.into}: ${e.state}`;
  if (e.state === "checking") return `${head} (${e.check})`;
  if (e.state === "landed")
    return `${head} at ${e.commit?.slice(0, 12) ?? "?"}${e.pushed === true ? `, pushed to ${e.push}` : ""}${e.detail ? ` (${e.detail})` : ""}`;
  return e.detail ? `${head}: ${e.detail}` : head;
}

/**
 * `queue-add`, then each entry's changes as they come (one line a state, or a detail, that
 * changes), until all have ended: exit 1 if any did not land. The check's last lines are printed
 * for a failed check. With `wait` false, once queued.
 */
export async function queueAndFollow(
  inv: Invocation,
  args: OpArgs<"queue-add">,
  wait: boolean,
): Promise<number> {
  const client = await connect(inv.env);
  try {
    const mine = new Map<number, QueueEntry>();
    const said = new Map<number, string>();
    let held: QueueEntry[] | null = [];
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const show = (e: QueueEntry) => {
      if (!mine.has(e.n)) return;
      mine.set(e.n, e);
      const line = entryLine(e);
      if (said.get(e.n) === line) return;
      said.set(e.n, line);
      if (inv.json) printJson(e);
      else {
        out(line);
        if (e.state === "failed" && e.output && !e.conflicts.length)
          for (const l of e.output.trimEnd().split("\n").slice(-FAILED_LINES)) out(`    ${l}`);
      }
      if ([...mine.values()].every((m) => QUEUE_ENDED.has(m.state))) finish();
    };
    if (wait) {
      client.onEvent = (event) => {
        if (event.event !== "queue") return;
        if (held) held.push(event.entry);
        else show(event.entry);
      };
      await client.call("subscribe", {});
    }
    const { entries } = await client.call("queue-add", args);
    for (const e of entries) mine.set(e.n, e);
    for (const e of entries) show(e);
    if (!wait) return 0;
    for (const e of held ?? []) show(e);
    held = null;
    if (![...mine.values()].every((m) => QUEUE_ENDED.has(m.state))) {
      const closed = new Promise<"closed">((resolve) => {
        client.onClose = () => resolve("closed");
      });
      if ((await Promise.race([finished.then(() => "done" as const), closed])) === "closed")
        throw new CliError(
          "the connection to roost closed before the queue was done: `roost queue` shows it",
        );
    }
    return [...mine.values()].every((m) => m.state === "landed") ? 0 : 1;
  } finally {
    client.onClose = () => {};
    client.close();
  }
}

export const queue: Command = {
  name: "queue",
  args: "[cancel N]",
  arity: [0, 2],
  summary: "List the merge queue's entries, or cancel a queued one.",
  details: [
    "The entries queued and under way, and the latest 100 ended: each job's branch, the branch it",
    "lands on, its state (queued, merging, checking, landing; landed, failed, cancelled) and why",
    "it failed or what it waits on. `roost merge ID ID... [--check CMD]` queues them.",
    "  cancel N   drops entry N while it is still queued (one under way cannot be)",
    "--json: {entries}; for cancel, {entry}.",
  ].join("\n"),
  examples: ["roost queue", "roost queue --json", "roost queue cancel 4"],
  async run(inv) {
    const [action, n] = inv.positionals;
    if (action === undefined) {
      const { entries } = await callOnce(inv.env, "queue", {});
      if (inv.json) printJson({ entries });
      else list(entries, inv.env);
      return 0;
    }
    if (action !== "cancel")
      throw new UsageError(`no action ${JSON.stringify(action)}: cancel N, or none for the list`);
    const num = Number(n);
    if (n === undefined || !Number.isInteger(num) || num < 1)
      throw new UsageError(
        `queue cancel needs an entry's number (#N in \`roost queue\`), not ${JSON.stringify(n ?? "")}`,
      );
    const { entry } = await callOnce(inv.env, "queue-cancel", { n: num });
    if (inv.json) printJson({ entry });
    else out(`cancelled #${entry.n} (${entry.id} ${entry.branch} → ${entry.into})`);
    return 0;
  },
};
