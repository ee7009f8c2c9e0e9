/**
 * What HTTP itself costs a request on this machine, whatever roost does: a bare node:http server
 * and a bare JSON-lines server (bench/baseline-server.ts), each answering a reply's request with
 * `{ok:true,result:{}}`, in the shapes `replies-http` sends them: 16 keep-alive HTTP connections
 * (bench/http-client.ts) and 4 unix-socket connections, 32 requests in flight on each side. The
 * difference in their CPU a request is what HTTP adds to every op; set beside the daemon's CPU
 * a reply on the socket, it gives the best share of the socket's rate an HTTP face built on
 * node:http can reach.
 */
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startBareHttpServer, startBaselineServer, stopChild, tempDir } from "../harness.js";
import { HttpHub } from "../http-client.js";
import { Conn } from "../lines.js";
import { cpuMs, round } from "../stats.js";
import { MEASURE_MS, TEXT, WARM_MS } from "./replies-load.js";

export interface HttpFloor {
  /** The bare node:http server's CPU a request, µs. */
  httpUs: number;
  /** The bare JSON-lines server's CPU a request, µs. */
  linesUs: number;
  /** What HTTP adds: the difference, µs. */
  extraUs: number;
}

const IN_FLIGHT = 32;
const LINE_CONNECTIONS = 4;

type Send = (args: unknown) => Promise<unknown>;

/** Requests from IN_FLIGHT senders for WARM_MS, then MEASURE_MS measured: the server's CPU a request. */
async function cpuPerRequest(pid: number, send: Send): Promise<number> {
  let n = 0;
  const loop = async (until: number) => {
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < until) {
          await send({ id: `j${n % 20}`, text: `r${n} ${TEXT}` });
          n++;
        }
      }),
    );
  };
  await loop(performance.now() + WARM_MS);
  n = 0;
  const c0 = cpuMs(pid);
  await loop(performance.now() + MEASURE_MS);
  return round(((cpuMs(pid) - c0) * 1000) / n, 1);
}

/** `sockets`: the HTTP connections, as many as the scenario measured the daemon on. */
export async function httpFloor(token: string, sockets: number): Promise<HttpFloor> {
  const { child: httpServer, url } = await startBareHttpServer();
  const hub = new HttpHub(url, token, sockets);
  let httpUs: number;
  try {
    httpUs = await cpuPerRequest(httpServer.pid!, (args) => hub.request("reply", args));
  } finally {
    hub.close();
    await stopChild(httpServer);
  }
  const socket = path.join(tempDir("roost-bench-lines-"), "bare.sock");
  const linesServer = await startBaselineServer(socket);
  const conns = await Promise.all(Array.from({ length: LINE_CONNECTIONS }, () => Conn.connect(socket)));
  let linesUs: number;
  try {
    let next = 0;
    linesUs = await cpuPerRequest(linesServer.pid!, (args) =>
      conns[next++ % LINE_CONNECTIONS]!.request("reply", args),
    );
  } finally {
    for (const c of conns) c.close();
    await stopChild(linesServer);
  }
  return { httpUs, linesUs, extraUs: round(httpUs - linesUs, 1) };
}
