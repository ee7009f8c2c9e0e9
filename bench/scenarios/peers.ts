/**
 * Peers: 100 sessions messaging each other within the rules (docs/protocol.md, "The peer ops").
 * Each session is an inert job spoken for on a raw connection that says `agentItems: true`, and
 * acks each item (`exact`) the moment it arrives. Every session sends its 30 messages of the
 * minute (the rate limit), each to a session chosen at random, 4 in flight per sender; every text
 * is unique, so none is a duplicate. Figures: items delivered per second over the burst, the time
 * from `send` to the receiver's `deliver` (p50, p99), and whether every item arrived exactly once.
 * No baseline: no bare program does what a peer item is (saved, then delivered, then acked).
 */
import { performance } from "node:perf_hooks";
import { type Figure, info, underTarget } from "../figures.js";
import { BenchDaemon, dispatchJobs, type InertJob, sleep } from "../harness.js";
import type { Conn } from "../lines.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { Contention, cpuMs, median, percentile, round } from "../stats.js";

const SESSIONS = 100;
const SENDS = 30; // LIMITS.sendsPerMinute: each sender's whole minute
// BENCH_PEERS_IN_FLIGHT changes the load: the time an item waits is mostly the queue the sends in
// flight make (docs/benchmarks.md, "`peers`").
const IN_FLIGHT = Number(process.env.BENCH_PEERS_IN_FLIGHT) || 4;
const TARGET_P99_MS = 10;

interface Peer {
  job: InertJob;
  conn: Conn;
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = await BenchDaemon.start({ profileDir: ctx.profileDir });
  const peers: Peer[] = [];
  try {
    ctx.log(`dispatching ${SESSIONS} jobs`);
    const jobs = await dispatchJobs(d, "inert", SESSIONS, 8);
    const sentAt = new Map<string, number>();
    const latency: number[] = [];
    const arrivals = new Map<string, number>();
    let ackErrors = 0;
    for (const job of jobs) {
      const conn = await d.connect();
      conn.onEvent = (e) => {
        if (e.event !== "deliver" || e.kind !== "message") return;
        const body = String(e.text).slice(String(e.text).indexOf("\n") + 1);
        arrivals.set(body, (arrivals.get(body) ?? 0) + 1);
        const t = sentAt.get(body);
        if (t !== undefined && arrivals.get(body) === 1) latency.push(performance.now() - t);
        void conn.request("ack", { id: job.id, token: job.token, seq: e.seq, exact: true }).then((a) => {
          if (!a.ok) ackErrors++;
        });
      };
      await conn.ok("hello", {
        protocol: 1,
        agent: { name: "bench-peer", version: "1" },
        capabilities: ["agent-items"],
      });
      await conn.ok("report", {
        id: job.id,
        token: job.token,
        report: { state: "working", agentItems: true },
      });
      peers.push({ job, conn });
    }
    ctx.log(`${SESSIONS} sessions each sending ${SENDS} messages, ${IN_FLIGHT} in flight`);
    const outcomes = new Map<string, number>();
    let firstError: string | null = null;
    const contention = new Contention([d.pid, "self"]);
    const c0 = cpuMs(d.pid);
    const t0 = performance.now();
    await Promise.all(
      peers.map(async (from, n) => {
        let next = 0;
        const worker = async () => {
          while (next < SENDS) {
            const i = next++;
            let to = Math.floor(Math.random() * (SESSIONS - 1));
            if (to >= n) to++;
            const text = `from ${from.job.id} #${i}: please look at server/core/peers/peers.ts line ${i}`;
            sentAt.set(text, performance.now());
            const a = await from.conn.request("send", { to: peers[to]!.job.id, text });
            const key = a.ok ? (a.result as { outcome: string }).outcome : `error ${a.code}`;
            outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
            if (!a.ok) firstError ??= `${a.code}: ${a.error}`;
          }
        };
        await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      }),
    );
    const sent = SESSIONS * SENDS;
    const deadline = performance.now() + 30_000;
    while (latency.length < sent && performance.now() < deadline) await sleep(10);
    const wall = performance.now() - t0;
    const cpu = cpuMs(d.pid) - c0;
    const busy = contention.end();
    await sleep(300); // a late double would show now
    const lost = [...sentAt.keys()].filter((t) => !arrivals.has(t)).length;
    const doubled = [...arrivals.values()].filter((n) => n > 1).length;
    const rate = (latency.length / wall) * 1000;
    ctx.log(
      `${latency.length} of ${sent} delivered in ${round(wall / 1000, 2)} s (${round(rate, 0)}/s); ` +
        `send → deliver p50 ${round(median(latency), 2)} ms, p99 ${round(percentile(latency, 99), 2)} ms; ` +
        `lost ${lost}, doubled ${doubled}; outcomes ${JSON.stringify(Object.fromEntries(outcomes))}; ` +
        `other processes used ${busy.otherCpus} CPUs`,
    );
    if (firstError) throw new Error(`a send was refused: ${firstError}`);
    const S = "peers";
    const exactlyOnce: Figure = {
      scenario: S,
      name: "items lost or doubled",
      unit: "",
      roost: lost + doubled,
      baseline: null,
      ratio: null,
      target: "0",
      met: lost + doubled === 0 && ackErrors === 0,
    };
    const figures: Figure[] = [
      info(S, `items delivered/s (${SESSIONS} sessions, ${sent} messages)`, "/s", round(rate, 0)),
      info(S, "send → deliver, p50", "ms", round(median(latency), 2)),
      underTarget(S, "send → deliver, p99", "ms", round(percentile(latency, 99), 2), TARGET_P99_MS),
      info(S, "daemon CPU per item (send, save, deliver, ack)", "µs", round((cpu * 1000) / sent, 0)),
      exactlyOnce,
    ];
    return {
      figures,
      detail: {
        sessions: SESSIONS,
        sends: SENDS,
        inFlight: IN_FLIGHT,
        delivered: latency.length,
        lost,
        doubled,
        ackErrors,
        outcomes: Object.fromEntries(outcomes),
        wallMs: round(wall, 0),
        daemonCpuMs: round(cpu, 0),
        ...busy,
      },
    };
  } finally {
    for (const p of peers) p.conn.close();
  }
}

export const peersScenario: Scenario = {
  name: "peers",
  aliases: [],
  title: "peers: 100 sessions messaging each other within the rules",
  run,
};
