// node-pty, told by its own thread that a job's process ended, gives the terminal 200 ms to read
// EIO and then destroys the socket it reads the master through: what the job printed that the host
// had not read by then is lost. The host holds a slave fd of its own and lets go of it only once
// its drain has read everything (jobs.ts, "the end of a job's output"), and a loaded machine (the
// host busy feeding a burst to the job's screen) can take longer than 200 ms to get there: a job's
// last output went missing (a 16 KB burst lost its last 500 bytes). So that destroy waits for the
// drain, bounded, and starts it when SIGCHLD has not yet.
import type { IPty } from "@lydell/node-pty";

/** How long node-pty's destroy of an ended job's terminal may wait for the host's drain. */
export const LATE_OUTPUT_BOUND_MS = 5_000;

interface Destroyable {
  destroy(...args: unknown[]): unknown;
}

/**
 * Makes the destroy of `p`'s socket wait until `drained()` (after calling `startDrain`), or until
 * `boundMs` have passed. Nothing for a node-pty without the socket (another version: its own way).
 */
export function waitForDrainOnDestroy(
  p: IPty,
  drained: () => boolean,
  startDrain: () => void,
  boundMs = LATE_OUTPUT_BOUND_MS,
): void {
  const socket = (p as unknown as { _socket?: Destroyable })._socket;
  if (!socket || typeof socket.destroy !== "function") return;
  const destroy = socket.destroy.bind(socket);
  let waiting = false;
  socket.destroy = (...args: unknown[]) => {
    if (drained()) return destroy(...args);
    if (waiting) return socket;
    waiting = true;
    startDrain();
    const until = Date.now() + boundMs;
    const check = setInterval(() => {
      if (!drained() && Date.now() < until) return;
      clearInterval(check);
      destroy(...args);
    }, 10);
    return socket;
  };
}
