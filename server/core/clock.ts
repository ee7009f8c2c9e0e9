/**
 * The daemon's clock (docs/design.md, "The parts": one timer for every due thing):
 * the time for what roost does at a time (schedules, the concierge's standing orders), and one
 * timer, armed for the soonest of them, however many there are.
 *
 * The time source is injectable: the real one; a fake the unit tests move by hand
 * (test/helpers/fake-time.ts); or, for tests of a whole daemon only, one that `ROOST_TEST_CLOCK`
 * sets at start (`at=<ISO time>`, `rate=<n>`: the daemon's clock starts at that time and runs n
 * times as fast), so that a test sees an `every 1m` run each second, or a daemon come back after
 * hours away, without waiting. It changes when schedules run, nothing else; the daemon says so on
 * stderr when it is set.
 */
import { ConfigError } from "../config.js";

export interface TimeSource {
  /** Milliseconds since the epoch, by this source. */
  now(): number;
  /** Calls `fire` once, after `ms` of this source's time; returns how to cancel it. */
  after(ms: number, fire: () => void): () => void;
}

/** setTimeout's longest wait (about 24.8 days): a later time is waited for in steps. */
const LONGEST_WAIT = 2 ** 31 - 1;

function realTimer(ms: number, fire: () => void): () => void {
  const timer = setTimeout(fire, Math.min(Math.max(0, Math.ceil(ms)), LONGEST_WAIT));
  timer.unref(); // the daemon lives on its sockets, not on a due time
  return () => clearTimeout(timer);
}

export const realTime = (): TimeSource => ({ now: () => Date.now(), after: realTimer });

/** `ROOST_TEST_CLOCK` (test only): a clock from `at`, `rate` times as fast as the real one. */
export function testTime(at: number, rate: number, realNow: () => number = Date.now): TimeSource {
  const since = realNow();
  return {
    now: () => at + (realNow() - since) * rate,
    after: (ms, fire) => realTimer(ms / rate, fire),
  };
}

/** The daemon's time source: the real one, unless `ROOST_TEST_CLOCK` (test only) is set. */
export function timeSourceOf(env: NodeJS.ProcessEnv): { source: TimeSource; test: string | null } {
  const spec = env.ROOST_TEST_CLOCK;
  if (!spec) return { source: realTime(), test: null };
  let at = Date.now();
  let rate = 1;
  for (const part of spec.split(",")) {
    const [key, value = ""] = part.split("=").map((s) => s.trim());
    if (key === "at" && !Number.isNaN(Date.parse(value))) at = Date.parse(value);
    else if (key === "rate" && Number(value) > 0 && Number.isFinite(Number(value))) rate = Number(value);
    else
      throw new ConfigError(
        `ROOST_TEST_CLOCK=${spec}: ${JSON.stringify(part)} is not at=<ISO time> or rate=<n> (a test's clock; unset it)`,
      );
  }
  return { source: testTime(at, rate), test: `from ${new Date(at).toISOString()}, ${rate}x` };
}

interface DueThing {
  at: number;
  fire: (now: Date) => void;
}

export class Clock {
  private readonly due = new Map<string, DueThing>();
  private cancel: (() => void) | null = null;
  /** When the one timer is armed for (Infinity: not armed). */
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(readonly source: TimeSource = realTime()) {}

  now(): Date {
    return new Date(this.source.now());
  }

  /** `key` is next due at `at` (null: no more), when `fire` runs once, given the time it ran. */
  set(key: string, at: Date | null, fire: (now: Date) => void): void {
    if (at === null) this.due.delete(key);
    else this.due.set(key, { at: at.getTime(), fire });
    this.arm();
  }

  /** Timers armed: at most one, whatever is due. */
  get timers(): number {
    return this.cancel ? 1 : 0;
  }

  close(): void {
    this.cancel?.();
    this.cancel = null;
    this.due.clear();
  }

  /** The one timer, for the soonest due thing (left as it is when that has not changed). */
  private arm(): void {
    let soonest = Number.POSITIVE_INFINITY;
    for (const d of this.due.values()) soonest = Math.min(soonest, d.at);
    if (soonest === this.armedFor && this.cancel) return;
    this.cancel?.();
    this.cancel = null;
    this.armedFor = soonest;
    if (soonest === Number.POSITIVE_INFINITY) return;
    this.cancel = this.source.after(soonest - this.source.now(), () => this.tick());
  }

  /** Fires what is due (a timer may wake early, or in steps: then nothing is, and it is armed again). */
  private tick(): void {
    this.cancel = null;
    const now = this.source.now();
    const fired = [...this.due].filter(([, d]) => d.at <= now);
    for (const [key] of fired) this.due.delete(key);
    for (const [key, d] of fired) {
      try {
        d.fire(new Date(now));
      } catch (err) {
        console.error(`roost: ${key}, due at ${new Date(d.at).toISOString()}, failed:`, err);
      }
    }
    this.arm();
  }
}
