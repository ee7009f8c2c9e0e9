/**
 * The load the replies scenario (replies.ts) puts on a daemon: an agent for each job that acks
 * each delivery at once, and hubs sending replies, in a closed loop (each slot keeps one in
 * flight) or paced (a fixed rate, sent on time whatever the answers do); each reply's times.
 */
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { type BenchDaemon, type InertJob, type LoopDelay, sleep, until } from "../harness.js";
import type { Answer, Conn } from "../lines.js";
import { Contention, cpuMs, loopLate, median, percentile, round } from "../stats.js";

export const WARM_MS = 500;
export const MEASURE_MS = 3000;
export const PACED_RATE = 1000;
export const PACED_MS = 5000;
export const TEXT = "please also update the docs and the changelog, then run the tests again";

/** What happened to reply n, in performance.now() ms (undefined: not yet). */
export class Track {
  readonly sent: number[] = [];
  readonly answered: number[] = [];
  readonly delivered: number[] = [];
  readonly acked: number[] = [];
  /** Replies answered with an error (never delivered, so they wait for no ack), or their ack was. */
  readonly failed = new Set<number>();
  readonly errors = new Map<string, number>();
  firstError: string | null = null;
  next = 0;
  private readonly ackWaiters = new Map<number, () => void>();

  /** Reply n's ack is answered: stored (stamped when its answer reached the agent), or refused. */
  ackAnswered(n: number, ok: boolean): void {
    if (ok) this.acked[n] = performance.now();
    else this.failed.add(n);
    this.ackWaiters.get(n)?.();
    this.ackWaiters.delete(n);
  }

  /** Resolves once reply n is acked (at once if it is, or if it failed and will never be). */
  untilAcked(n: number): Promise<void> {
    if (this.acked[n] !== undefined || this.failed.has(n)) return Promise.resolve();
    return new Promise((resolve) => this.ackWaiters.set(n, resolve));
  }

  error(code: string, message: string | undefined): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
    this.firstError ??= `${code}: ${message}`;
  }

  /** The latencies (ms) of replies [from, to) for one of the stamps, leaving out those missing. */
  latencies(stamps: number[], from: number, to: number): number[] {
    const out: number[] = [];
    for (let n = from; n < to; n++) {
      const t = stamps[n];
      const s = this.sent[n];
      if (t !== undefined && s !== undefined) out.push(t - s);
    }
    return out;
  }

  /** Every reply sent so far is answered, and acked unless it failed. */
  settled(): boolean {
    for (; this.settledUpTo < this.next; this.settledUpTo++) {
      const n = this.settledUpTo;
      if (this.answered[n] === undefined) return false;
      if (this.acked[n] === undefined && !this.failed.has(n)) return false;
    }
    return true;
  }

  private settledUpTo = 0;
}

/** An agent for a job: reported once; acks each `deliver` at once. */
export async function openAgent(d: BenchDaemon, job: InertJob, track: Track): Promise<Conn> {
  const agent = await d.connect();
  await agent.ok("hello", { protocol: 1, agent: { name: "bench", version: "0" }, capabilities: ["replies"] });
  await agent.ok("report", {
    id: job.id,
    token: job.token,
    report: { state: "working", summary: "waiting" },
  });
  agent.onEvent = (e) => {
    if (e.event !== "deliver") return;
    const n = Number(/^r(\d+) /.exec(e.text)?.[1]);
    track.delivered[n] = performance.now();
    void agent.request("ack", { id: job.id, token: job.token, seq: e.seq }).then((a) => {
      track.ackAnswered(n, a.ok);
      if (!a.ok) track.error(`ack ${a.code}`, a.error);
    });
  };
  return agent;
}

/** A hub's way to send an op: a request on a socket connection, or a `POST /api/<op>`. */
export type Send = (op: string, args: unknown) => Promise<Answer>;

/** Sends reply n; resolves with n once it is answered. */
export function sendReply(send: Send, jobs: InertJob[], track: Track, tag: string): Promise<number> {
  const n = track.next++;
  const job = jobs[n % jobs.length]!;
  track.sent[n] = performance.now();
  return send("reply", { id: job.id, text: `r${n} ${TEXT}`, requestId: `${tag}-${n}` }).then((a) => {
    track.answered[n] = performance.now();
    if (!a.ok) {
      track.failed.add(n);
      track.error(a.code ?? "?", a.error);
    }
    return n;
  });
}

/** What a phase sends replies with: each slot keeps one in flight; `tag` makes their requestIds. */
export interface Load {
  d: BenchDaemon;
  slots: Send[];
  jobs: InertJob[];
  track: Track;
  tag: string;
  /** The event-loop probe (`--profile`): read (and reset) at a phase's start and end. */
  probe?: () => Promise<LoopDelay | null>;
}

export interface Busy {
  /** CPUs the rest of the machine used meanwhile, and the hypervisor took (see Contention). */
  otherCpus: number;
  stealCpus: number;
}

export interface Closed extends Busy {
  rate: number;
  daemonCpuUs: number;
  /** The benchmark's own CPU per reply (its hub client and the agents): the client's cost. */
  benchCpuUs: number;
  p50: number;
  p99: number;
  loopDelay?: LoopDelay | null;
}

/**
 * Closed loop: each hub connection keeps WINDOW replies in flight, a slot taken until its reply is
 * saved and acked. Replies answered but not yet acked are pending for their job: a loop on the
 * answers alone could outrun the acks and reach the 50-waiting limit, and in the long run no job
 * takes replies faster than its agent acks them.
 */
export async function closedLoop({ d, slots, jobs, track, tag, probe }: Load): Promise<Closed> {
  let pumping = true;
  const loops: Promise<void>[] = [];
  for (const send of slots)
    loops.push(
      (async () => {
        while (pumping) await track.untilAcked(await sendReply(send, jobs, track, tag));
      })(),
    );
  await sleep(WARM_MS);
  await probe?.();
  const answeredSoFar = () => track.answered.reduce((s, t) => s + (t === undefined ? 0 : 1), 0);
  const contention = new Contention([d.pid, "self"]);
  const [n0, a0, t0, c0, b0] = [track.next, answeredSoFar(), performance.now(), cpuMs(d.pid), cpuMs("self")];
  await sleep(MEASURE_MS);
  const [n1, a1, t1, c1, b1] = [track.next, answeredSoFar(), performance.now(), cpuMs(d.pid), cpuMs("self")];
  const busy = contention.end();
  const loopDelay = await probe?.();
  pumping = false;
  await Promise.all(loops);
  const lat = track.latencies(track.answered, n0, n1);
  const result: Closed = {
    rate: round(((a1 - a0) / (t1 - t0)) * 1000, 0),
    daemonCpuUs: round(((c1 - c0) * 1000) / (a1 - a0), 1),
    benchCpuUs: round(((b1 - b0) * 1000) / (a1 - a0), 1),
    p50: round(median(lat), 3),
    p99: round(percentile(lat, 99), 3),
    ...busy,
  };
  if (loopDelay) result.loopDelay = loopDelay;
  return result;
}

export interface Paced extends Busy {
  rate: number;
  answered: { p50: number; p99: number; max: number };
  delivered: { p50: number; p99: number; max: number };
  acked: { p50: number; p99: number; max: number };
  daemonCpuPct: number;
  /**
   * How late the benchmark's own event loop ran meanwhile (ms): an answer that arrives while its
   * loop is late is stamped late, so this much of the latencies above may be the client's.
   */
  benchLoopDelay: LoopDelay;
  loopDelay?: LoopDelay | null;
}

/** Open loop: PACED_RATE replies a second, each sent on time (a millisecond timer), answers or not. */
export async function paced({ d, slots, jobs, track, tag, probe }: Load): Promise<Paced> {
  const total = (PACED_RATE * PACED_MS) / 1000;
  const first = track.next;
  await probe?.();
  const contention = new Contention([d.pid, "self"]);
  const own = monitorEventLoopDelay({ resolution: 1 });
  own.enable();
  const [t0, c0] = [performance.now(), cpuMs(d.pid)];
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) * PACED_RATE) / 1000));
      for (; sent < due; sent++) void sendReply(slots[sent % slots.length]!, jobs, track, tag);
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  const [t1, c1] = [performance.now(), cpuMs(d.pid)];
  own.disable();
  const busy = contention.end();
  const loopDelay = await probe?.();
  await until("the paced replies answered and acked", () => track.settled(), 30000);
  const last = track.next;
  const summary = (stamps: number[]) => {
    const lat = track.latencies(stamps, first, last);
    return {
      p50: round(median(lat), 3),
      p99: round(percentile(lat, 99), 3),
      max: round(percentile(lat, 100), 3),
    };
  };
  const result: Paced = {
    rate: round((total / (t1 - t0)) * 1000, 0),
    answered: summary(track.answered),
    delivered: summary(track.delivered),
    acked: summary(track.acked),
    daemonCpuPct: round(((c1 - c0) / (t1 - t0)) * 100, 0),
    benchLoopDelay: loopLate(own),
    ...busy,
  };
  if (loopDelay) result.loopDelay = loopDelay;
  return result;
}
