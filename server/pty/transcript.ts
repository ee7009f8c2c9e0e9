// A job's transcript: everything it printed, appended to jobs/<jobId>/transcript.log without
// waiting on the disk, and bounded: past `bound` bytes the file becomes transcript.1.log (replacing
// an older one) and a new one is begun. So the newest output is always in transcript.log, and a
// job's transcript takes at most twice the bound on disk.
import * as fs from "node:fs";
import * as path from "node:path";
import { openOwn } from "../home.js";

/** Unwritten bytes past which output is left out rather than held: the disk has stalled. */
const MAX_PENDING = 16 * 1024 * 1024;

export class Transcript {
  private readonly file: string;
  private readonly older: string;
  private stream: fs.WriteStream | null = null;
  /** Bytes in the current file, counting those still on their way. */
  private size = 0;
  private dropped = 0;

  constructor(
    dir: string,
    private readonly bound: number,
    private readonly log: (msg: string) => void,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = path.join(dir, "transcript.log");
    this.older = path.join(dir, "transcript.1.log");
    this.open();
    // A job started again (respawn) goes on in the same transcript: a line says where.
    if (this.size > 0) this.put(Buffer.from(`\r\n[roost: started again ${new Date().toISOString()}]\r\n`));
  }

  append(data: string): void {
    if (!this.stream) return;
    if (this.stream.writableLength > MAX_PENDING) {
      this.dropped += Buffer.byteLength(data);
      return;
    }
    if (this.dropped > 0) {
      const note = `\r\n[roost: ${this.dropped} bytes of output left out: the disk was too slow]\r\n`;
      this.dropped = 0;
      this.put(Buffer.from(note));
    }
    this.put(Buffer.from(data));
  }

  /** Ends the file once what was appended is written. */
  close(): void {
    this.stream?.end();
    this.stream = null;
  }

  private put(bytes: Buffer): void {
    let rest = bytes;
    while (rest.length > 0 && this.stream) {
      if (this.size >= this.bound && !this.rotate()) {
        this.stream?.write(rest); // could not begin a new file: better too long than lost
        this.size += rest.length;
        return;
      }
      const room = this.bound - this.size;
      const part = rest.length <= room ? rest : rest.subarray(0, room);
      this.stream?.write(part);
      this.size += part.length;
      rest = rest.subarray(part.length);
    }
  }

  // The rename is safe with writes still queued: they go to the open file, now transcript.1.log.
  private rotate(): boolean {
    try {
      fs.renameSync(this.file, this.older);
    } catch (err) {
      this.log(`cannot rotate ${this.file}: ${String(err)}`);
      return false;
    }
    this.stream?.end();
    this.stream = null;
    this.open();
    return this.stream !== null;
  }

  // Opened here, not by the stream, so the file exists (and has its mode) before any rename.
  private open(): void {
    let fd: number;
    try {
      fd = openOwn(this.file, fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_WRONLY);
    } catch (err) {
      this.log(`cannot open ${this.file}: ${String(err)}`);
      return;
    }
    try {
      this.size = fs.fstatSync(fd).size; // an earlier run of the job may have left one
    } catch {
      this.size = 0;
    }
    const stream = fs.createWriteStream("", { fd });
    stream.on("error", (err) => {
      this.log(`cannot write ${this.file}: ${err.message}`);
      if (this.stream === stream) this.stream = null;
      stream.destroy();
    });
    this.stream = stream;
  }
}
