/**
 * JSON lines in (agent-protocol.md, "The wire"): bytes are split at `\n`; a line longer than the
 * limit is an error for its connection (the caller ends it), never a buffer that grows without end.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private readonly lines: string[] = [];
  private head = 0;

  constructor(private readonly maxBytes: number) {}

  /** Takes a chunk; false when the line being read is over the limit. */
  push(chunk: Buffer): boolean {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.maxBytes) return false;
      const line = this.size === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.lines.push(line.toString("utf8"));
      this.parts = [];
      this.size = 0;
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.size += rest.length;
      if (this.size > this.maxBytes) return false;
      this.parts.push(rest);
    }
    return true;
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

  get waiting(): number {
    return this.lines.length - this.head;
  }
}
