/** `roost events`: the feed of what happened across the jobs, once or followed live. */
import type { SocketClient } from "../../../sdk/ts/client/socket-client.js";
import type { FeedEntry, OpArgs } from "../../../sdk/ts/protocol/index.js";
import { LIMITS } from "../../../sdk/ts/protocol/limits.js";
import { type Command, type Invocation, out, printJson, str, UsageError } from "../command.js";
import { callOnce, connect, NotRunning } from "../connect.js";
import { feedLine, paint, wantsColour } from "../format.js";
import { io } from "../io.js";

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
  details: [
    "With --follow --json, one entry a line: the recent ones, then each new one. When the daemon",
    "goes away (a restart), --follow says so on stderr, connects again once it answers and goes on",
    "from the last entry shown (with --json, those notes are JSON too: {note, message}).",
  ].join("\n"),
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
    else for (const e of result.events) out(feedLine(e, paint(wantsColour(io().stdout, inv.env))));
    return 0;
  },
};

/** How long to wait before connecting again, and at most, once the daemon is gone. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Follows the feed until Ctrl-C (or SIGTERM), exit 0. When the daemon goes away (a restart, a
 * shutdown) it says so on stderr, connects again as soon as one answers (as the hub does), says
 * that too, and goes on from the last entry it printed: what happened meanwhile is printed once.
 */
async function follow(inv: Invocation, args: OpArgs<"events">): Promise<number> {
  const p = paint(wantsColour(io().stdout, inv.env));
  let printedUpTo = -1;
  const print = (e: FeedEntry) => {
    if (e.cursor <= printedUpTo || (args.id !== undefined && e.id !== args.id)) return;
    printedUpTo = e.cursor;
    if (inv.json) printJson(e);
    else out(feedLine(e, p));
  };
  // A note on stderr (JSON with --json, as its errors are): stdout holds the entries alone.
  const note = (note: string, message: string) =>
    io().stderr.write(inv.json ? `${JSON.stringify({ note, message })}\n` : `roost: ${message}\n`);
  let end: () => void = () => {};
  const ended = new Promise<"ended">((resolve) => {
    end = () => resolve("ended");
  });
  process.once("SIGINT", end);
  process.once("SIGTERM", end);

  let client = await connect(inv.env);
  // Said once when the connection is lost, and once when the feed is followed again: a connection
  // that closes before it is following (a daemon dying as it accepts, seen just after a kill -9)
  // is tried again without a word, later each time.
  let lost = false;
  let dropped = 0;
  for (let first = true; ; first = false) {
    // The first time, the recent entries as asked; after a reconnection, all since the last printed.
    const since: OpArgs<"events"> = first
      ? args
      : { ...(args.id !== undefined ? { id: args.id } : {}), after: printedUpTo, limit: LIMITS.feedKept };
    const how = await followOn(client, since, print, ended, (cursor) => {
      printedUpTo = Math.max(printedUpTo, cursor);
      if (lost) note("reconnected", "connected to roost again; following the events");
      lost = false;
      dropped = 0;
    });
    if (how === "ended") return 0;
    if (lost) dropped++;
    else note("reconnecting", "the connection to roost closed (the daemon stopped?); connecting again...");
    lost = true;
    const again = await reconnect(inv.env, ended, dropped && backoff(dropped - 1));
    if (again === "ended") return 0;
    client = again;
  }
}

/**
 * Follows on one connection: subscribes first, then reads the entries `since` asks for, so that
 * nothing falls between the two (a push that is also among them is printed once, by its cursor);
 * `following` is told once both are answered. Until the connection closes ("closed") or the user
 * ends it ("ended").
 */
async function followOn(
  client: SocketClient,
  since: OpArgs<"events">,
  print: (e: FeedEntry) => void,
  ended: Promise<"ended">,
  following: (cursor: number) => void,
): Promise<"closed" | "ended"> {
  let held: FeedEntry[] | null = [];
  client.onEvent = (event) => {
    if (event.event !== "feed") return;
    if (held) held.push(event.entry);
    else print(event.entry);
  };
  let isClosed = false;
  const closed = new Promise<"closed">((resolve) => {
    client.onClose = () => {
      isClosed = true;
      resolve("closed");
    };
  });
  try {
    await client.call("subscribe", {});
    const recent = await client.call("events", since);
    for (const e of recent.events) print(e);
    following(recent.cursor); // all up to here is printed, or was not this job's
    for (const e of held) print(e);
    held = null;
  } catch (err) {
    if (isClosed) return "closed"; // gone while subscribing: connect again, as after
    client.onClose = () => {};
    client.close();
    throw err;
  }
  const how = await Promise.race([closed, ended]);
  client.onClose = () => {};
  client.close();
  return how;
}

/** The wait before the try after `n` failed ones: 100 ms, doubled each time, at most 2 s. */
const backoff = (n: number) => Math.min(RETRY_FIRST_MS * 2 ** n, RETRY_MAX_MS);

/**
 * A connection again, once the daemon answers (the first try after `firstWait` ms); "ended" when
 * the user ends it first.
 */
async function reconnect(
  env: NodeJS.ProcessEnv,
  ended: Promise<"ended">,
  firstWait: number,
): Promise<SocketClient | "ended"> {
  let stop = false;
  void ended.then(() => {
    stop = true;
  });
  for (let tries = 0, wait = firstWait; !stop; wait = backoff(tries++)) {
    if (wait > 0 && (await Promise.race([sleep(wait).then(() => false), ended.then(() => true)]))) break;
    try {
      const client = await connect(env);
      if (!stop) return client;
      client.close();
    } catch (err) {
      if (!(err instanceof NotRunning)) throw err;
    }
  }
  return "ended";
}
