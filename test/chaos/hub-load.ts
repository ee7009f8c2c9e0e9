/**
 * A steady load of replies from several hubs, each on its own socket connection, that keeps
 * going through daemon restarts: a reply whose answer did not come (the connection closed, the
 * daemon was down) is sent again with the same requestId until it is answered, as a careful
 * client does. What each was answered is the ledger's `saved` side.
 *
 * A reply's text is what the test agent (test/fixtures/sdk-agent.mjs) does with it: mostly work
 * (`w H-N`), now and then a message to another session (`send JOB p-H-N`) or a board action
 * (`claim K c-H-N`, `task-done K by-H-N`), each text unique so that the ledger can match it.
 */

import { sleep } from "../helpers/processes.js";
import { RawClient } from "../helpers/raw-client.js";
import { Random } from "./chaos.js";

/** A reply the daemon answered `saved` (the first time, or as a duplicate of the first). */
export interface SavedReply {
  job: string;
  hub: number;
  n: number;
  text: string;
}

export interface LoadOptions {
  socket: string;
  jobs: string[];
  hubs: number;
  /** Tasks on the board, claimed and done by number (1..tasks). */
  tasks: number;
  /** Each hub draws from a random source of its own, from this seed, so that a seed replays. */
  seed: number;
  /** The most a hub waits between two replies (ms). */
  paceMs?: number;
}

export class HubLoad {
  readonly saved: SavedReply[] = [];
  /** Refused for good (the reason): not saved, so never to be handled. */
  readonly refused: { job: string; text: string; code: string }[] = [];
  /** Answers that had to be asked for again (connection lost or busy). */
  resent = 0;
  private stopping = false;
  private readonly loops: Promise<void>[] = [];

  constructor(private readonly opts: LoadOptions) {}

  start(): void {
    for (let hub = 1; hub <= this.opts.hubs; hub++) this.loops.push(this.run(hub));
  }

  /** Ends the load: each hub finishes the reply it is on (answered), then stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.loops);
  }

  /** One reply, sent until answered; `saved` or a refusal recorded. */
  async send(hub: number, job: string, text: string, n: number): Promise<void> {
    const requestId = `chaos-${hub}-${n}`;
    for (;;) {
      const answer = await this.ask(hub, "reply", { id: job, text, requestId });
      if (answer.ok) {
        this.saved.push({ job, hub, n, text });
        return;
      }
      // Not saved, and the same requestId may be sent again: too many waiting, or a sync refused.
      if (answer.code === "full" || answer.code === "busy") {
        this.resent++;
        await sleep(50);
        continue;
      }
      this.refused.push({ job, text, code: answer.code ?? "?" });
      return;
    }
  }

  private async run(hub: number): Promise<void> {
    const { jobs } = this.opts;
    const rand = new Random(this.opts.seed * 31 + hub);
    for (let n = 1; !this.stopping; n++) {
      const job = rand.pick(jobs);
      await this.send(hub, job, this.textFor(rand, hub, n, job), n);
      await sleep(rand.int(0, this.opts.paceMs ?? 20));
    }
    this.connections.get(hub)?.close();
  }

  private textFor(rand: Random, hub: number, n: number, job: string): string {
    const { jobs, tasks } = this.opts;
    const roll = rand.next();
    if (roll < 0.03 && jobs.length > 1) {
      const to = rand.pick(jobs.filter((j) => j !== job));
      return `send ${to} p-${hub}-${n}`;
    }
    if (roll < 0.045 && tasks > 0) return `claim ${rand.int(1, tasks)} c-${hub}-${n}`;
    if (roll < 0.06 && tasks > 0) return `task-done ${rand.int(1, tasks)} by-${hub}-${n}`;
    return `w ${hub}-${n}`;
  }

  private readonly connections = new Map<number, RawClient>();

  /** An op on the hub's connection, made again (and the op sent again) until one answers. */
  private async ask(hub: number, op: string, args: unknown) {
    for (;;) {
      let c = this.connections.get(hub);
      if (!c || c.isClosed) {
        c = await RawClient.connect(this.opts.socket).catch(() => undefined);
        if (!c) {
          await sleep(50); // the daemon is down: it comes back
          continue;
        }
        this.connections.set(hub, c);
      }
      try {
        return await c.request(op, args, 20_000);
      } catch {
        c.close(); // closed under it, or no answer: a new connection, the same request
        this.resent++;
      }
    }
  }
}
