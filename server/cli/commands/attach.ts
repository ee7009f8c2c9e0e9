/**
 * `roost attach`: a job's live terminal in the user's own. The daemon answers `attach` with the
 * job's screen, then sends its output as `output` events; what the user types goes back as
 * `input`, and the job's terminal takes this one's size (`resize`). One connection, so the
 * requests are answered, and the keys typed reach the job, in order.
 */
import { execFileSync } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import type { SocketClient } from "../../../sdk/ts/client/socket-client.js";
import { LIMITS, RoostError, type Row, type WireEvent } from "../../../sdk/ts/protocol/index.js";
import { CliError, type Command } from "../command.js";
import { connect } from "../connect.js";
import { clean } from "../format.js";
import { altScreenAfter, CLEAR_SCREEN, terminalReset } from "../terminal.js";

/**
 * Ctrl-], as telnet's escape: the byte, or the key as a terminal reports it once the job has
 * asked for the kitty keyboard protocol or xterm's modifyOtherKeys.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control keys are what it looks for
const DETACH_KEY = /\u001d|\u001b\[93;5(?::1)?u|\u001b\[27;5;93~/;
/** What ends `--watch` at a terminal: Ctrl-] or Ctrl-C (a byte in raw mode, not a signal). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control keys are what it looks for
const WATCH_END = /\u0003|\u001d|\u001b\[(?:93|99);5(?::1)?u|\u001b\[27;5;(?:93|99)~/;
/** How long a detach may take to be answered before the connection is closed anyway. */
const DETACH_WAIT_MS = 2000;

type End =
  | { how: "detached" } // the user left; the job runs on
  | { how: "job-ended"; why: string }
  | { how: "failed"; err: unknown };

/** Waits for `p`, or `ms` at most (undefined then), leaving no timer behind. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** This terminal's size, within what `resize` takes; null when stdout is not a terminal. */
function ownSize(): { cols: number; rows: number } | null {
  const { columns, rows } = process.stdout;
  if (!process.stdout.isTTY || !columns || !rows) return null;
  return { cols: Math.min(1000, Math.max(2, columns)), rows: Math.min(500, Math.max(2, rows)) };
}

/**
 * Output processing off at the user's terminal, as ssh does: the job's output reaches it exactly,
 * a lone "\n" (a full-screen program's cursor down) staying a line feed. Node's raw mode leaves
 * it on; setRawMode(false), and node at exit, put back the terminal's settings as they were.
 */
function outputAsIs(): void {
  try {
    execFileSync("stty", ["-opost"], { stdio: ["inherit", "ignore", "ignore"], timeout: 2000 });
  } catch {
    // no stty: "\n" becomes "\r\n", which most programs' output already is
  }
}

/** `text` in pieces no longer than the input op takes, never splitting a surrogate pair. */
export function pieces(text: string, max: number = LIMITS.text): string[] {
  const out: string[] = [];
  let from = 0;
  while (text.length - from > max) {
    let to = from + max;
    const last = text.charCodeAt(to - 1);
    if (last >= 0xd800 && last <= 0xdbff) to--;
    out.push(text.slice(from, to));
    from = to;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

/**
 * How the job ended, from its row: "j3 exited (exit 3)", "j3 was stopped", "j3 was removed", or
 * that it runs again already (a respawn stops it, then starts it).
 */
async function howItEnded(client: SocketClient, id: string, why: string): Promise<string> {
  try {
    const listed = await within(client.call("list", { id }), DETACH_WAIT_MS);
    const row = listed?.rows[0];
    if (row?.life === "stopped") return `${id} was stopped`;
    if (row?.life === "exited")
      return `${id} exited${row.exitCode === null ? "" : ` (exit ${row.exitCode})`}`;
    if (row?.life === "running" || row?.life === "starting")
      return `${id} ${clean(why) || "ended"}, and was started again: \`roost attach ${id}\` shows it`;
  } catch (err) {
    if (err instanceof RoostError && err.code === "not_found") return `${id} was removed`;
  }
  return `${id} ended (${clean(why) || "no reason given"})`;
}

export const attach: Command = {
  name: "attach",
  args: "ID",
  arity: [1, 1],
  json: false,
  summary: "Show a job's live terminal here and type into it; Ctrl-] detaches (it keeps running).",
  details:
    "The job's terminal takes this one's size. When the job ends, it says how and exits 0.\n" +
    "--watch only looks: nothing typed reaches the job, and Ctrl-C or Ctrl-] ends it.\n" +
    "When stdin is not a terminal, its bytes are sent as they come (a Ctrl-] byte detaches);\n" +
    "once it ends, the output is still shown until the job ends or a SIGINT or SIGTERM.",
  options: {
    watch: { type: "boolean", short: "w", help: "only look: no typing, no resizing" },
  },
  examples: ["roost attach j3", "roost attach j3 --watch"],
  async run({ positionals: [id], values, env }) {
    const client = await connect(env);
    try {
      return await attachTo(client, id!, values.watch === true);
    } finally {
      client.onClose = () => {};
      client.close();
    }
  },
};

async function attachTo(client: SocketClient, id: string, watch: boolean): Promise<number> {
  const { stdin, stdout, stderr } = process;
  const tty = stdout.isTTY === true;
  let altScreen = false;
  let ending: End | null = null;
  let finish: (end: End) => void = () => {};
  const ended = new Promise<End>((resolve) => {
    finish = resolve;
  });
  const end = (e: End) => {
    if (ending) return;
    ending = e;
    finish(e);
  };

  const show = (data: string) => {
    altScreen = altScreenAfter(data, altScreen);
    stdout.write(data);
  };
  const onEvent = (event: WireEvent) => {
    if (ending) return;
    if (event.event === "output" && event.id === id) show(event.data);
    else if (event.event === "detached" && event.id === id) end({ how: "job-ended", why: event.why });
  };
  // Events are held until the screen is drawn: the output that follows it may arrive with the
  // answer, before the code that draws the screen runs.
  let held: WireEvent[] | null = [];
  client.onEvent = (event) => {
    if (held) held.push(event);
    else onEvent(event);
  };
  client.onClose = () =>
    end({
      how: "failed",
      err: new CliError(`the connection to roost closed (the daemon stopped?); ${id} keeps running`),
    });

  // Asked together, answered in order: the row (for its profile), this terminal's size for the
  // job's (first, so the screen comes at that size), then the screen.
  const size = watch ? null : ownSize();
  const listed = client.call("list", { id });
  const resized = size ? client.call("resize", { id, ...size }) : Promise.resolve({});
  const attached = client.call("attach", { id });
  for (const p of [listed, resized, attached]) p.catch(() => {}); // each is awaited or dropped below
  let row: Row;
  let screen: { screen: string; cols: number; rows: number };
  try {
    row = (await listed).rows[0]!;
  } catch (err) {
    client.onEvent = () => {};
    throw err;
  }
  try {
    screen = await attached;
  } catch (err) {
    client.onEvent = () => {};
    // An ended job has no live terminal, but what it printed is kept.
    if (err instanceof RoostError && row.life !== "running" && row.life !== "starting")
      throw new RoostError(err.code, `${err.message}: \`roost log ${id}\` shows what it printed`);
    throw err;
  }

  const theirs = `${screen.cols}x${screen.rows}`;
  const ours = tty && stdout.columns && stdout.rows ? `${stdout.columns}x${stdout.rows}` : theirs;
  stderr.write(
    watch
      ? `watching ${id} (${row.profile}); Ctrl-C or Ctrl-] ends it` +
          (ours === theirs ? "\n" : ` (its terminal is ${theirs}, this one ${ours})\n`)
      : `attached to ${id} (${row.profile}); detach with Ctrl-]\n`,
  );
  if (tty) stdout.write(CLEAR_SCREEN);
  show(screen.screen);
  for (const event of held) onEvent(event);
  held = null;

  // What the user types: to the job (or, with --watch, only the keys that end it).
  const raw = stdin.isTTY === true;
  const decoder = new StringDecoder("utf8");
  const inputFailed = (err: unknown) => {
    if (ending) return;
    // Typed as the job ended: its `detached` event tells how. Any other failure ends the attach.
    client.call("list", { id }).then(
      ({ rows: [r] }) => {
        if (r?.life === "running") end({ how: "failed", err });
      },
      () => end({ how: "failed", err }),
    );
  };
  const onData = (chunk: Buffer) => {
    if (ending) return;
    const text = decoder.write(chunk);
    if (watch) {
      if (WATCH_END.test(text)) end({ how: "detached" });
      return;
    }
    const key = DETACH_KEY.exec(text);
    const typed = key ? text.slice(0, key.index) : text;
    for (const data of pieces(typed)) client.call("input", { id, data }).catch(inputFailed);
    if (key) end({ how: "detached" });
  };
  const reading = raw || !watch;
  if (raw) {
    stdin.setRawMode(true);
    if (tty) outputAsIs();
  }
  if (reading) {
    stdin.on("data", onData);
    stdin.resume();
  }

  const onResize = () => {
    const s = ownSize();
    if (s && !ending) client.call("resize", { id, ...s }).catch(() => {});
  };
  if (size) stdout.on("resize", onResize);
  const onSignal = () => end({ how: "detached" });
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const how = await ended;

  if (reading) {
    stdin.off("data", onData);
    stdin.pause();
  }
  if (raw) stdin.setRawMode(false);
  stdout.off("resize", onResize);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  client.onEvent = () => {};

  let said: string;
  if (how.how === "detached") {
    // Asked, so the daemon stops sending at once; the connection's end would do it too.
    await within(
      client.call("detach", { id }).catch(() => {}),
      DETACH_WAIT_MS,
    );
    said = `detached from ${id}; it keeps running`;
  } else if (how.how === "job-ended") said = await howItEnded(client, id, how.why);
  else said = "";
  if (tty) stdout.write(`${terminalReset(altScreen)}\r\n`);
  if (how.how === "failed") throw how.err;
  stderr.write(`${said}\n`);
  return 0;
}
