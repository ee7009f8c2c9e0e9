/**
 * One `roost attach`, from the screen drawn to the line that says how it ended: the job's output
 * shown here, what the user types sent to the job, this terminal's size followed. One connection,
 * so the requests are answered, and the keys typed reach the job, in order.
 */
import { StringDecoder } from "node:string_decoder";
import type { SocketClient } from "../../sdk/ts/client/socket-client.js";
import { RoostError } from "../../sdk/ts/protocol/errors.js";
import type { Row, WireEvent } from "../../sdk/ts/protocol/index.js";
import { DETACH_KEY, outputAsIs, pieces, WATCH_END } from "./attach-keys.js";
import { CliError } from "./command.js";
import { clean, stateLabel } from "./format.js";
import { altScreenAfter, CLEAR_SCREEN, terminalReset } from "./terminal.js";

/** How long a detach may take to be answered before the connection is closed anyway. */
const DETACH_WAIT_MS = 2000;

export type End =
  | { how: "detached" } // the user left; the job runs on
  | { how: "job-ended"; why: string }
  | { how: "failed"; err: unknown };

/** What `attach` answers: the job's screen as ANSI text, and the size it is drawn at. */
export interface JobScreen {
  screen: string;
  cols: number;
  rows: number;
}

/** Undoes what a `listen...` method set up. */
type Stop = () => void;

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
 * How the job ended, from its row, in the words `roost ls` uses: "j3 ended: failed (exit 3);
 * `roost respawn j3` starts it again", "j3 was stopped; ...", "j3 was removed", or that it runs
 * again already (a respawn stops it, then starts it).
 */
async function howItEnded(client: SocketClient, id: string, why: string): Promise<string> {
  try {
    const listed = await within(client.call("list", { id }), DETACH_WAIT_MS);
    const row = listed?.rows[0];
    if (row?.life === "stopped") return `${id} was stopped; ${respawnHint(id)}`;
    if (row?.life === "exited") return `${id} ended: ${stateLabel(row)}; ${respawnHint(id)}`;
    if (row?.life === "running" || row?.life === "starting")
      return `${id} ${clean(why) || "ended"}, and was started again: \`roost attach ${id}\` shows it`;
  } catch (err) {
    if (err instanceof RoostError && err.code === "not_found") return `${id} was removed`;
  }
  return `${id} ended (${clean(why) || "no reason given"})`;
}

const respawnHint = (id: string) => `\`roost respawn ${id}\` starts it again`;

/**
 * An ended job has no live terminal: the refusal says how it ended, that `respawn` starts it
 * again, and that what it printed is kept.
 */
function saidOfEnded(err: unknown, row: Row, id: string): unknown {
  if (err instanceof RoostError && row.life !== "running" && row.life !== "starting")
    return new RoostError(
      err.code,
      `${id} has ended (${stateLabel(row)}), so it has no live terminal: ${respawnHint(id)}, ` +
        `\`roost log ${id}\` shows what it printed`,
    );
  return err;
}

/** The line on stderr before the screen: what this is, and how to leave it. */
function greeting(id: string, row: Row, screen: JobScreen, watch: boolean): string {
  if (!watch) return `attached to ${id} (${row.profile}); detach with Ctrl-]\n`;
  const { stdout } = process;
  const theirs = `${screen.cols}x${screen.rows}`;
  const tty = stdout.isTTY === true;
  const ours = tty && stdout.columns && stdout.rows ? `${stdout.columns}x${stdout.rows}` : theirs;
  return (
    `watching ${id} (${row.profile}); Ctrl-C or Ctrl-] ends it` +
    (ours === theirs ? "\n" : ` (its terminal is ${theirs}, this one ${ours})\n`)
  );
}

export class Attachment {
  /** How it ended: settled once, by whichever comes first. */
  readonly ended: Promise<End>;
  private settle: (end: End) => void = () => {};
  private ending: End | null = null;
  /** Whether the job's output left this terminal on its alternate screen (left on the way out). */
  private altScreen = false;
  /**
   * Events held until the screen is drawn: the output that follows it may arrive with the
   * answer, before the code that draws the screen runs. Null once drawn.
   */
  private held: WireEvent[] | null = [];
  /** This terminal's size for the job's; null with --watch, or when stdout is not a terminal. */
  private readonly size: { cols: number; rows: number } | null;
  private readonly tty = process.stdout.isTTY === true;

  constructor(
    private readonly client: SocketClient,
    private readonly id: string,
    private readonly watch: boolean,
  ) {
    this.ended = new Promise<End>((resolve) => {
      this.settle = resolve;
    });
    client.onEvent = (event) => {
      if (this.held) this.held.push(event);
      else this.onEvent(event);
    };
    client.onClose = () =>
      this.end({
        how: "failed",
        err: new CliError(`the connection to roost closed (the daemon stopped?); ${id} keeps running`),
      });
    this.size = watch ? null : ownSize();
  }

  /**
   * Asked together, answered in order: the row (for its profile), this terminal's size for the
   * job's (first, so the screen comes at that size), then the screen.
   */
  async open(): Promise<{ row: Row; screen: JobScreen }> {
    const { client, id, size } = this;
    const listed = client.call("list", { id });
    const resized = size ? client.call("resize", { id, ...size }) : Promise.resolve({});
    const attached = client.call("attach", { id });
    for (const p of [listed, resized, attached]) p.catch(() => {}); // each is awaited or dropped below
    let row: Row;
    try {
      row = (await listed).rows[0]!;
    } catch (err) {
      client.onEvent = () => {};
      throw err;
    }
    try {
      return { row, screen: await attached };
    } catch (err) {
      client.onEvent = () => {};
      throw saidOfEnded(err, row, id);
    }
  }

  /** Says what this is, draws the job's screen, then what it printed meanwhile. */
  draw(row: Row, screen: JobScreen): void {
    process.stderr.write(greeting(this.id, row, screen, this.watch));
    if (this.tty) process.stdout.write(CLEAR_SCREEN);
    this.show(screen.screen);
    for (const event of this.held ?? []) this.onEvent(event);
    this.held = null;
  }

  /** What the user types: to the job (or, with --watch, only the keys that end it). */
  listenToKeys(): Stop {
    const { stdin } = process;
    const raw = stdin.isTTY === true;
    const decoder = new StringDecoder("utf8");
    const onData = (chunk: Buffer) => {
      if (!this.ending) this.onTyped(decoder.write(chunk));
    };
    // --watch reads only a terminal (for the keys that end it); a pipe's bytes would go nowhere.
    const reading = raw || !this.watch;
    if (raw) {
      stdin.setRawMode(true);
      if (this.tty) outputAsIs();
    }
    // A pipe's end is the end of what there is to type (`echo ls | roost attach j3`): it detaches,
    // after what came before it (each input is asked before the detach, on the same connection).
    const onEnd = () => {
      const rest = decoder.end();
      if (!this.ending && rest) this.onTyped(rest);
      this.end({ how: "detached" });
    };
    if (reading) {
      stdin.on("data", onData);
      if (!raw) stdin.once("end", onEnd);
      stdin.resume();
    }
    return () => {
      if (reading) {
        stdin.off("data", onData);
        stdin.off("end", onEnd);
        stdin.pause();
      }
      if (raw) stdin.setRawMode(false);
    };
  }

  /** The job's terminal follows this one's size, unless it only watches. */
  listenToResizes(): Stop {
    const onResize = () => {
      const s = ownSize();
      if (s && !this.ending) this.client.call("resize", { id: this.id, ...s }).catch(() => {});
    };
    if (this.size) process.stdout.on("resize", onResize);
    return () => process.stdout.off("resize", onResize);
  }

  /** SIGINT and SIGTERM detach: the job runs on, and this terminal is put back. */
  listenToSignals(): Stop {
    const onSignal = () => this.end({ how: "detached" });
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    return () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    };
  }

  /** Puts this terminal back and says how it ended: exit 0, or the failure thrown. */
  async close(how: End): Promise<number> {
    this.client.onEvent = () => {};
    const said = await this.farewell(how);
    if (this.tty) process.stdout.write(`${terminalReset(this.altScreen)}\r\n`);
    if (how.how === "failed") throw how.err;
    process.stderr.write(`${said}\n`);
    return 0;
  }

  private end(e: End): void {
    if (this.ending) return;
    this.ending = e;
    this.settle(e);
  }

  private show(data: string): void {
    this.altScreen = altScreenAfter(data, this.altScreen);
    process.stdout.write(data);
  }

  private onEvent(event: WireEvent): void {
    if (this.ending) return;
    if (event.event === "output" && event.id === this.id) this.show(event.data);
    else if (event.event === "detached" && event.id === this.id)
      this.end({ how: "job-ended", why: event.why });
  }

  /** Sends what was typed up to a detach key, then detaches at it. */
  private onTyped(text: string): void {
    if (this.watch) {
      if (WATCH_END.test(text)) this.end({ how: "detached" });
      return;
    }
    const key = DETACH_KEY.exec(text);
    const toJob = key ? text.slice(0, key.index) : text;
    for (const data of pieces(toJob))
      this.client.call("input", { id: this.id, data }).catch((err) => this.inputFailed(err));
    if (key) this.end({ how: "detached" });
  }

  private inputFailed(err: unknown): void {
    if (this.ending) return;
    // Typed as the job ended: its `detached` event tells how. Any other failure ends the attach.
    this.client.call("list", { id: this.id }).then(
      ({ rows: [r] }) => {
        if (r?.life === "running") this.end({ how: "failed", err });
      },
      () => this.end({ how: "failed", err }),
    );
  }

  /** The last line: how it ended ("" for a failure, which is thrown instead). */
  private async farewell(how: End): Promise<string> {
    if (how.how === "detached") {
      // Asked, so the daemon stops sending at once; the connection's end would do it too.
      await within(
        this.client.call("detach", { id: this.id }).catch(() => {}),
        DETACH_WAIT_MS,
      );
      return `detached from ${this.id}; it keeps running`;
    }
    if (how.how === "job-ended") return howItEnded(this.client, this.id, how.why);
    return "";
  }
}
