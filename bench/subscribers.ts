/**
 * The fan-out scenario's WebSocket subscribers, in a process of their own (so that their work and
 * their event-loop delay are not the report senders', and their CPU is counted apart):
 *
 *     node dist/bench/subscribers.js WS_URL N      (the token on stdin's first line)
 *
 * Opens N WebSockets to `/api/subscribe` with the owner's token, waits for each one's first
 * message (the subscribe answer), prints `ready`. Then, on stdin: `start` begins a measured
 * window, `stop` ends it and prints one JSON line of what was seen.
 *
 * A report's summary carries `fan a=AGENT k=SEQ t=EPOCH_MS` (the send time, on the wall clock
 * with performance.now()'s resolution: performance.timeOrigin + performance.now() in both
 * processes). A `row` push is matched by its text, without parsing the row: latency = receive −
 * send of the value it carries. Row pushes are coalesced per turn of the daemon's event loop, so a
 * subscriber may see an agent's k+2 after its k: the skipped values are counted as coalesced.
 */
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import readline from "node:readline";
import WebSocket from "ws";
import { loopLate } from "./stats.js";

const [url, nArg] = process.argv.slice(2);
const N = Number(nArg);
const now = () => performance.timeOrigin + performance.now();
const MARK = Buffer.from("fan a=");
const PATTERN = /^fan a=(\d+) k=(\d+) t=([\d.]+)/;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

class Sub {
  measuring = false;
  messages = 0;
  rows = 0;
  matched = 0;
  coalesced = 0;
  stale = 0;
  bytes = 0;
  readonly latencies: number[] = [];
  private readonly last = new Map<number, number>();

  constructor(readonly ws: WebSocket) {}

  receive(data: Buffer): void {
    const t = now();
    if (!this.measuring) {
      this.track(data, t, false);
      return;
    }
    this.messages++;
    this.bytes += data.length;
    this.track(data, t, true);
  }

  private track(data: Buffer, t: number, count: boolean): void {
    const at = data.indexOf(MARK);
    if (at === -1) {
      if (count && data.includes('"event":"row"')) this.rows++;
      return;
    }
    const m = PATTERN.exec(data.toString("latin1", at, at + 64));
    if (!m) return;
    const a = Number(m[1]);
    const k = Number(m[2]);
    const prev = this.last.get(a);
    this.last.set(a, Math.max(k, prev ?? k));
    if (!count) return;
    this.rows++;
    if (prev !== undefined && k <= prev) {
      this.stale++; // the same value again (the row changed for another reason)
      return;
    }
    if (prev !== undefined) this.coalesced += k - prev - 1;
    this.matched++;
    this.latencies.push(t - Number(m[3]));
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

async function main(): Promise<void> {
  const lines = readline.createInterface({ input: process.stdin });
  const it = lines[Symbol.asyncIterator]();
  const token = String((await it.next()).value ?? "").trim();
  const subs: Sub[] = [];
  await Promise.all(
    Array.from(
      { length: N },
      () =>
        new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(url!, { headers: { authorization: `Bearer ${token}` } });
          const sub = new Sub(ws);
          subs.push(sub);
          let first = true;
          ws.on("message", (data: Buffer) => {
            if (first) {
              first = false;
              const answer = JSON.parse(data.toString()) as { ok: boolean; error?: string };
              if (answer.ok) resolve();
              else reject(new Error(`subscribe: ${answer.error}`));
              return;
            }
            sub.receive(data);
          });
          ws.on("error", reject);
          ws.on("close", (code, why) => {
            if (first) reject(new Error(`closed ${code} ${why}`));
          });
        }),
    ),
  );
  process.stdout.write("ready\n");
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let t0 = 0;
  let c0 = 0;
  for (;;) {
    const { value, done } = await it.next();
    if (done) break;
    const cmd = String(value).trim();
    if (cmd === "start") {
      for (const s of subs) {
        s.measuring = true;
        s.messages = s.rows = s.matched = s.coalesced = s.stale = s.bytes = 0;
        s.latencies.length = 0;
      }
      loop.reset();
      loop.enable();
      t0 = performance.now();
      c0 = cpuMs();
    } else if (cmd === "stop") {
      const wall = performance.now() - t0;
      const cpu = cpuMs() - c0;
      loop.disable();
      for (const s of subs) s.measuring = false;
      const all = Float64Array.from(subs.flatMap((s) => s.latencies)).sort();
      const sum = (f: (s: Sub) => number) => subs.reduce((acc, s) => acc + f(s), 0);
      const r3 = (v: number) => Math.round(v * 1000) / 1000;
      const closed = subs.filter((s) => s.ws.readyState !== WebSocket.OPEN).length;
      process.stdout.write(
        `${JSON.stringify({
          wallMs: Math.round(wall),
          cpuPct: Math.round((cpu / wall) * 100),
          messages: sum((s) => s.messages),
          bytes: sum((s) => s.bytes),
          rows: sum((s) => s.rows),
          matched: sum((s) => s.matched),
          coalesced: sum((s) => s.coalesced),
          stale: sum((s) => s.stale),
          closed,
          latency: {
            p50: r3(percentile(all, 50)),
            p90: r3(percentile(all, 90)),
            p99: r3(percentile(all, 99)),
            max: r3(percentile(all, 100)),
          },
          loopDelay: loopLate(loop),
        })}\n`,
      );
    } else if (cmd === "exit") break;
  }
  for (const s of subs) s.ws.terminate();
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`subscribers: ${err?.stack ?? err}\n`);
  process.exit(1);
});
