// A job's screen: a headless xterm fed with everything the job prints, so the host can say what
// the job's terminal shows (as text lines, or as ANSI that redraws it) without any viewer.
import { SerializeAddon } from "@xterm/addon-serialize";
import xterm from "@xterm/headless";
import { SCREEN_INTERVAL_MS } from "./wire.js";

// @xterm/headless is a CommonJS bundle whose exports Node's ESM loader cannot name.
const { Terminal } = xterm;
type Terminal = InstanceType<typeof Terminal>;

// Flow control. xterm parses in slices of its own time and refuses (throws on) a write while 50 MB
// wait unparsed, so a job printing faster than it parses is paused (like a terminal that stops
// reading) while more than FLOW_HIGH characters wait, and goes on at FLOW_LOW.
const FLOW_STEP = 256 * 1024;
const FLOW_HIGH = 4 * 1024 * 1024;
const FLOW_LOW = 1024 * 1024;

export interface ScreenOptions {
  cols: number;
  rows: number;
  scrollback: number;
  quietMs: number;
  /** The screen changed: called at most every SCREEN_INTERVAL_MS while output flows, and on turning quiet. */
  onChange: (screen: Screen) => void;
  /**
   * Asked once a quiet spell has passed: whether the job is still at work though it prints nothing
   * (a command in its foreground, foreground.ts). While it is, the screen stays busy and asks again
   * after another spell.
   */
  running?: () => boolean;
  /** Stop (true) or go on (false) reading the job's output. */
  onFlow: (paused: boolean) => void;
}

export class Screen {
  private readonly term: Terminal;
  private readonly serializer = new SerializeAddon();
  private readonly quietMs: number;
  private readonly onChange: (screen: Screen) => void;
  private readonly onFlow: (paused: boolean) => void;
  private readonly running: () => boolean;
  private disposed = false;
  /** True from output (or typing) until quietMs without any, and nothing running in the foreground. */
  busy = false;
  private lastOutput = 0;
  private quietTimer: NodeJS.Timeout | null = null;
  /** A command held the foreground at the last look: what it printed last may still be unread. */
  private heldAtLastLook = false;
  // Change notices: `chunks` counts writes, `noticed` is the count a pending or last notice covers.
  private chunks = 0;
  private noticed = 0;
  private noticePending = false;
  private lastNotice = 0;
  private noticeTimer: NodeJS.Timeout | null = null;
  // Flow control: characters written since the last mark, and written but not yet known parsed.
  private sinceMark = 0;
  private unparsed = 0;
  private paused = false;

  constructor(opts: ScreenOptions) {
    this.term = new Terminal({
      cols: opts.cols,
      rows: opts.rows,
      scrollback: opts.scrollback,
      allowProposedApi: true, // headless puts `buffer` behind it
      logLevel: "off",
    });
    this.term.loadAddon(this.serializer);
    this.quietMs = opts.quietMs;
    this.onChange = opts.onChange;
    this.onFlow = opts.onFlow;
    this.running = opts.running ?? (() => false);
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Takes in a chunk of the job's output (parsed later, in order). */
  write(data: string): void {
    if (this.disposed) return;
    try {
      this.term.write(data);
    } catch {
      return; // 50 MB behind despite the pause: the screen misses this chunk rather than the host failing
    }
    this.chunks++;
    this.awake();
    this.scheduleNotice();
    this.sinceMark += data.length;
    if (this.sinceMark >= FLOW_STEP) this.markFlow();
  }

  /**
   * The job may be at work though it printed nothing (it was just started, typed into, or found
   * running a command): it is busy until a quiet spell has passed, as after output, and the
   * spell's end is told.
   */
  wake(): void {
    if (!this.disposed) this.awake();
  }

  private awake(): void {
    this.lastOutput = Date.now();
    this.busy = true;
    this.quietTimer ??= setTimeout(() => this.checkQuiet(), this.quietMs);
  }

  /**
   * Calls `fn` once everything written so far is parsed, and before anything written after this
   * call is. So what `fn` reads of the screen is exactly the output up to now.
   */
  whenParsed(fn: () => void): void {
    if (this.disposed) throw new Error("screen is gone");
    this.term.write("", () => {
      try {
        fn();
      } catch {
        // A throw would leave xterm's write loop stuck; callers catch what they need to answer.
      }
    });
  }

  /** Resizes at this point of the output: what was written before is parsed at the old size. */
  resize(cols: number, rows: number): void {
    this.whenParsed(() => {
      if (!this.disposed) this.term.resize(cols, rows);
    });
  }

  /** The visible rows as text; read it inside whenParsed for an exact answer. */
  text(): { lines: string[]; cursorY: number; cursorX: number; wrapped: number[] } {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    const wrapped: number[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      const line = buf.getLine(buf.baseY + y);
      if (line?.isWrapped) wrapped.push(y);
      // A row the next one continues keeps its trailing spaces: they are inside the line.
      const continued = buf.getLine(buf.baseY + y + 1)?.isWrapped === true;
      lines.push(line?.translateToString(!continued) ?? "");
    }
    return { lines, cursorY: buf.cursorY, cursorX: buf.cursorX, wrapped };
  }

  /** The screen (scrollback, modes and cursor too) as ANSI; read it inside whenParsed. */
  serialize(): string {
    return this.serializer.serialize();
  }

  /** Lets go of the terminal once what is pending is parsed, so every whenParsed waiting is called. */
  dispose(): void {
    if (this.disposed) return;
    this.term.write("", () => this.term.dispose());
    this.disposed = true;
    clearTimeout(this.quietTimer ?? undefined);
    clearTimeout(this.noticeTimer ?? undefined);
  }

  private scheduleNotice(): void {
    if (this.noticePending) return;
    this.noticePending = true;
    const wait = this.lastNotice + SCREEN_INTERVAL_MS - Date.now();
    if (wait > 0) {
      this.noticeTimer = setTimeout(() => {
        this.noticeTimer = null;
        this.notice();
      }, wait);
    } else {
      this.notice();
    }
  }

  /** Tells once what is written so far is parsed; then again later if more came meanwhile. */
  private notice(): void {
    if (this.disposed) return;
    const upTo = this.chunks;
    this.whenParsed(() => {
      this.noticePending = false;
      this.noticed = upTo;
      this.lastNotice = Date.now();
      if (this.disposed) return;
      if (this.chunks > this.noticed) this.scheduleNotice();
      this.onChange(this);
    });
  }

  // One timer per busy job, pushed back lazily: a chunk only notes the time. A command that held
  // the foreground at the last look and has ended since gets one more spell: its last words (an
  // `echo` just before it exits) may still be in the terminal, not yet read, when its shell takes
  // the foreground back, and a screen said quiet then would lack them.
  private checkQuiet(): void {
    const left = this.lastOutput + this.quietMs - Date.now();
    if (left > 0) {
      this.quietTimer = setTimeout(() => this.checkQuiet(), left);
      return;
    }
    const held = this.running();
    if (held || this.heldAtLastLook) {
      this.heldAtLastLook = held;
      this.quietTimer = setTimeout(() => this.checkQuiet(), this.quietMs);
      return;
    }
    this.quietTimer = null;
    this.busy = false;
    // The notice that says so; one waiting for its interval is now due.
    if (this.noticeTimer) {
      clearTimeout(this.noticeTimer);
      this.noticeTimer = null;
      this.noticePending = false;
    }
    if (!this.noticePending) {
      this.noticePending = true;
      this.notice();
    }
  }

  private markFlow(): void {
    const n = this.sinceMark;
    this.sinceMark = 0;
    this.unparsed += n;
    this.whenParsed(() => {
      this.unparsed -= n;
      if (this.paused && this.unparsed <= FLOW_LOW && !this.disposed) {
        this.paused = false;
        this.onFlow(false);
      }
    });
    if (!this.paused && this.unparsed > FLOW_HIGH) {
      this.paused = true;
      this.onFlow(true);
    }
  }
}
