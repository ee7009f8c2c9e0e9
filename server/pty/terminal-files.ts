// What the pty host keeps of a job's terminal outside node-pty: its own fd of the slave side, and
// the job's exit, written durably to jobs/<jobId>/exit.json.
import * as fs from "node:fs";
import * as path from "node:path";
import type { IPty } from "@lydell/node-pty";
import { openOwn } from "../home.js";
import type { ExitInfo } from "./wire.js";

/** The terminal's slave side (`/dev/pts/N`): node-pty has it, but its types do not say so. */
export const ptsNameOf = (p: IPty): string | null => (p as IPty & { ptsName?: string }).ptsName ?? null;

// When a job's last slave fd closes, Linux can drop output still queued in the pty, so a job's
// final lines (often its error) went missing. Holding a slave fd of our own keeps the master
// readable until the host has read it to the end (see Jobs.drain). Non-blocking: the host writes
// DRAINED through it, and must never wait on a full terminal.
export function holdSlave(p: IPty): number | null {
  const pts = ptsNameOf(p);
  const { O_RDWR, O_NOCTTY, O_NONBLOCK } = fs.constants;
  try {
    return pts ? fs.openSync(pts, O_RDWR | O_NOCTTY | O_NONBLOCK) : null;
  } catch {
    return null; // the job may be gone already; then there is nothing left to lose
  }
}

// Durable before the event goes out, so a daemon that crashes right now still finds it on disk.
export function writeExitFile(dir: string, exit: ExitInfo): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.exit.json.${process.pid}.tmp`);
  const fd = openOwn(tmp, fs.constants.O_CREAT | fs.constants.O_WRONLY | fs.constants.O_TRUNC);
  try {
    fs.writeSync(fd, `${JSON.stringify(exit)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path.join(dir, "exit.json"));
  const dfd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(dfd);
  } finally {
    fs.closeSync(dfd);
  }
}
