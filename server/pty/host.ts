// The roost pty host: holds every job's pseudo-terminal so the daemon can crash or restart while
// jobs keep running. Run as `node host.js <ROOST_HOME>`. It must stay small and independent of the
// rest of roost (node builtins, node-pty, @xterm and the files beside it only, ../home.js, itself
// builtins only, the one check of a home, and two pieces every connection shares, which import
// nothing: the protocol's line splitter and ../faces/ordered-answers.js), because a running host is
// never upgraded in place: jobs live exactly as long as it does.
//
// This file is the socket and the lifecycle; jobs.ts holds the jobs, screen.ts and transcript.ts
// what each keeps of its output, processes.ts what the host reads of their processes in /proc,
// ops.ts answers requests, conn.ts is one client.
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { checkHome, openOwn, readOwn } from "../home.js";
import { Conn } from "./conn.js";
import { Jobs, screenState } from "./jobs.js";
import { log } from "./log.js";
import { answerer } from "./ops.js";
import { RESOURCES_INTERVAL_MS, ResourcePass } from "./resources.js";

const IDLE_MS = 3_000; // no job, no connection: nothing to hold, so go away
const FIRST_CONNECT_MS = 10_000; // started but nobody came
const STOP_GRACE_MS = 2_000; // on SIGTERM, time for hung-up jobs to exit and get their exit.json

const home = process.argv[2] ?? "";
if (!home) {
  process.stderr.write("usage: host.js <ROOST_HOME>\n");
  process.exit(2);
}
const sockPath = path.join(home, "pty.sock");
const pidPath = path.join(home, "pty.pid");

const conns = new Set<Conn>(); // insertion order: the last one is the daemon
let everConnected = false;
let stopping = false;
let idleTimer: NodeJS.Timeout | undefined;

function daemon(): Conn | undefined {
  return [...conns].at(-1);
}

const jobs = new Jobs(home, {
  output(job, data, seq) {
    for (const c of conns) {
      if (c.attached.has(job.jobId)) c.send({ event: "output", jobId: job.jobId, data, seq });
    }
  },
  screen(job) {
    daemon()?.send({ event: "screen", ...screenState(job) }); // read only when someone will have it
  },
  exit(job, exit) {
    daemon()?.send({ event: "exit", jobId: job.jobId, ...exit });
    checkIdle();
  },
});
const answer = answerer(jobs);

// One pass over /proc for all live jobs (resources.ts), sent to the daemon as one event; none
// while no daemon is connected or no job runs. ROOST_RESOURCES_MS: a shorter interval, for tests.
const resources = new ResourcePass();
const resourcesMs = Number(process.env.ROOST_RESOURCES_MS) || RESOURCES_INTERVAL_MS;
setInterval(() => {
  const to = daemon();
  const leaders = jobs.all().flatMap((j) => (j.pty ? [{ jobId: j.jobId, pid: j.pid }] : []));
  if (!to || leaders.length === 0) return;
  to.send({ event: "resources", jobs: resources.take(leaders), at: new Date().toISOString() });
}, resourcesMs).unref();
const server = net.createServer(onConnection);

function checkIdle(): void {
  clearTimeout(idleTimer);
  if (stopping || jobs.anyLive() || conns.size > 0) return;
  idleTimer = setTimeout(() => shutdown("idle"), everConnected ? IDLE_MS : FIRST_CONNECT_MS);
}

function onConnection(sock: net.Socket): void {
  const conn = new Conn(sock, log);
  conns.add(conn);
  everConnected = true;
  checkIdle();
  conn.read((line) => answer(conn, line));
  sock.on("error", (err) => log(`client error: ${err.message}`));
  sock.on("close", () => {
    conns.delete(conn);
    checkIdle();
  });
}

// ---- lifecycle

function shutdown(reason: string): void {
  if (stopping) return;
  stopping = true;
  log(`stopping: ${reason}`);
  // Unlink while still listening: a host starting now sees ours answer until the file is gone,
  // so it can never bind a socket that we would then remove.
  try {
    if (readOwn(pidPath)?.trim() === String(process.pid)) {
      fs.rmSync(pidPath, { force: true });
      fs.rmSync(sockPath, { force: true });
    }
  } catch {
    // not ours or already gone
  }
  server.close();
  for (const c of conns) c.sock.destroy();
  // Hang up like a closing terminal would, then give jobs a moment so their exit.json gets written.
  for (const j of jobs.all()) if (j.pty) jobs.signal(j, "SIGHUP");
  const deadline = Date.now() + STOP_GRACE_MS;
  const poll = setInterval(() => {
    if (Date.now() > deadline || !jobs.anyLive()) {
      clearInterval(poll);
      process.exit(0);
    }
  }, 20);
}

function answersHello(timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(sockPath);
    const done = (yes: boolean) => {
      sock.destroy();
      clearTimeout(timer);
      resolve(yes);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.on("connect", () => sock.write(`${JSON.stringify({ id: 0, op: "hello" })}\n`));
    sock.on("data", (d) => done(d.toString().includes('"ok":true')));
    sock.on("error", () => done(false));
  });
}

/**
 * Listens with the socket owner-only from its first moment. The umask is set only around the
 * listen: the jobs inherit this process's umask, and it must stay the user's own.
 */
function listen(): Promise<NodeJS.ErrnoException | null> {
  const umask = process.umask(0o177);
  return new Promise<NodeJS.ErrnoException | null>((resolve) => {
    server.once("error", resolve);
    server.listen(sockPath, () => {
      server.off("error", resolve);
      resolve(null);
    });
  }).finally(() => process.umask(umask));
}

async function main(): Promise<void> {
  // The client makes home; a host that finds it gone was started for a home since removed. One
  // that another user may write is refused, as the daemon refuses it (home.ts).
  if (!checkHome(home)) throw new Error(`no such home: ${home}`);
  for (let attempt = 0; ; attempt++) {
    if (fs.existsSync(sockPath)) {
      if (await answersHello(3_000)) {
        log("another pty host is running; exiting");
        process.exit(0);
      }
      fs.rmSync(sockPath, { force: true }); // stale: its host is gone
    }
    const err = await listen();
    if (!err) break;
    if (err.code !== "EADDRINUSE" || attempt >= 2) throw err;
  }
  server.on("error", (err) => log(`server error: ${err.message}`));
  fs.chmodSync(sockPath, 0o600);
  writePid();
  log(`listening on ${sockPath}`);
  checkIdle();
}

function writePid(): void {
  const fd = openOwn(pidPath, fs.constants.O_CREAT | fs.constants.O_WRONLY | fs.constants.O_TRUNC);
  try {
    fs.writeSync(fd, `${process.pid}\n`);
  } finally {
    fs.closeSync(fd);
  }
}

process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGHUP", () => {}); // detached: a closing terminal must not take the jobs with it
process.on("SIGINT", () => {});
// Crashing would close every job's terminal, so log and carry on instead.
process.on("uncaughtException", (err) => log(`uncaught: ${err.stack ?? err.message}`));
process.on("unhandledRejection", (err) => log(`unhandled rejection: ${String(err)}`));

main().catch((err: unknown) => {
  log(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
