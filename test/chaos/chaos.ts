/**
 * What the chaos cases share: their seed and how long they run (from the environment, so that a
 * long run is the same cases with other numbers), a seeded random source, and a report of what
 * each case did and what held, printed and (with ROOST_CHAOS_REPORT) kept as JSON lines.
 *
 *   ROOST_CHAOS_SEED      the base seed (default 1); each case prints its own
 *   ROOST_CHAOS_SCALE     each case's fault count (its short one, for CI) times this (default 1)
 *   ROOST_CHAOS_MINUTES   a case goes on injecting faults until this much time has passed too
 *   ROOST_CHAOS_REPORT    a file each case appends its figures to (docs/reliability.md's table)
 */
import fs from "node:fs";
import path from "node:path";
import { FIXTURES, type TestDaemon } from "../helpers/daemon.js";
import { RawClient } from "../helpers/raw-client.js";

export const SEED = Number(process.env.ROOST_CHAOS_SEED ?? 1);
export const SCALE = Math.max(1, Number(process.env.ROOST_CHAOS_SCALE ?? 1));
const MINUTES = Number(process.env.ROOST_CHAOS_MINUTES ?? 0);

/** How many faults a case injects: `short` in CI, SCALE times that on demand; at least MINUTES long. */
export function faultPlan(short: number): { count: number; untilMs: number } {
  return { count: Math.round(short * SCALE), untilMs: Date.now() + MINUTES * 60_000 };
}

/** Whether a case with `plan` has more faults to inject after `done` of them. */
export const moreFaults = (plan: { count: number; untilMs: number }, done: number) =>
  done < plan.count || Date.now() < plan.untilMs;

/** A case's own seed: the base and the case's number, so that one case replays alone. */
export const caseSeed = (n: number) => SEED * 1000 + n;

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A case's figures: printed with its seed (to replay it), and appended to ROOST_CHAOS_REPORT. */
export function reportCase(name: string, seed: number, figures: Record<string, unknown>): void {
  const line = { case: name, seed, at: new Date().toISOString(), ...figures };
  console.log(`chaos: ${name}: seed ${seed} (ROOST_CHAOS_SEED=${SEED}): ${JSON.stringify(figures)}`);
  const file = process.env.ROOST_CHAOS_REPORT;
  if (file) fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** An op on a connection of its own: the daemon may have been restarted since the last one. */
export async function once(daemon: TestDaemon, op: string, args: unknown): Promise<any> {
  const c = await RawClient.connect(daemon.socket);
  try {
    return await c.ok(op, args);
  } finally {
    c.close();
  }
}

export const rowOf = async (daemon: TestDaemon, id: string) => (await once(daemon, "list", { id })).rows[0];

/** The test agent on the TypeScript client (test/fixtures/sdk-agent.mjs), peer items to its item handler. */
export const CHAOS_AGENT = {
  command: [process.execPath, path.join(FIXTURES, "sdk-agent.mjs")],
  task: "type",
  protocol: true,
  env: { AGENT_ITEMS: "1" },
};
