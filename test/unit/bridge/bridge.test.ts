/**
 * The real bridge on a real socket, with only the op layer replaced by ops of the test's own:
 * at most 256 requests in flight on one connection, answers in request order (docs/protocol.md,
 * "The socket"), timed exactly by ops that finish when the test says; and a failure
 * of an op or of an answer's encoding answered like any other, never a stalled connection.
 */
import fs from "node:fs";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunOp } from "../../../bridge/connection.js";
import { Bridge } from "../../../bridge/server.js";
import type { Caller } from "../../../server/ops/define.js";
import type { OpOutcome } from "../../../server/ops/index.js";
import { sleep, until } from "../../helpers/daemon.js";
import { ioTurn } from "../../helpers/processes.js";
import { RawClient } from "../../helpers/raw-client.js";

const IN_FLIGHT = 256;

/**
 * The ops: `slow {n}` runs until finished by the test; `quick {n}` answers at once; `deep`,
 * `throws` and `rejects` are an answer JSON cannot encode and two ops that break their contract.
 */
class Ops {
  readonly started: number[] = [];
  private readonly running = new Map<number, (o: OpOutcome) => void>();
  maxRunning = 0;
  /** The first caller an op saw: a way to push an event on its connection. */
  private caller: Caller | undefined;

  readonly run: RunOp = (caller, op, args) => {
    this.caller ??= caller;
    const n = (args as { n: number }).n;
    if (op === "quick") return { ok: true, result: { n } };
    if (op === "deep") return { ok: true, result: { deep: nested(200_000) } };
    if (op === "throws") throw new Error("an op that throws");
    if (op === "rejects") return Promise.reject(new Error("an op that rejects"));
    if (op !== "slow") return { ok: false, code: "bad_request", error: `unknown op ${op}` };
    this.started.push(n);
    return new Promise<OpOutcome>((resolve) => {
      this.running.set(n, resolve);
      this.maxRunning = Math.max(this.maxRunning, this.running.size);
    });
  };

  finish(n: number): void {
    const resolve = this.running.get(n);
    if (!resolve) throw new Error(`op ${n} is not running`);
    this.running.delete(n);
    resolve({ ok: true, result: { n } });
  }

  get runningNow(): number[] {
    return [...this.running.keys()].sort((a, b) => a - b);
  }

  /**
   * Pushes an event on the first caller's connection, after all written before it (a `removed`
   * event: the plainest push there is, and no op of these sends one).
   */
  mark(id: string): void {
    if (!this.caller?.push) throw new Error("no caller to push to");
    this.caller.push({ event: "removed", id });
  }
}

/** A value nested `depth` arrays deep: JSON.parse makes it, JSON.stringify cannot say it. */
function nested(depth: number): unknown {
  let v: unknown[] = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

const request = (op: string, n: number, pad = "") =>
  `${JSON.stringify({ id: n, op, args: pad ? { n, pad } : { n } })}\n`;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

let dir: string;
let socketPath: string;
let ops: Ops;
let bridge: Bridge;
const clients: RawClient[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-bridge-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await bridge?.close();
});

async function serve(): Promise<void> {
  ops = new Ops();
  bridge = new Bridge(ops.run);
  socketPath = path.join(dir, `s${Date.now()}.sock`);
  await bridge.listen(socketPath);
}

async function connect(): Promise<RawClient> {
  const c = await RawClient.connect(socketPath);
  clients.push(c);
  return c;
}

/** The server's side of the first connection, which the bridge keeps to itself. */
function firstServerSocket(): net.Socket {
  const conns = (bridge as unknown as { connections: Set<{ socket: net.Socket }> }).connections;
  const [first] = conns;
  if (!first) throw new Error("no connection");
  return first.socket;
}

let marks = 0;
/**
 * Waits until the bridge has read all that the first connection, `c`, wrote, or has stopped
 * reading it (paused: it reads on only once it answers), and has run what it took; then until
 * `c` has everything the bridge wrote to it so far (a mark pushed after it has come). What the
 * bridge has not done by then it will not do unless the test finishes an op.
 */
async function caughtUp(c: RawClient): Promise<void> {
  const server = firstServerSocket();
  const written = () => c.socket.bytesWritten - c.socket.writableLength; // exact for a write taken whole
  await until("the bridge to read what it will", () => server.isPaused() || server.bytesRead === written());
  await ioTurn(); // the ops the test finished are answered a turn of promises later
  const id = `mark-${++marks}`;
  ops.mark(id);
  await c.event((e) => e.event === "removed" && e.id === id, id);
}

/** Waits until `expected` started, and checks nothing more did once the bridge has caught up. */
async function settled(c: RawClient, expected: number): Promise<void> {
  await until(`${expected} started`, () => ops.started.length === expected);
  await caughtUp(c);
  expect(ops.started.length).toBe(expected);
}

describe("requests in flight on one connection", () => {
  it("runs exactly 256 of 300 at once, starts the rest as earlier ones are answered, answers in order", async () => {
    await serve();
    const c = await connect();
    const other = await connect();
    c.write(
      range(1, 300)
        .map((n) => request("slow", n))
        .join(""),
    );

    await settled(c, IN_FLIGHT);
    expect(ops.started).toEqual(range(1, IN_FLIGHT));
    expect(c.responses).toEqual([]);
    // Another connection is not held up by this one.
    other.write(request("quick", 1));
    expect((await other.waitFor(() => other.responses[0], "the other's answer")).ok).toBe(true);

    // A later one finishing first is not answered before the earlier ones, and frees no room.
    ops.finish(5);
    ops.finish(3);
    await caughtUp(c);
    expect(c.responses).toEqual([]);
    expect(ops.started.length).toBe(IN_FLIGHT);

    // The first finishes: it is answered, and one more request starts.
    ops.finish(1);
    await c.waitFor(() => c.responses[0], "answer 1");
    await settled(c, IN_FLIGHT + 1);
    expect(c.responses.map((r) => r.id)).toEqual([1]);

    // The second: 2 and 3 go out (3 had finished), then 4 holds back 5; two more start.
    ops.finish(2);
    await c.waitFor(() => (c.responses.length === 3 ? true : undefined), "answers 2 and 3");
    await settled(c, IN_FLIGHT + 3);
    expect(c.responses.map((r) => r.id)).toEqual([1, 2, 3]);
    ops.finish(4);
    await c.waitFor(() => (c.responses.length === 5 ? true : undefined), "answers 4 and 5");
    await settled(c, IN_FLIGHT + 5);
    expect(ops.started).toEqual(range(1, IN_FLIGHT + 5));
    expect(ops.runningNow.length).toBe(IN_FLIGHT);

    // The rest, finished last first: every answer in request order, never more than 256 at once.
    const finishing = async () => {
      while (ops.runningNow.length > 0) {
        for (const n of ops.runningNow.reverse()) ops.finish(n);
        await sleep(10);
      }
    };
    await Promise.all([
      finishing(),
      c.waitFor(() => (c.responses.length === 300 ? true : undefined), "300 answers", 30000),
    ]);
    expect(c.responses.map((r) => r.id)).toEqual(range(1, 300));
    expect(c.responses.every((r) => r.ok && r.result.n === r.id)).toBe(true);
    expect(ops.started).toEqual(range(1, 300));
    expect(ops.maxRunning).toBe(IN_FLIGHT);
  });

  it("does not read the connection while 256 are in flight: the client's writes back up", async () => {
    await serve();
    const c = await connect();
    c.write(
      range(1, IN_FLIGHT)
        .map((n) => request("slow", n))
        .join(""),
    );
    await settled(c, IN_FLIGHT);
    // 8 MiB more: with the connection not read, most of it stays in the client's own buffer.
    const pad = "p".repeat(64 * 1024);
    c.write(
      range(1001, 1128)
        .map((n) => request("quick", n, pad))
        .join(""),
    );
    await caughtUp(c);
    expect(firstServerSocket().isPaused()).toBe(true);
    expect(c.socket.writableLength).toBeGreaterThan(4 * 1024 * 1024);
    expect(c.responses).toEqual([]);
    // Once they are answered, the rest is read and answered, in order.
    for (const n of range(1, IN_FLIGHT)) ops.finish(n);
    await c.waitFor(() => (c.responses.length === IN_FLIGHT + 128 ? true : undefined), "every answer", 30000);
    expect(c.responses.map((r) => r.id)).toEqual([...range(1, IN_FLIGHT), ...range(1001, 1128)]);
    expect(c.socket.writableLength).toBe(0);
  });

  it("keeps request order across slow ops, quick ops and malformed lines", async () => {
    await serve();
    const c = await connect();
    c.write(
      [
        request("slow", 1),
        request("quick", 2),
        "not json\n",
        request("slow", 4),
        request("nope", 5),
        request("quick", 6),
      ].join(""),
    );
    await settled(c, 2);
    expect(c.responses).toEqual([]);
    ops.finish(4);
    await caughtUp(c);
    expect(c.responses).toEqual([]);
    ops.finish(1);
    await c.waitFor(() => (c.responses.length === 6 ? true : undefined), "six answers");
    expect(c.responses.map((r) => r.id)).toEqual([1, 2, null, 4, 5, 6]);
    expect(c.responses.map((r) => r.ok)).toEqual([true, true, false, true, false, true]);
    // With nothing in flight, a quick one is answered at once.
    c.write(request("quick", 7));
    expect((await c.waitFor(() => c.responses[6], "answer 7")).id).toBe(7);
  });

  it("answers what is in flight to a client that closes its side after its last request", async () => {
    await serve();
    const c = await connect();
    c.write([request("slow", 1), request("quick", 2), request("slow", 3)].join(""));
    c.socket.end();
    await settled(c, 2);
    ops.finish(3);
    await caughtUp(c);
    expect(c.responses.map((r) => r.id)).toEqual([]);
    expect(c.isClosed).toBe(false);
    ops.finish(1);
    await c.closed;
    expect(c.responses.map((r) => r.id)).toEqual([1, 2, 3]);
    await until("the connection gone", () => bridge.size === 0);
  });
});

describe("failures in the op layer", () => {
  it("answers an answer JSON cannot encode, an op that throws and one that rejects, and goes on", async () => {
    await serve();
    const c = await connect();
    c.write(
      [
        request("slow", 1),
        request("deep", 2),
        request("throws", 3),
        request("rejects", 4),
        request("quick", 5),
      ].join(""),
    );
    await settled(c, 1);
    ops.finish(1);
    await c.waitFor(() => (c.responses.length === 5 ? true : undefined), "five answers");
    expect(c.responses.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(c.responses.map((r) => r.ok)).toEqual([true, false, false, false, true]);
    for (const r of c.responses.slice(1, 4)) expect(r.code).toBe("busy");
    // Alone, too: each answered at once, and the connection is still served.
    for (const [i, op] of ["deep", "throws", "rejects"].entries()) {
      c.write(request(op, 10 + i));
      const r = await c.waitFor(() => c.responses.find((x) => x.id === 10 + i), `the answer to ${op}`);
      expect(r).toMatchObject({ ok: false, code: "busy" });
    }
    c.write(request("quick", 20));
    expect((await c.waitFor(() => c.responses.find((x) => x.id === 20), "answer 20")).ok).toBe(true);
    expect(bridge.size).toBe(1);
  });
});
