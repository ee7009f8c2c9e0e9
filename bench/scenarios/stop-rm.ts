/**
 * Stop and rm: how long `stop` and `rm` of a job whose process dies at once on SIGTERM (the inert
 * profile's `sleep 600`) take, one at a time and many at once (the CLI's and the hub's bulk
 * actions send their `stop`s and `rm`s as concurrent requests).
 *
 * - one at a time: 20 running jobs stopped one after the other, each `stop` timed from its request
 *   to its answer (which comes once the process has ended and its exit is recorded); then 20 more
 *   removed (`rm` of a running job) the same way;
 * - at once: 100 running jobs, their 100 `stop`s sent together on one connection, timed until the
 *   last answer; then 100 more removed the same way.
 *
 * What a `stop` waits for is the pty host's word that the process ended, which node-pty gives once
 * it has read the job's terminal to its end.
 */
import { performance } from "node:perf_hooks";
import { type Figure, info, underTarget } from "../figures.js";
import { BenchDaemon, dispatchInert } from "../harness.js";
import type { Conn } from "../lines.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { median, percentile, round } from "../stats.js";

const ONE_BY_ONE = 20;
const AT_ONCE = 100;
const TARGET_MS = 50;

/** Each op's time, request to answer, one job after the other. */
async function oneByOne(hub: Conn, op: "stop" | "rm", ids: string[]): Promise<number[]> {
  const ms: number[] = [];
  for (const id of ids) {
    const t0 = performance.now();
    await hub.ok(op, { id });
    ms.push(performance.now() - t0);
  }
  return ms;
}

/** All the ops sent together: the time until the last answer. */
async function atOnce(hub: Conn, op: "stop" | "rm", ids: string[]): Promise<number> {
  const t0 = performance.now();
  await Promise.all(ids.map((id) => hub.ok(op, { id })));
  return performance.now() - t0;
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = await BenchDaemon.start({ profileDir: ctx.profileDir });
  let hub: Conn | null = null;
  try {
    hub = await d.connect();
    const ids = async (n: number) => (await dispatchInert(d, n)).map((j) => j.id);
    ctx.log(`${ONE_BY_ONE} stops, one at a time`);
    const stops = await oneByOne(hub, "stop", await ids(ONE_BY_ONE));
    ctx.log(`${ONE_BY_ONE} rms, one at a time`);
    const rms = await oneByOne(hub, "rm", await ids(ONE_BY_ONE));
    ctx.log(`${AT_ONCE} stops at once`);
    const stopAll = await atOnce(hub, "stop", await ids(AT_ONCE));
    ctx.log(`${AT_ONCE} rms at once`);
    const rmAll = await atOnce(hub, "rm", await ids(AT_ONCE));
    const S = "stop-rm";
    const figures: Figure[] = [
      underTarget(S, "stop of a running job, p50", "ms", round(median(stops), 1), TARGET_MS),
      info(S, "stop, p90", "ms", round(percentile(stops, 90), 1)),
      underTarget(S, "rm of a running job, p50", "ms", round(median(rms), 1), TARGET_MS),
      info(S, `${AT_ONCE} stops sent at once, until the last answer`, "ms", round(stopAll, 1)),
      info(S, `${AT_ONCE} rms sent at once, until the last answer`, "ms", round(rmAll, 1)),
    ];
    return { figures, detail: { stops, rms, stopAll, rmAll } };
  } finally {
    hub?.close();
  }
}

export const stopRm: Scenario = {
  name: "stop-rm",
  aliases: ["stop", "rm"],
  title: "stop and rm of jobs that die at once on SIGTERM, one at a time and 100 at once",
  run,
};
