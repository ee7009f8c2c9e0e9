/**
 * Idle jobs: 100 terminal jobs running `sleep 1000` (a profile in roost.json), all started and
 * quiet; what each costs in memory. Counted, per job:
 *
 *   (the daemon's RSS growth + the pty host's RSS growth + the RSS of every job's processes) / 100
 *
 * each RSS VmRSS from /proc/<pid>/status, the growths from the daemon and host started with no job
 * to the same two with 100 idle jobs. A job's processes: the pty host's children (one `sleep`
 * each, the session leader of its pty) and their descendants (none here). RSS counts the shared
 * pages (libc, the `sleep` binary) in every process, so the sum over-counts them 100 times; the
 * same sum with PSS (shared pages divided among their users, /proc/<pid>/smaps_rollup) is in the
 * table too. Not counted: the kernel's memory for each pty and process (page tables, the tty's
 * buffers), which no /proc figure of a process shows.
 */
import { performance } from "node:perf_hooks";
import { type Figure, info, underTarget } from "../figures.js";
import { BenchDaemon, childPids, dispatchJobs, sleep } from "../harness.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { median, memKiB, round } from "../stats.js";

const JOBS = 100;
const TARGET_MB = 5;
const IDLE_MS = 4000; // longer than a job's quietMs (1,500 ms): every job has gone quiet
const SAMPLES = 5;
const CONFIG = { agentProfiles: { idle: { command: ["sleep", "1000"], task: "type" } } };

/** Every descendant of pid (children first). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const child of childPids(pid)) out.push(child, ...descendants(child));
  return out;
}

interface Snapshot {
  daemonKiB: number;
  hostKiB: number;
  jobsRssKiB: number;
  jobsPssKiB: number;
  jobProcesses: number;
}

function snapshot(d: BenchDaemon, host: number): Snapshot {
  let jobsRssKiB = 0;
  let jobsPssKiB = 0;
  const jobs = descendants(host);
  for (const pid of jobs) {
    try {
      const m = memKiB(pid);
      jobsRssKiB += m.rss;
      jobsPssKiB += m.pss;
    } catch {} // gone meanwhile
  }
  return {
    daemonKiB: memKiB(d.pid).rss,
    hostKiB: memKiB(host).rss,
    jobsRssKiB,
    jobsPssKiB,
    jobProcesses: jobs.length,
  };
}

/** The median of each field over SAMPLES snapshots, 200 ms apart. */
async function settled(d: BenchDaemon, host: number): Promise<Snapshot> {
  const snaps: Snapshot[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    snaps.push(snapshot(d, host));
    await sleep(200);
  }
  const m = (f: (s: Snapshot) => number) => median(snaps.map(f));
  return {
    daemonKiB: m((s) => s.daemonKiB),
    hostKiB: m((s) => s.hostKiB),
    jobsRssKiB: m((s) => s.jobsRssKiB),
    jobsPssKiB: m((s) => s.jobsPssKiB),
    jobProcesses: m((s) => s.jobProcesses),
  };
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = await BenchDaemon.start({ config: CONFIG, profileDir: ctx.profileDir });
  const host = d.ptyHostPid();
  if (!host) throw new Error("the daemon started no pty host");
  await sleep(1000);
  const before = await settled(d, host);
  ctx.log(
    `started, no job: daemon ${round(before.daemonKiB / 1024, 1)} MiB, pty host ${round(before.hostKiB / 1024, 1)} MiB`,
  );
  const t0 = performance.now();
  const jobs = await dispatchJobs(d, "idle", JOBS, 4);
  ctx.log(`${JOBS} jobs dispatched in ${Math.round(performance.now() - t0)} ms; idling ${IDLE_MS} ms`);
  await sleep(IDLE_MS);
  const hub = await d.connect();
  const { rows } = (await hub.ok("list", {})) as { rows: { life: string; status: string }[] };
  hub.close();
  const running = rows.filter((r) => r.life === "running").length;
  if (running !== JOBS) throw new Error(`${running} of ${JOBS} jobs are running`);
  const after = await settled(d, host);
  if (after.jobProcesses < JOBS) throw new Error(`${after.jobProcesses} job processes for ${JOBS} jobs`);

  const kib = (k: number) => round(k / 1024, 2);
  const daemonGrowth = after.daemonKiB - before.daemonKiB;
  const hostGrowth = after.hostKiB - before.hostKiB;
  const perJobRss = (daemonGrowth + hostGrowth + after.jobsRssKiB) / JOBS;
  const perJobPss = (daemonGrowth + hostGrowth + after.jobsPssKiB) / JOBS;
  const perJobMB = (perJobRss * 1024) / 1e6;
  ctx.log(
    `per job: daemon ${kib(daemonGrowth / JOBS)} + pty host ${kib(hostGrowth / JOBS)} + ` +
      `processes ${kib(after.jobsRssKiB / JOBS)} (PSS ${kib(after.jobsPssKiB / JOBS)}) MiB = ${kib(perJobRss)} MiB`,
  );
  const S = "idle jobs";
  const figures: Figure[] = [
    underTarget(
      S,
      `memory per idle job (RSS: daemon + host growth + processes)`,
      "MB",
      round(perJobMB, 2),
      TARGET_MB,
    ),
    info(S, "the same with the processes' PSS", "MB", round((perJobPss * 1024) / 1e6, 2)),
    info(S, "  daemon RSS growth per job", "MB", round((daemonGrowth * 1024) / JOBS / 1e6, 2)),
    info(S, "  pty host RSS growth per job", "MB", round((hostGrowth * 1024) / JOBS / 1e6, 2)),
    info(S, "  a job's processes, RSS", "MB", round((after.jobsRssKiB * 1024) / JOBS / 1e6, 2)),
    info(S, "  a job's processes, PSS", "MB", round((after.jobsPssKiB * 1024) / JOBS / 1e6, 2)),
  ];
  return {
    figures,
    detail: {
      jobs: JOBS,
      command: CONFIG.agentProfiles.idle.command,
      idleMs: IDLE_MS,
      jobIds: [jobs[0]?.id, jobs.at(-1)?.id],
      beforeKiB: before,
      afterKiB: after,
      perJobKiB: { rss: round(perJobRss, 0), pss: round(perJobPss, 0) },
      jobsPssPerJobKiB: round(after.jobsPssKiB / JOBS, 0),
    },
  };
}

export const idleJobs: Scenario = {
  name: "idle-jobs",
  aliases: ["idle"],
  title: `idle jobs: ${JOBS} terminal jobs running sleep 1000`,
  run,
};
