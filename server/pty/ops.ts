// The pty host's ops: one handler each, and the reading of a request line into its answer.
import { constants as osConstants } from "node:os";
import type { Conn } from "./conn.js";
import { askedScreenState, type Job, type Jobs } from "./jobs.js";
import { dim, jobIdOf, type Msg, str } from "./params.js";
import { HostRefusal } from "./typed-input.js";
import { type HostMessage, type Op, type OpResult, PROTOCOL_VERSION, TAIL_LIMIT } from "./wire.js";

/** An answer that waits on a parse should come in milliseconds; this only keeps a connection unstuck. */
const DEFERRED_TIMEOUT_MS = 30_000;

type Handlers = { [O in Op]: (conn: Conn, m: Msg) => OpResult<O> | Promise<OpResult<O>> };

/** Reads the job's screen once the output so far is parsed, and before any later output is. */
function whenParsed<T>(job: Job, read: () => T): Promise<T> {
  return new Promise((resolve, reject) => {
    job.screen.whenParsed(() => {
      try {
        resolve(read());
      } catch (err) {
        reject(err);
      }
    });
  });
}

function handlers(jobs: Jobs): Handlers {
  return {
    hello: () => ({ pid: process.pid, version: PROTOCOL_VERSION }),
    spawn: (_c, m) => jobs.spawn(m),
    write: (_c, m) => {
      jobs.write(jobs.live(m), str(m, "data"));
      return {};
    },
    resize: (_c, m) => {
      jobs.resize(jobs.live(m), dim(m, "cols"), dim(m, "rows"));
      return {};
    },
    signal: (_c, m) => {
      const sig = str(m, "signal");
      if (!Object.hasOwn(osConstants.signals, sig)) throw new Error(`unknown signal: ${sig}`);
      jobs.signal(jobs.live(m), sig);
      return {};
    },
    list: () => jobs.list(),
    forget: (_c, m) => {
      jobs.forget(jobIdOf(m));
      return {};
    },
    tail: (_c, m) => ({ data: jobs.known(m).tail.slice(-TAIL_LIMIT) }),
    screen: (_c, m) => {
      const job = jobs.known(m);
      return whenParsed(job, () => askedScreenState(job));
    },
    attach: (c, m) => {
      const job = jobs.known(m);
      // Output from now on is sent after this answer (the connection holds its place), and is
      // parsed after the snapshot is read: so it is in the events, and not in the snapshot.
      c.attached.add(job.jobId);
      const { screen, seq } = job;
      return whenParsed(job, () => ({
        snapshot: screen.serialize(),
        cols: screen.cols,
        rows: screen.rows,
        seq,
      }));
    },
    detach: (c, m) => {
      c.attached.delete(jobIdOf(m));
      return {};
    },
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The function that answers each request line of a connection, in order. */
export function answerer(jobs: Jobs): (conn: Conn, line: string) => void {
  const ops = handlers(jobs);
  return (conn, line) => {
    if (!line.trim()) return;
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      conn.send({ id: null, ok: false, error: "bad request: not JSON" });
      return;
    }
    if (typeof m !== "object" || m === null || Array.isArray(m)) {
      conn.send({ id: null, ok: false, error: "bad request: not an object" });
      return;
    }
    const msg = m as Msg;
    const id = typeof msg.id === "number" ? msg.id : null;
    // The answer's place is taken before the op runs: whatever is sent meanwhile comes after it.
    const fill = conn.hold();
    const fail = (err: unknown) =>
      fill({
        id,
        ok: false,
        error: errorText(err),
        ...(err instanceof HostRefusal ? { code: err.code } : {}),
      });
    try {
      const op = msg.op;
      if (typeof op !== "string" || !Object.hasOwn(ops, op)) throw new Error(`unknown op: ${String(op)}`);
      const result = ops[op as Op](conn, msg);
      if (!(result instanceof Promise)) {
        fill({ ...result, id, ok: true } as HostMessage);
        return;
      }
      const timer = setTimeout(() => fail(new Error(`${op} timed out`)), DEFERRED_TIMEOUT_MS);
      result.then(
        (r) => fill({ ...r, id, ok: true } as HostMessage),
        (err: unknown) => fail(err),
      );
      result.finally(() => clearTimeout(timer)).catch(() => {});
    } catch (err) {
      fail(err);
    }
  };
}
