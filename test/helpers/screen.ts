/** A real headless terminal for tests: draws what a viewer of a job's terminal would see. */
import xterm from "@xterm/headless";
import type { RawClient } from "./raw-client.js";

export class TestScreen {
  readonly term: xterm.Terminal;

  constructor(cols: number, rows: number) {
    this.term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
  }

  write(data: string): Promise<void> {
    return new Promise((resolve) => this.term.write(data, resolve));
  }

  /** The visible rows as text, trailing spaces trimmed. */
  lines(): string[] {
    const buf = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++)
      out.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? "");
    return out;
  }

  text(): string {
    return this.lines().join("\n");
  }

  /** Every row it holds, scrollback first. */
  allLines(): string[] {
    const buf = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < buf.length; y++) out.push(buf.getLine(y)?.translateToString(true) ?? "");
    return out;
  }

  cursorY(): number {
    return this.term.buffer.active.cursorY;
  }

  cursor(): [number, number] {
    return [this.term.buffer.active.cursorX, this.term.buffer.active.cursorY];
  }
}

/** A job's terminal as a viewer sees it: the snapshot, then every `output` event since. */
export class AttachedScreen extends TestScreen {
  private seen: number;

  constructor(
    private readonly c: RawClient,
    readonly id: string,
    cols: number,
    rows: number,
    from: number,
  ) {
    super(cols, rows);
    this.seen = from;
  }

  /** Draws the output events that arrived since the last call. */
  async catchUp(): Promise<this> {
    while (this.seen < this.c.events.length) {
      const e = this.c.events[this.seen++];
      if (e.event === "output" && e.id === this.id) await this.write(e.data);
    }
    return this;
  }
}

export async function attachScreen(c: RawClient, id: string): Promise<AttachedScreen> {
  const from = c.events.length;
  const { screen, cols, rows } = await c.ok("attach", { id });
  const view = new AttachedScreen(c, id, cols, rows, from);
  await view.write(screen);
  return view;
}
