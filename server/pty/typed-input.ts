/**
 * What is typed into a job's terminal, written as fast as the terminal takes it and no faster.
 *
 * node-pty's own `write` blocks the whole process once the terminal's input buffer is full (a job
 * that reads nothing, and 20 KB typed into it): the pty host then answered nothing, for any job,
 * ever again. So input goes to the terminal's descriptor directly, which is non-blocking: what
 * the kernel does not take now waits here, in order, and is tried again shortly. What waits is
 * bounded; past it, typing is refused (`busy`) until the job reads.
 */
import fs from "node:fs";
import type { IPty } from "@lydell/node-pty";

/** The most that may wait for a job that does not read: a few pastes' worth. */
export const INPUT_WAITING_MAX = 1024 * 1024;
const RETRY_FIRST_MS = 10;
const RETRY_MAX_MS = 250;

/** A refusal the daemon hands on with its code (wire.ts: an error answer's `code`). */
export class HostRefusal extends Error {
  constructor(
    readonly code: "busy",
    message: string,
  ) {
    super(message);
  }
}

export class TypedInput {
  private readonly waiting: Buffer[] = [];
  private waitingBytes = 0;
  private retry: NodeJS.Timeout | null = null;
  private retryMs = RETRY_FIRST_MS;

  /** `fd`: the terminal's master side (node-pty 1.1's `_fd`; its `write` if it has none). */
  constructor(
    private readonly pty: IPty,
    private readonly fd: number | null = descriptorOf(pty),
  ) {}

  write(data: string): void {
    if (this.fd === null) {
      this.pty.write(data);
      return;
    }
    const bytes = Buffer.from(data, "utf8");
    if (this.waitingBytes + bytes.length > INPUT_WAITING_MAX)
      throw new HostRefusal(
        "busy",
        `the job is not reading what is typed into it (${this.waitingBytes} bytes wait): try again once it does`,
      );
    this.waiting.push(bytes);
    this.waitingBytes += bytes.length;
    if (!this.retry) this.flush();
  }

  /** The job ended: what waits is dropped with it. */
  close(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.waiting.length = 0;
    this.waitingBytes = 0;
  }

  private flush(): void {
    this.retry = null;
    while (this.waiting.length > 0) {
      const head = this.waiting[0]!;
      let written: number;
      try {
        written = fs.writeSync(this.fd!, head);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "EAGAIN" || code === "EWOULDBLOCK") this.later();
        else this.close(); // EIO and the like: the terminal is gone, and its exit follows
        return;
      }
      this.waitingBytes -= written;
      if (written < head.length) this.waiting[0] = head.subarray(written);
      else this.waiting.shift();
      this.retryMs = RETRY_FIRST_MS;
    }
  }

  /** The kernel's buffer is full: tried again, less often the longer the job does not read. */
  private later(): void {
    this.retry = setTimeout(() => this.flush(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }
}

function descriptorOf(pty: IPty): number | null {
  const fd = (pty as unknown as { _fd?: unknown })._fd;
  return typeof fd === "number" && process.platform !== "win32" ? fd : null;
}
