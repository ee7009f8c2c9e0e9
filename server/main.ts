/**
 * The daemon (docs/protocol.md, "Starting the daemon"): wiring only. The home checked (home.ts:
 * ours alone, or refused having changed nothing), the config checked before anything starts, the
 * jobs found again, then the socket opened.
 */
import fs from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance } from "fastify";
import { JobSockets } from "../bridge/job-sockets.js";
import { Bridge } from "../bridge/server.js";
import { socketAnswers } from "../sdk/ts/client/socket-client.js";
import { LIMITS } from "../sdk/ts/protocol/index.js";
import { type Config, DEFAULT_LEASE_MS, loadConfig } from "./config.js";
import { TaskBoard } from "./core/board/task-board.js";
import { Budgets } from "./core/budgets/index.js";
import { Clock, timeSourceOf } from "./core/clock.js";
import { Concierge } from "./core/concierge/concierge.js";
import type { Core } from "./core/core.js";
import { Feed, ROOST, USER } from "./core/feed.js";
import { connectionClosed } from "./core/jobs/agents.js";
import { checkLaunch, dispatch } from "./core/jobs/dispatch.js";
import { IdleStops } from "./core/jobs/idle.js";
import { remove, stop } from "./core/jobs/lifecycle.js";
import { type LiveJob, Registry } from "./core/jobs/registry.js";
import { reply } from "./core/jobs/reply.js";
import { respawn } from "./core/jobs/respawn.js";
import { bwrapProgram } from "./core/jobs/sandbox.js";
import { loadJobs, recordSetAside } from "./core/jobs/stored-jobs.js";
import { Notify } from "./core/notify/notify.js";
import { Foreground, foregroundGraceMs } from "./core/peers/foreground.js";
import { sendItem } from "./core/peers/peer-items.js";
import { PeerRules } from "./core/peers/peer-rules.js";
import { Watches } from "./core/peers/watches.js";
import { Pushes } from "./core/pushes.js";
import { MergeQueue } from "./core/queue/index.js";
import { Schedules } from "./core/schedules/schedules.js";
import { findJobsAgain } from "./core/terminals/find-again.js";
import { HostLink } from "./core/terminals/host-link.js";
import { Viewers } from "./core/terminals/viewers.js";
import { Tokens } from "./core/tokens.js";
import { WorktreeStats } from "./core/worktrees/worktree-stat.js";
import { sweepWorktrees } from "./core/worktrees/worktrees.js";
import { raiseFileLimit } from "./descriptors.js";
import { Remotes } from "./fleet/remotes.js";
import { secureHome } from "./home.js";
import { listenAddress } from "./http/address.js";
import { RELAYED_OPS, runOp } from "./ops/index.js";
import { roostPaths } from "./paths.js";
import { redactWrites, Secrets } from "./secrets.js";
import { watchForStalls } from "./stalls.js";
import type { BoardStore } from "./store/board.js";
import { Store } from "./store/store.js";
import { ROOST_VERSION } from "./version.js";

/** How long HTTP waits at most for the agents to connect again after a restart. */
const AGENTS_BACK_MOST_MS = 500;

/** `roost daemon`: the daemon as this process, which it ends when it stops. */
export async function runDaemon(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // What the daemon prints is its log (daemon.log under `roost start`): no secret is ever in it,
  // from its first line on (even a failure to start, printed as it exits).
  const secrets = new Secrets();
  const redact = (text: string) => secrets.redact(text);
  const toTerminal = redactWrites(process.stdout, redact);
  redactWrites(process.stderr, redact);
  raiseFileLimit(); // before anything is opened, and before HTTP's caps are computed from it
  const stopWatching = watchForStalls();
  // A signal ends the process as it would without a handler until the daemon's socket opens; from
  // then on it stops the daemon (the jobs keep running), exit 0. The socket answers as soon as it
  // listens, a moment before the daemon can be stopped: a signal in that moment (a client that
  // saw the socket answer) is held, and acted on once it can.
  let stopNow: (() => void) | null = null;
  let opening = false;
  let held = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopNow) stopNow();
    else if (opening) held = true;
    else {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      process.kill(process.pid, signal); // no listener left: the signal's own end
    }
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  // Once it can be stopped (its socket open, its hub not yet), its stop ends the process: also a
  // `shutdown` that comes while it still starts.
  const stoppable = (stop: () => Promise<void>, stopped: Promise<number>) => {
    void stopped.then((code) => {
      stopWatching();
      process.exit(code);
    });
    // The daemon never exits on input: a bug in one op is logged, and the rest goes on.
    process.on("uncaughtException", (err) => console.error("roost: uncaught:", err));
    process.on("unhandledRejection", (err) => console.error("roost: unhandled rejection:", err));
    stopNow = () => void stop();
    if (held) stopNow();
  };
  const opens = () => {
    opening = true;
  };
  await startDaemon(env, { secrets, toTerminal, opens, stoppable }).catch((err) => {
    stopWatching();
    if (err instanceof DaemonStopped) process.exit(err.code);
    throw err;
  });
}

/** A daemon started (`startDaemon`): its parts, its hub, and its end. */
export interface Daemon {
  readonly core: Core;
  /** The hub's address (`http://127.0.0.1:PORT/`). */
  readonly url: string;
  /** Ends it as SIGTERM does: the jobs keep running. Resolves once all is closed. */
  stop(): Promise<void>;
  /** Resolves with its exit code once it has stopped, by `stop` or by the `shutdown` op. */
  readonly stopped: Promise<number>;
}

/**
 * The daemon, in this process: started, listening on its socket and its hub. What belongs to a
 * process (its signals, its exit, stdout's redaction, the file limit) is `runDaemon`'s; a test that
 * runs a daemon in its own process (where the process is not the point) starts it with this.
 */
export async function startDaemon(
  env: NodeJS.ProcessEnv,
  io: {
    /** The secrets to keep out of the log; what is learnt of them (roost.json's) is added. */
    secrets: Secrets;
    /** Writes to the terminal, past the log's redaction: the login link alone. */
    toTerminal: (text: string) => void;
    /** Told just before its socket opens (to listen, then answer, before it can be stopped). */
    opens?: () => void;
    /** Told as soon as it can be stopped (its socket open), before its hub is up. */
    stoppable?: (stop: () => Promise<void>, stopped: Promise<number>) => void;
  },
): Promise<Daemon> {
  const { secrets, toTerminal } = io;
  const paths = roostPaths(env);
  secureHome(paths.home, paths.socket); // throws UnsafeHome: nothing has started yet
  const config = loadConfig(paths.config, env); // throws ConfigError: nothing has started yet
  secrets.learn(config.secrets);
  const address = listenAddress(config, env);
  const time = timeSourceOf(env); // throws ConfigError on a bad ROOST_TEST_CLOCK: nothing has started yet
  if (await socketAnswers(paths.socket))
    throw new Error(`roost is already running (its socket ${paths.socket} answers)`);
  fs.rmSync(paths.socket, { force: true });

  // The shared board's database answers before anything starts, or the daemon does not start.
  const boardStore = config.board ? await openSharedBoard(config.board, paths.home) : null;
  // ROOST_TEST_SYNC_LOG: power-cut tests only (wal-sync.ts); said in the log below.
  const syncLog = env.ROOST_TEST_SYNC_LOG || undefined;
  const store = new Store(paths.db, { checkpoints: "thread", ...(syncLog ? { syncLog } : {}) });
  const board = boardStore ?? store.board;
  const tokens = new Tokens(store, paths.token); // the owner's token is made here on first start
  let urlKnown: (url: string) => void = () => {};
  const hubUrl = new Promise<string>((resolve) => {
    urlKnown = resolve;
  });
  const pushes = new Pushes();
  const loaded = loadJobs(store);
  const registry = new Registry(store, pushes, loaded.jobs);
  const feed = new Feed(store, pushes, secrets);
  const clock = new Clock(time.source);
  const remotes = new Remotes(
    pushes,
    config.remotes ?? [],
    () => {
      const now = loadConfig(paths.config, env);
      secrets.learn(now.secrets); // a remote added meanwhile: its token hidden from now on
      return now.remotes ?? [];
    },
    RELAYED_OPS,
  );
  let stopping = false;
  const graceMs = foregroundGraceMs(env);
  const jobSockets = new JobSockets(paths, (caller, op, args) => runOp(core, caller, op, args), {
    onClosed: (conn) => connectionClosed(core, conn.state),
  });
  // roost.json's hooks: sent on as rows and schedules come to need the user, never waited for.
  const notify = new Notify(config.notify ?? [], {
    hubUrl: () => hubUrl,
    feed,
    redact: (t) => secrets.redact(t),
  });
  const core: Core = {
    config,
    paths,
    store,
    registry,
    feed,
    pushes,
    viewers: new Viewers(registry, () => hostLink.terminals()),
    clock,
    // A due schedule starts its job as `dispatch` does, with the core it is part of.
    schedules: new Schedules(
      {
        store,
        pushes,
        feed,
        registry,
        dispatch: (args, actor) => dispatch(core, args, actor),
        checkLaunch: (args) => checkLaunch(core, args),
        stop: (job, actor) => stop(core, job, actor),
        keeps: (profile) => config.profiles.get(profile)?.keep === true,
        needsYou: (schedule) => notify.scheduleNeedsYou(schedule),
      },
      clock,
    ),
    notify,
    peers: {
      rules: new PeerRules(
        store.peerItemsSince(new Date(Date.now() - LIMITS.duplicateMs).toISOString()),
        loaded.jobs,
      ),
      watches: new Watches(store, registry),
      foreground: new Foreground(graceMs),
    },
    board: new TaskBoard(registry, feed, pushes, board, await board.load(), graceMs),
    worktrees: new WorktreeStats(registry, feed, paths.overlapsDir),
    remotes,
    concierge: new Concierge(
      { store, registry, pushes, feed, clock, sendItem: (receiver, item) => sendItem(core, receiver, item) },
      store.conciergeKept(),
      config,
    ),
    terminals: () => hostLink.terminals(),
    jobSockets,
    bwrap: bwrapProgram(env),
    stopGraceMs: Number(env.ROOST_STOP_GRACE_MS) || 3000,
    tokens,
    hubUrl: () => hubUrl,
    shutdown: () => void shutdown(),
    env,
    secrets,
    // A job that rested its idleStop through is stopped as `stop` does, its reason idle.
    idle: new IdleStops(registry, (job, words) => stop(core, job, ROOST, { why: "idle", words })),
    // A job told what to fix is replied to as by `reply`; one cleaned is removed as by `rm --delete-branch`.
    queue: new MergeQueue({
      store,
      pushes,
      feed,
      registry,
      home: paths.home,
      worktreesDir: paths.worktreesDir,
      tell: (id, text, actor) => reply(core, { id, text }, actor),
      clean: (id, actor) => remove(core, registry.get(id), actor, { deleteBranch: true }),
      redact: (text) => secrets.redact(text),
    }),
    // What jobs spend: a spent budget steers an agent to stop, and stops it with the reason `budget`.
    budgets: new Budgets({
      config: config.budgets ?? {},
      store,
      registry,
      feed,
      notify,
      steer: async (job, text) => (await reply(core, { id: job.rec.id, text, mode: "steer" }, ROOST)).seq,
      stop: (job) => stop(core, job, ROOST, { why: "budget" }),
      respawn: (job) => respawn(core, job, USER),
      tickMs: Number(env.ROOST_BUDGET_TICK_MS) || 15000,
      graceMs: Number(env.ROOST_BUDGET_GRACE_MS) || 30000,
    }),
  };
  registry.budgetOf = (job) => core.budgets.row(job);

  const hostLink = new HostLink(core, paths.home, () => stopping);
  // A parent whose last child handed back or ended rests now: its watchers and its worktree's stat hear it.
  registry.onWaitingChanged = (job, child) => {
    core.peers.watches.changed(core, job.rec.id, false, child.rec.id);
    core.worktrees.changed(job);
  };
  feed.observe((entry) => core.concierge.digests.observed(entry));
  registry.onNoted = (job) => core.idle.noted(job);

  recordSetAside(core, loaded.setAside);
  await findJobsAgain(core);
  core.board.afterRestart(); // claims follow lives: those of sessions gone meanwhile go
  core.idle.start(); // the jobs found resting count their rest from now
  // What a crash left in worktrees/ (docs/worktrees.md): in the background, logged.
  void sweepWorktrees(paths, new Set(registry.all().map((j) => j.rec.id))).then((said) => {
    for (const line of said) console.warn(`roost: worktrees: ${line}`);
  });
  // The agents that will connect again (those of the running jobs that spoke before): each takes
  // its pending replies as it does, read here for all in one query rather than one each.
  const comingBack = registry.all().filter((j) => j.rec.life === "running" && j.rec.kind === "protocol");
  store.readPending(comingBack.map((j) => j.rec.id));
  const bridge = new Bridge((caller, op, args) => runOp(core, caller, op, args), {
    onClosed: (conn) => connectionClosed(core, conn.state),
  });
  // The sandboxed jobs still running get their own sockets again, where their agents reconnect.
  const sandboxed = registry.all().filter((j) => j.rec.launch.sandbox && j.rec.life === "running");
  io.opens?.();
  await Promise.all([
    bridge.listen(paths.socket),
    ...sandboxed.map((j) =>
      jobSockets.open(j.rec.id).catch((err) => console.error(`roost: ${j.rec.id}'s socket: ${err}`)),
    ),
  ]);
  const running = registry.all().filter((j) => j.rec.life === "running").length;
  console.log(`roost ${ROOST_VERSION}: listening on ${paths.socket}`);
  console.log(`  home ${paths.home}; ${registry.all().length} jobs, ${running} running; pid ${process.pid}`);
  if (time.test)
    console.error(`roost: ROOST_TEST_CLOCK is set (for tests only): schedules' time runs ${time.test}`);
  if (syncLog)
    console.error(
      `roost: ROOST_TEST_SYNC_LOG is set (for tests only): no WAL checkpoints; syncs logged to ${syncLog}`,
    );

  let http: FastifyInstance | null = null;
  let stoppedWith: (code: number) => void = () => {};
  const stopped = new Promise<number>((resolve) => {
    stoppedWith = resolve;
  });
  async function shutdown(code = 0): Promise<void> {
    if (stopping) return stopped.then(() => {});
    stopping = true;
    clock.close();
    core.idle.close();
    remotes.close();
    core.queue.close();
    core.budgets.close();
    await Promise.all([bridge.close().catch(() => {}), jobSockets.closeAll(), closeSoon(http?.close())]);
    // The host's link before the store: an exit or a screen it tells meanwhile is still written.
    await hostLink.close();
    registry.flush();
    await board.close();
    store.close();
    fs.rmSync(paths.socket, { force: true });
    if (code === 0) console.log("roost: stopped (the jobs keep running)");
    stoppedWith(code);
  }
  io.stoppable?.(() => shutdown(), stopped);

  // The HTTP face is loaded and built once the agents are back: after a restart they all connect
  // again at once, and the face's modules (~150 ms of compiling and building on a small machine)
  // would be in their way. A hub's page waits that long more.
  await agentsBack(comingBack, AGENTS_BACK_MOST_MS);
  if (stopping) throw new DaemonStopped(0); // a `shutdown` came meanwhile
  http = await (await import("./http/app.js")).buildHttp(core);
  const { listenHub } = await import("./http/start.js");
  const url = await listenHub(core, http, address, toTerminal);
  if (!url) {
    await shutdown(1);
    throw new DaemonStopped(1); // listenHub said why
  }
  urlKnown(url);
  // Started: the schedules' runs due (or missed) while it was down now run. Not sooner: a job
  // started while the HTTP face's modules were still loading was seen to make node's import of
  // fastify (CommonJS) answer an empty module, and the daemon fail to start.
  core.schedules.start();
  remotes.start(); // the other daemons' rows, followed from now on
  core.concierge.start(); // its orders on the clock, as the schedules
  core.budgets.start(); // running time counted, budgets checked, every tick
  // The merge queue goes on: an entry cut short is landed once, or started again (core/queue/queue.ts).
  void core.queue.start().catch((err) => console.error("roost: the merge queue:", err));
  return { core, url, stop: () => shutdown(), stopped };
}

/** The daemon could not start and has closed what it opened; it said why in its log. */
export class DaemonStopped extends Error {
  constructor(readonly code: number) {
    super(`the daemon stopped as it started (exit code ${code})`);
  }
}

/** The task board in PostgreSQL (docs/fleet.md): this daemon named on it by its host, by default. */
async function openSharedBoard(board: NonNullable<Config["board"]>, home: string): Promise<BoardStore> {
  const { PgBoard } = await import("./store/pg-board.js");
  const name =
    board.name ??
    (os
      .hostname()
      .replace(/[^A-Za-z0-9_.-]/g, "-")
      .slice(0, 40) ||
      "roost");
  return PgBoard.open({
    url: board.url,
    name,
    leaseMs: board.leaseMs ?? DEFAULT_LEASE_MS,
    instance: `${os.hostname()}:${home}`,
  });
}

/** A close that waits at most a moment: a shutdown never hangs on a slow client. */
const closeSoon = (closing: Promise<unknown> | undefined) =>
  Promise.race([closing?.catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);

/**
 * Resolves once each of these jobs is connected again (or has ended), or after `mostMs`: an agent
 * that died with the daemon never comes back.
 */
async function agentsBack(jobs: LiveJob[], mostMs: number): Promise<void> {
  const until = performance.now() + mostMs;
  const away = (j: LiveJob) => j.link === null && j.rec.life === "running";
  while (jobs.some(away) && performance.now() < until) await sleep(5);
}
