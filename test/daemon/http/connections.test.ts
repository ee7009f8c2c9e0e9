/**
 * The HTTP face's connections (docs/http.md, "Connections"), against a real daemon on real
 * sockets: one that has not made a request with a good token is closed when it idles, when it
 * is slow to make one, and once refused; one that has is not, nor is its WebSocket. And the
 * caps, from the descriptor limit.
 */
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseProcLimits } from "../../../server/descriptors.js";
import { capsFor, IDLE_MS, PROOF_MS } from "../../../server/http/connections.js";
import { startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { api, closeAllSockets, TestSocket } from "../../helpers/http.js";
import { silentProfile } from "../../helpers/jobs.js";

let d: TestDaemon;
let host: string;
beforeAll(async () => {
  d = await startDaemon({ config: { agentProfiles: { silent: silentProfile() } } });
  host = new URL(d.url).host;
});
afterAll(async () => {
  closeAllSockets();
  for (const c of raw.splice(0)) c.socket.destroy();
  await d?.cleanup();
});
afterEach(() => {
  closeAllSockets();
  for (const c of raw.splice(0)) c.socket.destroy();
});

/** A TCP connection to the HTTP port: what it got, and when it was closed (by the daemon). */
interface Raw {
  socket: net.Socket;
  connectedAt: number;
  text: string;
  closedAt: number | null;
}
const raw: Raw[] = [];

async function connect(): Promise<Raw> {
  const { hostname, port } = new URL(d.url);
  const socket = net.connect(Number(port), hostname);
  const c: Raw = { socket, connectedAt: 0, text: "", closedAt: null };
  raw.push(c);
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    c.text += chunk;
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    c.closedAt = Date.now();
  });
  await new Promise((resolve) => socket.once("connect", resolve));
  c.connectedAt = Date.now();
  return c;
}

const request = (lines: string[]) => `${lines.join("\r\n")}\r\n\r\n`;
const auth = () => `Authorization: Bearer ${d.token}`;
/** Answers on a connection so far: their status codes, in order. */
const statuses = (c: Raw) => [...c.text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));

/** Sends a byte of a request's headers every half second, never finishing them. */
function dribble(c: Raw): () => void {
  c.socket.write(`GET /api/list HTTP/1.1\r\nHost: ${host}\r\n`);
  const timer = setInterval(() => c.socket.writable && c.socket.write("X"), 500);
  return () => clearInterval(timer);
}

describe("a connection that has not made a request with a good token", () => {
  it(`is closed when it sends nothing (after ${IDLE_MS / 1000} s)`, async () => {
    const c = await connect();
    await until("the daemon closing the idle connection", () => c.closedAt, 4 * PROOF_MS);
    expect(c.closedAt! - c.connectedAt).toBeGreaterThanOrEqual(IDLE_MS - 500);
    expect(c.text).toBe("");
  });

  it(`is closed when it has not finished a request ${PROOF_MS / 1000} s after it connected (a slow sender)`, async () => {
    const c = await connect();
    const stop = dribble(c);
    try {
      await until("the daemon closing the slow sender", () => c.closedAt, 4 * PROOF_MS);
    } finally {
      stop();
    }
    // It was never idle long enough for the idle timeout: the deadline from its connect did it.
    expect(c.closedAt! - c.connectedAt).toBeGreaterThanOrEqual(PROOF_MS - 500);
  });

  it("is answered 401 and closed when its request has no token, or a wrong one; 403 for a wrong Host", async () => {
    for (const header of [[], ["Authorization: Bearer not-a-token"]]) {
      const c = await connect();
      c.socket.write(request(["GET /api/list HTTP/1.1", `Host: ${host}`, ...header]));
      await until("the connection closed after its answer", () => c.closedAt);
      expect(statuses(c)).toEqual([401]);
      expect(c.text).toMatch(/^connection: close\r$/im);
    }
    const c = await connect();
    c.socket.write(request(["GET /api/list HTTP/1.1", "Host: evil.test", auth()]));
    await until("the connection closed after its answer", () => c.closedAt);
    expect(statuses(c)).toEqual([403]);
  });

  it("once it has made one, stays open for the next (keep-alive), past the timeouts", async () => {
    const proven = await connect();
    const get = request(["GET /api/list HTTP/1.1", `Host: ${host}`, auth()]);
    proven.socket.write(get);
    await until("the first answer", () => statuses(proven).length === 1);
    // An unproven connection made at the same time: once the daemon has closed it, the deadline is past.
    const sentinel = await connect();
    const stop = dribble(sentinel);
    try {
      await until("the daemon closing the unproven one", () => sentinel.closedAt, 4 * PROOF_MS);
    } finally {
      stop();
    }
    expect(proven.closedAt).toBeNull();
    proven.socket.write(get);
    await until("the second answer on the same connection", () => statuses(proven).length === 2);
    expect(statuses(proven)).toEqual([200, 200]);
  });
});

describe("an authenticated WebSocket", () => {
  it("stays open past the timeouts for connections without a token, and carries pushes", async () => {
    const ws = await TestSocket.open(d, "/api/subscribe");
    await ws.next((m) => "ok" in m, "the rows");
    const idle = await connect();
    const slow = await connect();
    const stop = dribble(slow);
    try {
      await until(
        "the daemon closing the idle and the slow one",
        () => idle.closedAt && slow.closedAt,
        4 * PROOF_MS,
      );
    } finally {
      stop();
    }
    // The slow one connected after the WebSocket: had the WebSocket still counted as unproven,
    // the same deadline would have closed it first.
    expect(ws.closed).toBeNull();
    const job = (await api(d, "dispatch", { profile: "silent" })).body.result.job;
    await ws.next((m) => m.event === "row" && m.row.id === job.id, "the new job's row");
  });
});

describe("the caps", () => {
  it("keep 1024 descriptors for the socket and 256 for the rest, and let half of HTTP's be unproven", () => {
    expect(capsFor(20_000)).toEqual({ descriptors: 20_000, kept: 1280, all: 18_720, unproven: 2048 });
    expect(capsFor(2048)).toEqual({ descriptors: 2048, kept: 1280, all: 768, unproven: 384 });
    // Too low to keep them all: HTTP still gets a quarter (and the daemon says to raise the limit).
    expect(capsFor(1024)).toEqual({ descriptors: 1024, kept: 768, all: 256, unproven: 128 });
    const unlimited = capsFor(Number.POSITIVE_INFINITY);
    expect(Number.isFinite(unlimited.all)).toBe(true);
    expect(unlimited.unproven).toBe(2048);
  });

  it("are read from /proc/self/limits", () => {
    const text =
      "Limit                     Soft Limit           Hard Limit           Units     \n" +
      "Max processes             95602                95602                processes \n" +
      "Max open files            1024                 524288               files     \n";
    expect(parseProcLimits(text)).toEqual({ soft: 1024, hard: 524288 });
    expect(parseProcLimits("nothing here")).toBeNull();
  });

  it("cover every connection when the hub listens on localhost: 127.0.0.1 alone, no second server", async () => {
    const local = await startDaemon({ env: { ROOST_HOST: "localhost" } });
    try {
      const port = Number(new URL(local.url).port);
      expect((await api(local, "list")).status).toBe(200);
      const v6 = net.connect(port, "::1");
      const refused = await new Promise<string>((resolve) => {
        v6.once("connect", () => resolve("connected"));
        v6.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? "error"));
      });
      v6.destroy();
      expect(refused).not.toBe("connected");
    } finally {
      await local.cleanup();
    }
  });

  // Node raises its soft limit itself on most systems; the daemon does it with prlimit where not.
  it("come from the hard limit: the daemon's soft limit is raised to it at start", async () => {
    const low = await startDaemon({ wrap: ["prlimit", "--nofile=1024:2048"] });
    try {
      expect(low.output).toMatch(/http: at most 768 connections, 384 .* \(of 2048 descriptors/);
    } finally {
      await low.cleanup();
    }
  });
});
