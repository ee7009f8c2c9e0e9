/**
 * `npm run bench [-- NAME...] [--profile] [--compare]`: runs the scenarios (all, or those named),
 * prints a table and appends one JSON line per scenario to bench/results.jsonl; with --compare,
 * each figure beside the last run's on record (bench/compare.ts). See docs/benchmarks.md.
 *
 * Every figure with a baseline is a ratio against it, measured in the same run on the same
 * machine: the machines are shared and noisy, and an absolute figure says little. A missed target
 * is reported, never a failure; the exit code is 1 only when a scenario could not run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { compare, compareText, readHistory } from "./compare.js";
import { type Figure, table } from "./figures.js";
import { cleanupAll, endScenario, ROOT } from "./harness.js";
import type { Scenario, ScenarioResult } from "./scenario.js";
import { boardScenario } from "./scenarios/board.js";
import { dispatchScenario } from "./scenarios/dispatch.js";
import { fanOut } from "./scenarios/fan-out.js";
import { hub } from "./scenarios/hub.js";
import { idleJobs } from "./scenarios/idle-jobs.js";
import { manyAgents } from "./scenarios/many-agents.js";
import { overlapsScenario } from "./scenarios/overlaps.js";
import { peersScenario } from "./scenarios/peers.js";
import { replies, repliesHttp } from "./scenarios/replies.js";
import { reportThroughput } from "./scenarios/report-throughput.js";
import { resourcesScenario } from "./scenarios/resources.js";
import { restart } from "./scenarios/restart.js";
import { startScenario } from "./scenarios/start.js";
import { stopRm } from "./scenarios/stop-rm.js";
import { thousand } from "./scenarios/thousand.js";
import { machine } from "./stats.js";

const SCENARIOS: Scenario[] = [
  reportThroughput,
  replies,
  repliesHttp,
  fanOut,
  startScenario,
  manyAgents,
  idleJobs,
  restart,
  dispatchScenario,
  peersScenario,
  boardScenario,
  stopRm,
  overlapsScenario,
  resourcesScenario,
  thousand,
  hub,
];
const RESULTS = path.join(ROOT, "bench/results.jsonl");

const USAGE = `usage: npm run bench [-- [NAME...] [--profile] [--compare]]

  NAME       one or more of: ${SCENARIOS.map((s) => s.name).join(", ")} (default: all)
  --profile  run the daemon with --cpu-prof and an event-loop delay probe; the .cpuprofile
             files are kept in a temp directory, printed at the end (figures are slower then)
  --compare  each figure beside the same figure of the last run on record: those worse beyond
             their spread (their rounds', else their last runs') are listed, and the exit
             code is 3

Figures go to the terminal and, one JSON line per scenario, to bench/results.jsonl.`;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  const profile = args.includes("--profile");
  const comparing = args.includes("--compare");
  const names = args.filter((a) => !a.startsWith("-"));
  const unknown = args.filter((a) => a.startsWith("-") && a !== "--profile" && a !== "--compare");
  const chosen: Scenario[] = [];
  for (const name of names) {
    const s = SCENARIOS.find((x) => x.name === name || x.aliases.includes(name));
    if (!s) unknown.push(name);
    else if (!chosen.includes(s)) chosen.push(s);
  }
  if (profile && comparing)
    unknown.push("--profile with --compare (a profiled run is slower: compare runs without it)");
  if (unknown.length > 0) {
    console.error(`bench: unknown ${unknown.join(", ")}\n\n${USAGE}`);
    return 64;
  }
  const scenarios = chosen.length > 0 ? chosen : SCENARIOS;
  const profileDir = profile ? fs.mkdtempSync(path.join(os.tmpdir(), "roost-bench-profiles-")) : null;
  const m = machine(ROOT);
  // Read before this run appends its own lines.
  const history = comparing ? readHistory(RESULTS) : [];
  console.error(
    `bench: ${m.nproc} CPUs (${m.cpu}), node ${m.node}, load ${m.loadAvg.join(" ")}${profile ? ", profiling" : ""}`,
  );

  const figures: Figure[] = [];
  const failed: string[] = [];
  for (const s of scenarios) {
    const log = (msg: string) => console.error(`  ${s.name}: ${msg}`);
    console.error(`bench: ${s.title}`);
    const at = new Date().toISOString();
    const before = machine(ROOT);
    const started = performance.now();
    let result: ScenarioResult | null = null;
    let error: string | null = null;
    try {
      result = await s.run({ profileDir: profileDir ? path.join(profileDir, s.name) : null, log });
      figures.push(...result.figures);
    } catch (err) {
      failed.push(s.name);
      error = (err as Error)?.stack ?? String(err);
      console.error(`bench: ${s.name} failed: ${error}`);
    } finally {
      await endScenario();
    }
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    log(`${seconds} s`);
    const line = {
      at,
      scenario: s.name,
      seconds,
      machine: before,
      loadAvgAfter: machine(ROOT).loadAvg,
      profiled: profile,
      ...(result ? { figures: result.figures, detail: result.detail } : { error }),
    };
    fs.appendFileSync(RESULTS, `${JSON.stringify(line)}\n`);
  }

  console.log(`\n${table(figures)}\n`);
  console.log(`machine: ${m.nproc} CPUs, ${m.cpu}, ${m.memGiB} GiB, node ${m.node}, ${m.os}`);
  console.log(`results appended to ${path.relative(process.cwd(), RESULTS) || RESULTS}`);
  if (profileDir) console.log(`daemon CPU profiles (.cpuprofile, open in Chrome DevTools): ${profileDir}`);
  let regressed = false;
  if (comparing) {
    const verdicts = compare(figures, history, m.nproc);
    console.log(`\n${compareText(verdicts)}`);
    regressed = verdicts.some((v) => v.worse);
  }
  // A scenario that could not run fails the whole run (its figures are missing from the table).
  if (failed.length > 0) console.error(`bench: failed: ${failed.join(", ")}`);
  return failed.length > 0 ? 1 : regressed ? 3 : 0;
}

process.on("exit", cleanupAll);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    cleanupAll();
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
