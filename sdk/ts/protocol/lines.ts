/**
 * JSON lines in (docs/protocol.md, "The socket"): the one splitter of every roost connection, both
 * ends (the daemon's socket, the clients, the pty host and the daemon's side of it).
 *
 * Bytes are split at `\n` and nowhere else: never at U+2028 or U+2029, which a JSON string may hold
 * as they are and which `node:readline` would end a line at. A line is decoded once whole, so a
 * character split across chunks is never broken. A line longer than the bound is an error for its
 * reader, never a buffer that grows without end.
 *
 * No imports: the agent client runs on node alone and uses this as the daemon does.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside a line that went over the bound: dropped up to its end. */
  private skipping = false;
  private readonly lines: string[] = [];
  private head = 0;

  /** `maxBytes`: the bound of a line (LIMITS.lineBytes where the protocol sets one; none by default). */
  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {}

  /**
   * Takes a chunk; false when a line in it went over the bound. That line is dropped (up to its
   * end, in later chunks too); the lines after it are read as usual.
   */
  push(chunk: Buffer): boolean {
    let ok = true;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      if (this.size + piece.length > this.maxBytes) {
        this.drop();
        ok = false;
        continue;
      }
      const line = this.size === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.lines.push(line.toString("utf8"));
      this.parts = [];
      this.size = 0;
    }
    if (start < chunk.length && !this.skipping) {
      const rest = chunk.subarray(start);
      this.size += rest.length;
      if (this.size > this.maxBytes) {
        this.drop();
        this.skipping = true;
        return false;
      }
      this.parts.push(rest);
    }
    return ok;
  }

  /** The next complete line, or undefined. */
  next(): string | undefined {
    if (this.head >= this.lines.length) return undefined;
    const line = this.lines[this.head++];
    if (this.head === this.lines.length) {
      this.lines.length = 0;
      this.head = 0;
    }
    return line;
  }

  /** Complete lines not yet taken. */
  get waiting(): number {
    return this.lines.length - this.head;
  }

  private drop(): void {
    this.parts = [];
    this.size = 0;
  }
}
