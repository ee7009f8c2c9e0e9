/**
 * The socket's limits (docs/protocol.md, "The socket"), against a real
 * daemon: a request line is at most 4 MiB, at most 1024 connections, a client that leaves 16 MiB
 * unread is dropped (one that asks and does not read is simply not read on: bounded either way),
 * the socket and home are the owner's whatever the umask. Each time the daemon stays up and a
 * well-behaved client is answered meanwhile.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isAlive, sleep, startDaemon, TestDaemon, until } from "../../helpers/daemon.js";
import { silentProfile } from "../../helpers/jobs.js";
import { RawClient } from "../../helpers/raw-client.js";
import { expectServing, witnessedDaemon } from "../../helpers/witness.js";

const MiB = 1024 * 1024;
const LINE_LIMIT = 4 * MiB;
const MAX_CONNECTIONS = 1024;
const UNREAD_LIMIT = 16 * MiB;

/** A request line of exactly `bytes` bytes (without its newline), padded in an unknown arg. */
function paddedLine(id: number, op: string, args: Record<string, unknown>, bytes: number): string {
  const bare = JSON.stringify({ id, op, args: { ...args, pad: "" } });
  const text = JSON.stringify({ id, op, args: { ...args, pad: "p".repeat(bytes - bare.length) } });
  expect(Buffer.byteLength(text)).toBe(bytes);
  return `${text}\n`;
}

const line = (msg: unknown) => `${JSON.stringify(msg)}\n`;

const environ = (pid: number) => fs.readFileSync(`/proc/${pid}/environ`, "utf8");

/** Starts reading a silent socket: the ids of the first `count` answers. */
function readIds(sock: net.Socket, count: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const ids: unknown[] = [];
    let buffer = "";
    const timer = setTimeout(() => reject(new Error(`only ${ids.length} answers of ${count}`)), 30000);
    sock.setEncoding("utf8");
    sock.on("close", () => reject(new Error(`closed after ${ids.length} answers`)));
    sock.on("data", (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf("\n"); nl !== -1 && ids.length < count; nl = buffer.indexOf("\n")) {
        ids.push(JSON.parse(buffer.slice(0, nl)).id);
        buffer = buffer.slice(nl + 1);
      }
      if (ids.length >= count) {
        clearTimeout(timer);
        resolve(ids);
      }
    });
    sock.resume();
  });
}

/** The daemon's resident memory, in bytes. */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m![1]) * 1024;
}

/** How many descriptors a process has open. */
const fdCount = (pid: number) => fs.readdirSync(`/proc/${pid}/fd`).length;

/** The soft and hard limits on open files of a process. */
function fileLimit(pid: number): { soft: number; hard: number } {
  const m = /Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/.exec(
    fs.readFileSync(`/proc/${pid}/limits`, "utf8"),
  );
  const n = (s: string) => (s === "unlimited" ? Number.POSITIVE_INFINITY : Number(s));
  return { soft: n(m![1]!), hard: n(m![2]!) };
}

/** Raises a process's soft limit on open files to `want` when it is lower (and the hard one allows). */
function ensureFileLimit(pid: number, want: number): void {
  const { soft, hard } = fileLimit(pid);
  if (soft >= want) return;
  if (hard < want) throw new Error(`pid ${pid} may open at most ${hard} files; this test needs ${want}`);
  execFileSync("prlimit", ["--pid", String(pid), `--nofile=${want}:${hard}`]);
  expect(fileLimit(pid).soft).toBeGreaterThanOrEqual(want);
}

/** Connects without ever reading: the kernel's buffers fill, then the daemon's. */
function connectSilent(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(socketPath);
    sock.pause();
    sock.once("connect", () => resolve(sock));
    sock.once("error", reject);
  });
}

/**
 * Connects, trying again while the listen queue is full (EAGAIN: a loaded daemon has not yet
 * accepted the connections before this one), so that connections still arrive in order.
 */
async function connectInOrder(socketPath: string): Promise<RawClient> {
  for (let tries = 0; ; tries++) {
    try {
      return await RawClient.connect(socketPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || tries > 500) throw err;
      await sleep(10);
    }
  }
}

/** The first thing a fresh connection hears in answer to a `list`: accepted (ok) or refused (busy). */
async function probe(c: RawClient): Promise<"accepted" | "refused"> {
  c.write(`${JSON.stringify({ id: "probe", op: "list", args: {} })}\n`);
  const r = await c.waitFor(() => c.responses[0], "the first answer on a new connection");
  if (r.ok && r.id === "probe") return "accepted";
  expect(r).toMatchObject({ id: null, ok: false, code: "busy" });
  return "refused";
}

/** Once the test's connections are gone, a new one is accepted and served. */
async function acceptsAgain(d: TestDaemon, clients: RawClient[]): Promise<void> {
  for (const c of clients.splice(0)) c.close();
  const witness = await until("a connection accepted", async () => {
    const c = await connectInOrder(d.socket);
    clients.push(c);
    return (await probe(c)) === "accepted" ? c : null;
  });
  await expectServing(d, witness);
  for (const c of clients.splice(0)) c.close();
}

describe("line length", () => {
  const served = witnessedDaemon();

  it("ends only the connection that sends a 5 MiB line; the others are answered meanwhile", async () => {
    const c = await served.d.client();
    expect((await c.request("list", {})).ok).toBe(true);
    const big = Buffer.alloc(5 * MiB, "a");
    big.write('{"id": 1, "op": "list", "args": {"pad": "', 0);
    big.write('"}}\n', big.length - 4);
    c.write(big);
    expect((await served.witness.request("list", {})).ok).toBe(true);
    await Promise.race([c.closed, sleep(10000).then(() => Promise.reject(new Error("not closed")))]);
    // At most a limit line came first (the code HTTP gives a body over 4 MiB), never an answer to the line itself.
    expect(c.responses.length).toBeLessThanOrEqual(2);
    for (const r of c.responses.slice(1)) expect(r).toMatchObject({ id: null, ok: false, code: "limit" });
    expect((await served.witness.request("list", {})).ok).toBe(true);
  });

  it("ends a connection whose line never ends, without waiting for its newline", async () => {
    const c = await served.d.client();
    c.write(Buffer.alloc(5 * MiB, "x")); // no newline, ever
    await Promise.race([c.closed, sleep(10000).then(() => Promise.reject(new Error("not closed")))]);
    expect(c.responses.every((r) => r.code === "limit")).toBe(true);
  });

  it("reads a line of exactly 4 MiB, and ends the connection at one byte more", async () => {
    const c = await served.d.client();
    c.write(paddedLine(1, "list", {}, LINE_LIMIT));
    const r = await c.waitFor(() => c.responses.find((x) => x.id === 1), "the answer to a 4 MiB line");
    expect(r.ok, JSON.stringify(r).slice(0, 300)).toBe(true);
    expect((await c.request("list", {})).ok).toBe(true);

    const over = await served.d.client();
    over.write(paddedLine(1, "list", {}, LINE_LIMIT + 1));
    await Promise.race([over.closed, sleep(10000).then(() => Promise.reject(new Error("not closed")))]);
    expect(over.responses.find((x) => x.id === 1)).toBeUndefined();
    expect(c.isClosed).toBe(false);
    expect((await c.request("list", {})).ok).toBe(true);
  });

  it("answers a line of 4 MiB less a little as any other: here bad_request for a text too long", async () => {
    const c = await served.d.client();
    const { job } = await c.ok("dispatch", { profile: "inert", cwd: "/tmp" });
    const bare = JSON.stringify({ id: 9, op: "reply", args: { id: job.id, text: "" } });
    const text = "t".repeat(LINE_LIMIT - 64 - bare.length);
    c.write(`${JSON.stringify({ id: 9, op: "reply", args: { id: job.id, text } })}\n`);
    const r = await c.waitFor(() => c.responses.find((x) => x.id === 9), "the answer to the long reply");
    expect(r).toMatchObject({ id: 9, ok: false, code: "bad_request" });
    expect(r.error).toContain("text");
    expect(c.isClosed).toBe(false);
    const [row] = (await c.ok("list", { id: job.id })).rows;
    expect(row.pending).toBe(0);
    await c.ok("stop", { id: job.id });
  });

  it("answers every request of a client that sends them and then closes its side", async () => {
    const c = await served.d.client();
    c.write(
      [
        { id: 1, op: "dispatch", args: { profile: "inert", cwd: "/tmp" } },
        { id: 2, op: "list", args: {} },
      ]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(""),
    );
    c.socket.end(); // done writing; still reading
    await Promise.race([c.closed, sleep(10000).then(() => Promise.reject(new Error("not closed")))]);
    expect(c.responses.map((r) => r.id)).toEqual([1, 2]);
    expect(c.responses[0]!.ok).toBe(true);
    await served.witness.ok("stop", { id: c.responses[0]!.result.job.id });
  });
});

describe("requests in flight on one connection, on the real daemon", () => {
  const IN_FLIGHT = 256;
  // A job that ignores SIGTERM: a `stop` of it answers only once the process has ended, which
  // (with a grace of ten minutes) is when the test kills it. Each stop in flight waits for it.
  const STUBBORN = {
    command: [
      process.execPath,
      "-e",
      `const fs = require("node:fs"), dir = process.env.ROOST_JOB_DIR;
       process.on("SIGTERM", () => fs.appendFileSync(dir + "/term.log", "TERM\\n"));
       fs.writeFileSync(dir + "/ready", "");
       setInterval(() => {}, 1e6);`,
    ],
  };
  const served = witnessedDaemon({
    config: { agentProfiles: { stubborn: STUBBORN, inert: silentProfile() } },
    env: { ROOST_STOP_GRACE_MS: "600000" },
  });
  let target: string;
  beforeAll(async () => {
    target = (await served.witness.ok("dispatch", { profile: "inert", cwd: "/tmp" })).job.id;
  });

  const nameOf = async (id: string) => (await served.witness.ok("list", { id })).rows[0].name;

  /**
   * Writes `holds` stops of a stubborn job, then a rename of another job, in one write; waits
   * until the first stop is under way (the job got its SIGTERM). Every stop is then in flight.
   */
  async function pileUp(holds: number, name: string) {
    const { job } = await served.witness.ok("dispatch", { profile: "stubborn", cwd: "/tmp" });
    const dir = path.join(served.d.home, "jobs", job.id);
    await until("the stubborn job ready", () => fs.existsSync(path.join(dir, "ready")));
    const c = await served.d.client();
    c.write(
      [
        ...Array.from({ length: holds }, (_, i) => line({ id: i + 1, op: "stop", args: { id: job.id } })),
        line({ id: "rename", op: "rename", args: { id: target, name } }),
      ].join(""),
    );
    await until("the stop under way", () => fs.existsSync(path.join(dir, "term.log")));
    return { c, pid: job.pid as number, stubborn: job.id as string };
  }

  /** Once the stubborn job is killed, every stop is answered, in order, then the rename. */
  async function release(c: RawClient, pid: number, holds: number) {
    process.kill(pid, "SIGKILL");
    await c.waitFor(() => (c.responses.length === holds + 1 ? true : undefined), "every answer");
    expect(c.responses.map((r) => r.id)).toEqual([
      ...Array.from({ length: holds }, (_, i) => i + 1),
      "rename",
    ]);
    expect(c.responses.every((r) => r.ok)).toBe(true);
  }

  it("reads and runs the request after 255 that wait", async () => {
    const holds = IN_FLIGHT - 1;
    const { c, pid } = await pileUp(holds, "read-255");
    // The 256th is in flight too: run at once, its answer waiting behind the stops' (in order).
    await until("the rename run", async () => (await nameOf(target)) === "read-255");
    expect(c.responses).toEqual([]);
    await release(c, pid, holds);
  });

  it("does not read the request after 256 that wait, until some are answered", async () => {
    const holds = IN_FLIGHT;
    const { c, pid, stubborn } = await pileUp(holds, "read-256");
    // Everything the client wrote has reached the daemon (one write, and the stops are under
    // way); the witness is served meanwhile, and the 257th is still not run.
    for (let i = 0; i < 5; i++) expect((await served.witness.request("list", {})).ok).toBe(true);
    expect(await nameOf(target)).not.toBe("read-256");
    expect(c.responses).toEqual([]);
    expect(c.isClosed).toBe(false);
    await release(c, pid, holds);
    expect(await nameOf(target)).toBe("read-256");
    // Run only once the stops were let go: its feed entry comes after the stubborn job's end
    // (recorded when it exited), however late a daemon that read it early would have run it.
    const { events } = await served.witness.ok("events", { limit: 500 });
    const last = (pred: (e: any) => boolean) => Math.max(...events.filter(pred).map((e: any) => e.cursor));
    const renamed = last((e) => e.kind === "rename" && e.id === target);
    const ended = last((e) => ["stop", "exit"].includes(e.kind) && e.id === stubborn);
    expect(ended).toBeGreaterThan(0);
    expect(renamed).toBeGreaterThan(ended);
  });
});

describe("a client that does not keep up", () => {
  const served = witnessedDaemon();
  let job: { id: string; pid: number };
  let token: string;
  /** One `events` answer: the feed's 1000 entries of some 300 bytes each. */
  let answerBytes = 0;
  beforeAll(async () => {
    job = (await served.witness.ok("dispatch", { profile: "inert", cwd: "/tmp" })).job;
    token = await until("the job's token", () => /ROOST_JOB_TOKEN=([^\0]+)/.exec(environ(job.pid))?.[1]);
    const filler = await served.d.client();
    filler.write(
      Array.from({ length: 1000 }, (_, i) =>
        line({ id: `r${i}`, op: "rename", args: { id: job.id, name: `${i}`.padEnd(200, "n") } }),
      ).join(""),
    );
    await filler.waitFor(() => (filler.responses.length === 1000 ? true : undefined), "1000 renames", 60000);
    expect(filler.responses.every((r) => r.ok)).toBe(true);
    const sample = await served.witness.ok("events", { limit: 1000 });
    expect(sample.events.length).toBe(1000);
    answerBytes = JSON.stringify(sample).length;
    expect(answerBytes).toBeGreaterThan(250_000);
  });

  const events = (id: number) => line({ id, op: "events", args: { limit: 1000 } });

  it("gets every answer when it asks for far more than 16 MiB at once and reads them", async () => {
    const reader = await served.d.client();
    const n = 150; // ~45 MiB of answers, asked for in one write
    expect(n * answerBytes).toBeGreaterThan(2 * UNREAD_LIMIT);
    reader.write(Array.from({ length: n }, (_, i) => events(i + 1)).join(""));
    await reader.waitFor(() => (reader.responses.length === n ? true : undefined), `${n} answers`, 60000);
    expect(reader.responses.map((r) => r.id)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(reader.responses.every((r) => r.ok && r.result.events.length === 1000)).toBe(true);
    expect(reader.isClosed).toBe(false);
  });

  it("costs a bounded amount when it asks and never reads; others are answered; it is answered once it reads", async () => {
    const baseline = rss(served.d.pid);
    let peak = baseline;
    const n = 800; // ~250 MiB of answers, were the daemon to make them all at once
    expect(n * answerBytes).toBeGreaterThan(10 * UNREAD_LIMIT);
    const sock = await connectSilent(served.d.socket);
    sock.on("error", () => {});
    sock.write(Array.from({ length: n }, (_, i) => events(i + 1)).join(""));
    let closed = false;
    sock.on("close", () => {
      closed = true;
    });
    for (let i = 0; i < 20; i++) {
      // Answered while the silent one's answers wait unread; it is held, not dropped.
      expect((await served.witness.request("list", {})).ok).toBe(true);
      expect(closed).toBe(false);
      peak = Math.max(peak, rss(served.d.pid));
      await sleep(50);
    }
    expect(peak - baseline).toBeLessThan(32 * MiB);
    // It reads at last: its answers come, in order, and its requests go on being taken.
    const ids = await readIds(sock, 60);
    expect(ids).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    sock.destroy();
  });

  it("is dropped once 16 MiB of pushes wait unread; memory stays bounded; the others are served", async () => {
    // A subscriber that never reads, and one that does.
    const silent = await connectSilent(served.d.socket);
    let dropped = false;
    silent.on("error", () => {});
    silent.on("close", () => {
      dropped = true;
    });
    silent.write(line({ id: 1, op: "subscribe", args: {} }));
    const reading = await served.d.client();
    await reading.ok("subscribe", {});
    const agent = await served.d.client();
    const baseline = rss(served.d.pid);
    let peak = baseline;
    // Each report makes a row of ~110 KB, pushed to both subscribers: ~110 MiB in all.
    const big = {
      state: "blocked",
      waitingFor: "question",
      question: "q".repeat(2000),
      choices: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(200, "c")),
      prLinks: Array.from({ length: 50 }, (_, i) => `https://example.com/${i}/`.padEnd(2000, "p")),
    };
    const reports = 1000;
    for (let i = 0; i < reports; i++) {
      const r = await agent.request("report", {
        id: job.id,
        token,
        report: { ...big, summary: `round ${i}` },
      });
      expect(r.ok, JSON.stringify(r).slice(0, 200)).toBe(true);
      if (i % 50 === 0) {
        peak = Math.max(peak, rss(served.d.pid));
        expect((await served.witness.request("list", { id: job.id })).ok).toBe(true);
      }
    }
    // The daemon ended the silent one: a write of ours fails, and the socket closes.
    await until(
      "the daemon to drop the subscriber that does not read",
      () => {
        if (!dropped) silent.write("\n");
        return dropped;
      },
      20000,
    );
    peak = Math.max(peak, rss(served.d.pid));
    expect(peak - baseline).toBeLessThan(80 * MiB);
    // The reading subscriber got the last row and is still subscribed.
    await reading.event((e) => e.event === "row" && e.row.summary === `round ${reports - 1}`, "the last row");
    expect(reading.isClosed).toBe(false);
  });
});

describe("connections", () => {
  let d: TestDaemon;
  const clients: RawClient[] = [];
  beforeAll(async () => {
    d = await startDaemon();
    // The daemon holds a descriptor per connection, this process one per client: both need room.
    ensureFileLimit(d.pid, MAX_CONNECTIONS + 256);
    ensureFileLimit(process.pid, 1100 + 256);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await d?.cleanup();
  });
  afterEach(() => acceptsAgain(d, clients));

  it("opens the first 1024 connections, refuses the rest with busy, and accepts again after some close", async () => {
    // The harness's readiness probe has gone: one round trip on a connection of its own.
    const first = await connectInOrder(d.socket);
    expect(await probe(first)).toBe("accepted");
    const withFirst = fdCount(d.pid);
    first.close();
    // Measured once the daemon has let go of that connection's descriptor.
    const descriptors = await until("the first connection's descriptor given back", () => {
      const n = fdCount(d.pid);
      return n < withFirst ? n : 0;
    });

    for (let i = 0; i < 1100; i++) clients.push(await connectInOrder(d.socket));
    const outcomes = await Promise.all(clients.map(probe));
    expect(outcomes.slice(0, MAX_CONNECTIONS).every((o) => o === "accepted")).toBe(true);
    expect(outcomes.slice(MAX_CONNECTIONS).every((o) => o === "refused")).toBe(true);
    // The refused ones are closed by the daemon; the open ones stay usable.
    await until("the refused connections closed", () =>
      clients.slice(MAX_CONNECTIONS).every((c) => c.isClosed),
    );
    const witness = clients[0]!;
    expect((await witness.request("list", {})).ok).toBe(true);
    const again = await Promise.all(clients.slice(1, MAX_CONNECTIONS).map((c) => c.request("list", {})));
    expect(again.every((r) => r.ok)).toBe(true);
    expect(isAlive(d.pid)).toBe(true);

    // Five close: exactly five new connections are accepted, the sixth is refused.
    for (const c of clients.slice(1, 6)) c.close();
    let accepted = 0;
    while (accepted < 5) {
      const c = await connectInOrder(d.socket);
      clients.push(c);
      if ((await probe(c)) === "accepted") accepted++;
      else await sleep(50);
    }
    const sixth = await connectInOrder(d.socket);
    clients.push(sixth);
    expect(await probe(sixth)).toBe("refused");
    expect((await witness.request("list", {})).ok).toBe(true);

    // All closed: connections are accepted again.
    for (const c of clients) c.close();
    await until("a connection accepted again", async () => {
      const c = await connectInOrder(d.socket);
      clients.push(c);
      return (await probe(c)) === "accepted";
    });
    // Every descriptor the connections took is given back, the refused ones' too.
    for (const c of clients) c.close();
    await until("the daemon's descriptors back to where they were", () => fdCount(d.pid) <= descriptors);
    expect(isAlive(d.pid)).toBe(true);
    expect(d.proc!.exitCode).toBeNull();
  });

  it("closes a refused connection whose client sends and never closes, after a grace", async () => {
    const held: RawClient[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await connectInOrder(d.socket));
    clients.push(...held);
    expect((await Promise.all(held.map(probe))).every((o) => o === "accepted")).toBe(true);
    const descriptors = fdCount(d.pid);
    // A client that reads but never closes its side, and sends on.
    const stubborn = net.connect({ path: d.socket, allowHalfOpen: true });
    let heard = "";
    stubborn.setEncoding("utf8");
    stubborn.on("data", (chunk: string) => {
      heard += chunk;
    });
    stubborn.on("error", () => {});
    await new Promise((resolve) => stubborn.once("connect", resolve));
    stubborn.write(`${JSON.stringify({ id: 1, op: "list", args: {} })}\n`.repeat(1000));
    await until("the busy line", () => heard.includes("\n"));
    expect(JSON.parse(heard.slice(0, heard.indexOf("\n")))).toMatchObject({
      id: null,
      ok: false,
      code: "busy",
    });
    // The daemon lets go of it all the same.
    await until("the refused descriptor given back", () => fdCount(d.pid) <= descriptors, 10000);
    stubborn.destroy();
    for (const c of held) c.close();
  });
});

describe("out of file descriptors", () => {
  let d: TestDaemon;
  const clients: RawClient[] = [];
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await d?.cleanup();
  });
  afterEach(() => acceptsAgain(d, clients));

  it("keeps running when it cannot accept more connections, and accepts again once some close", async () => {
    const witness = await d.client();
    expect((await witness.request("list", {})).ok).toBe(true);
    const { hard } = fileLimit(d.pid);
    execFileSync("prlimit", ["--pid", String(d.pid), `--nofile=96:${hard}`]);
    // Connections until the daemon has no descriptor left for one: those are closed unanswered.
    let refused = 0;
    for (let i = 0; i < 200; i++) {
      const c = await connectInOrder(d.socket);
      clients.push(c);
      c.write(`${JSON.stringify({ id: "probe", op: "list", args: {} })}\n`);
    }
    await until("every connection answered or closed", () =>
      clients.every((c) => c.isClosed || c.responses.length > 0),
    );
    for (const c of clients) if (c.isClosed && !c.responses.some((r) => r.ok)) refused++;
    expect(refused).toBeGreaterThan(0);
    await expectServing(d, witness);
    for (const c of clients) c.close();
    execFileSync("prlimit", ["--pid", String(d.pid), `--nofile=${hard}:${hard}`]);
    await until("a connection accepted again", async () => {
      const c = await connectInOrder(d.socket);
      clients.push(c);
      return (await probe(c)) === "accepted";
    });
    await expectServing(d, witness);
    expect(d.output).not.toContain("uncaught");
  });
});

describe("owner-only", () => {
  let d: TestDaemon | null = null;
  let parent = "";
  afterAll(async () => {
    await d?.cleanup();
    if (parent) fs.rmSync(parent, { recursive: true, force: true });
  });

  it("makes $ROOST_HOME 0700 and the socket 0600 under umask 000, and again on restart", async () => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), "roost-umask-"));
    const home = path.join(parent, "home"); // the daemon makes it
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith("ROOST_")) env[k] = v;
    Object.assign(env, { ROOST_HOME: home, ROOST_STOP_GRACE_MS: "1000", ROOST_PORT: "0" });
    d = new TestDaemon(home, env);
    const umask = process.umask(0o000); // the daemon inherits it
    try {
      await d.start();
    } finally {
      process.umask(umask);
    }
    expect(fs.readFileSync(`/proc/${d.pid}/status`, "utf8")).toMatch(/^Umask:\s+0000$/m);
    const mode = (p: string) => fs.statSync(p).mode & 0o777;
    expect(mode(home).toString(8)).toBe("700");
    expect(fs.statSync(d.socket).isSocket()).toBe(true);
    expect(mode(d.socket).toString(8)).toBe("600");
    expect(mode(path.join(home, "token")).toString(8)).toBe("600");
    expect(mode(path.join(home, "jobs")).toString(8)).toBe("700");
    const c = await d.client();
    expect((await c.request("list", {})).ok).toBe(true);
    expect(isAlive(d.pid)).toBe(true);
    c.close();

    // Started again on a home someone opened up: owner-only again; a job's directory too.
    await d.kill();
    fs.chmodSync(home, 0o777);
    fs.writeFileSync(
      path.join(home, "roost.json"),
      JSON.stringify({ agentProfiles: { inert: silentProfile() } }),
    );
    process.umask(0o000);
    try {
      await d.start();
    } finally {
      process.umask(umask);
    }
    expect(mode(home).toString(8)).toBe("700");
    expect(mode(d.socket).toString(8)).toBe("600");
    const again = await d.client();
    const { job } = await again.ok("dispatch", { profile: "inert", cwd: "/tmp" });
    expect(mode(path.join(home, "jobs", job.id)).toString(8)).toBe("700");
    await again.ok("stop", { id: job.id });
    expect(isAlive(d.pid)).toBe(true);
  });
});
