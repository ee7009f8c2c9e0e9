/**
 * A time source the test moves by hand (server/core/clock.ts's `TimeSource`): hours pass in no
 * time, and what is due fires in order as time passes it.
 */
import type { TimeSource } from "../../server/core/clock.js";

export class FakeTime implements TimeSource {
  private timers: { at: number; fire: () => void }[] = [];
  /** How many timers were ever asked for. */
  asked = 0;

  constructor(private t: number) {}

  now(): number {
    return this.t;
  }

  after(ms: number, fire: () => void): () => void {
    const timer = { at: this.t + Math.max(0, ms), fire };
    this.timers.push(timer);
    this.asked++;
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }

  /** Timers waiting now. */
  get waiting(): number {
    return this.timers.length;
  }

  /** Moves time on by `ms`, firing each timer at its time, soonest first. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fire();
    }
    this.t = end;
  }

  /** Moves time to `iso`. */
  to(iso: string): void {
    this.advance(Date.parse(iso) - this.t);
  }
}
