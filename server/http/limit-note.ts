/**
 * A line in the daemon's log when a limit is reached, at most once per window with a count: a
 * flood reaches a limit thousands of times a second, and must not fill the log (or the disk) too.
 */
export const NOTE_WINDOW_MS = 10_000;

export class LimitNote {
  /** Hits since the last line, while a window is open. */
  private count = 0;
  private window: NodeJS.Timeout | null = null;

  constructor(
    private readonly what: string,
    private readonly windowMs = NOTE_WINDOW_MS,
  ) {}

  /** The limit was reached once more: said now if nothing was said this window, else counted. */
  hit(): void {
    if (this.window) {
      this.count++;
      return;
    }
    console.error(`roost: http: limit reached: ${this.what} (said at most every ${this.windowMs / 1000} s)`);
    this.open();
  }

  /** At the window's end, the count of what it did not say, and a new window if there was any. */
  private open(): void {
    this.window = setTimeout(() => {
      this.window = null;
      if (this.count === 0) return;
      const n = this.count;
      this.count = 0;
      console.error(
        `roost: http: limit reached: ${this.what} (${n} more time${n === 1 ? "" : "s"} in ${this.windowMs / 1000} s)`,
      );
      this.open();
    }, this.windowMs);
    this.window.unref(); // never what keeps the daemon up
  }

  stop(): void {
    if (this.window) clearTimeout(this.window);
    this.window = null;
  }
}
