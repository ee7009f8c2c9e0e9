/** `roost events`: the feed of what happened across the jobs, once or followed live. */
import { type FeedEntry, LIMITS, type OpArgs } from "../../../sdk/ts/protocol/index.js";
import { CliError, type Command, type Invocation, out, printJson, str, UsageError } from "../command.js";
import { callOnce, connect } from "../connect.js";
import { feedLine, paint, wantsColour } from "../format.js";

function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > LIMITS.feedKept)
    throw new UsageError(
      `--limit must be a whole number from 1 to ${LIMITS.feedKept}, not ${JSON.stringify(raw)}`,
    );
  return n;
}

export const events: Command = {
  name: "events",
  arity: [0, 0],
  summary: "Show what happened across the jobs (dispatches, replies, exits, ...), newest last.",
  details: "With --follow --json, one entry a line: the recent ones, then each new one.",
  options: {
    follow: { type: "boolean", short: "f", help: "keep printing new events as they happen (Ctrl-C ends it)" },
    job: { type: "string", value: "ID", help: "only this job's events" },
    limit: {
      type: "string",
      value: "N",
      help: `how many recent events (default 100, at most ${LIMITS.feedKept})`,
    },
  },
  examples: ["roost events --job j3 --limit 20", "roost events --follow --json"],
  async run(inv) {
    const limit = parseLimit(str(inv.values, "limit"));
    const id = str(inv.values, "job");
    const args: OpArgs<"events"> = {
      ...(limit !== undefined ? { limit } : {}),
      ...(id !== undefined ? { id } : {}),
    };
    if (inv.values.follow) return follow(inv, args);
    const result = await callOnce(inv.env, "events", args);
    if (inv.json) printJson(result);
    else if (result.events.length === 0) out(id ? `no events for ${id} yet` : "no events yet");
    else for (const e of result.events) out(feedLine(e, paint(wantsColour(process.stdout, inv.env))));
    return 0;
  },
};

/**
 * Subscribes first, then reads the recent events, so nothing falls between the two: a push that
 * is also among the recent ones is printed once (by its cursor). With --json, one entry a line.
 */
async function follow(inv: Invocation, args: OpArgs<"events">): Promise<number> {
  const p = paint(wantsColour(process.stdout, inv.env));
  const client = await connect(inv.env);
  let printedUpTo = -1;
  let held: FeedEntry[] | null = [];
  const print = (e: FeedEntry) => {
    if (e.cursor <= printedUpTo || (args.id !== undefined && e.id !== args.id)) return;
    printedUpTo = e.cursor;
    if (inv.json) printJson(e);
    else out(feedLine(e, p));
  };
  client.onEvent = (event) => {
    if (event.event !== "feed") return;
    if (held) held.push(event.entry);
    else print(event.entry);
  };
  const ended = new Promise<number>((resolve, reject) => {
    client.onClose = () => reject(new CliError("the connection to roost closed (the daemon stopped?)"));
    const interrupted = () => {
      client.onClose = () => {};
      client.close();
      resolve(0);
    };
    process.once("SIGINT", interrupted);
    process.once("SIGTERM", interrupted);
  });
  ended.catch(() => {}); // a close while subscribing is reported by the call that fails
  try {
    await client.call("subscribe", {});
    const recent = await client.call("events", args);
    for (const e of recent.events) print(e);
    for (const e of held) print(e);
    held = null;
  } catch (err) {
    client.onClose = () => {};
    client.close();
    throw err;
  }
  return ended;
}
