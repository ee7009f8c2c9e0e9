/**
 * `roost schedule`: the schedules (docs/protocol.md, "Schedules"): list them, add one (a `when`,
 * a profile and a task), remove, pause, resume or run one now, and read a `when` before adding it.
 */
import path from "node:path";
import type { Schedule } from "../../../sdk/ts/protocol/index.js";
import { dueIn, zonedClock } from "../../../sdk/ts/protocol/time-words.js";
import { type Command, type Invocation, out, printJson, str, UsageError } from "../command.js";
import { callOnce } from "../connect.js";
import { ago, clean, columns, terminalWidth, wantsColour } from "../format.js";
import { io } from "../io.js";
import { eachJob } from "./each-job.js";

const ACTIONS = "add, rm, pause, resume, run or when (none: the list)";

/** Its next run as its clock reads it: "Tue 10 Mar 18:00 UTC (in 3h)". */
const nextWords = (s: Schedule) =>
  s.paused
    ? "paused"
    : s.nextAt
      ? `${zonedClock(s.nextAt, s.timeZone)} ${s.timeZone} (${dueIn(s.nextAt)})`
      : "never";

/**
 * Its last run: "started j12 5m ago (came to rest; stopped)", "skipped 2h ago (still running)";
 * once it needs the user, why: "needs you: skipped 3 times: j13 still running".
 */
function lastWords(s: Schedule): string {
  if (s.needsYou) return `needs you: ${s.needsYou}`;
  const r = s.runs.at(-1);
  if (!r) return "-";
  const what = r.outcome === "started" ? `started ${r.job}` : r.outcome;
  const why = r.outcome === "started" ? r.ended?.how : r.why;
  return `${what} ${ago(r.at)} ago${why ? ` (${why})` : ""}`;
}

function list(schedules: Schedule[], env: NodeJS.ProcessEnv): void {
  if (schedules.length === 0) {
    out("no schedules yet: try `roost schedule add 'daily 18:00' shell 'npm test'`");
    return;
  }
  const lines = columns(
    ["ID", "NAME", "WHEN", "NEXT", "LAST", "RUNS"],
    schedules.map((s) => [
      s.id,
      clean(s.name),
      s.words,
      nextWords(s),
      lastWords(s),
      `${s.launch.profile}: ${clean(s.launch.task)}`,
    ]),
    { width: terminalWidth(io().stdout, env), colour: wantsColour(io().stdout, env), max: [6, 24, 40] },
  );
  for (const line of lines) out(line);
}

async function add({
  positionals: [when, profile, ...task],
  values,
  json,
  env,
}: Invocation): Promise<number> {
  if (when === undefined || profile === undefined || task.length === 0)
    throw new UsageError("schedule add needs WHEN PROFILE TASK (quote WHEN: 'daily 18:00')");
  const missed = str(values, "missed");
  if (missed !== undefined && missed !== "skip" && missed !== "once")
    throw new UsageError(`--missed is skip or once, not ${JSON.stringify(missed)}`);
  const cwd = str(values, "cwd");
  const name = str(values, "name");
  const jobName = str(values, "job-name");
  const { schedule } = await callOnce(env, "schedule-add", {
    when,
    launch: {
      profile,
      task: task.join(" "),
      // The daemon has its own working directory: a relative --cwd means relative to the user's.
      cwd: cwd === undefined ? io().cwd() : cwd.startsWith("~") ? cwd : path.resolve(cwd),
      ...(jobName !== undefined ? { name: jobName } : {}),
      ...(values.worktree ? { worktree: true } : {}),
      ...(values.keep ? { keep: true } : {}),
    },
    ...(name !== undefined ? { name } : {}),
    ...(missed !== undefined ? { missed } : {}),
  });
  if (json) printJson({ schedule });
  else
    out(
      `added ${schedule.id} ${JSON.stringify(schedule.name)}: ${schedule.words}; next run ${nextWords(schedule)}`,
    );
  return 0;
}

async function preview({ positionals: [when, ...rest], json, env }: Invocation): Promise<number> {
  if (when === undefined || rest.length > 0)
    throw new UsageError("schedule when needs WHEN, quoted: 'weekdays 09:00'");
  const r = await callOnce(env, "schedule-when", { when });
  if (json) printJson(r);
  else {
    out(r.words);
    for (const t of r.next) out(`  ${zonedClock(t, r.timeZone)} ${r.timeZone} (${dueIn(t)})`);
  }
  return 0;
}

export const schedule: Command = {
  name: "schedule",
  aliases: ["schedules"],
  args: "[ACTION ARGS...]",
  arity: [0, Number.POSITIVE_INFINITY],
  summary: "List the schedules, or add, remove, pause, resume or run one: jobs started on a clock.",
  details: [
    "With no ACTION: each schedule, its WHEN in words, its next run (in its time zone) and its last.",
    "  add WHEN PROFILE TASK...  a job from PROFILE given TASK, started at each WHEN",
    "  rm ID... | pause ID... | resume ID...   (resumed, it runs from now on: none is owed)",
    "  run ID                    one run now, off its clock (its next run stays)",
    "  when WHEN                 WHEN in words and its next three runs; nothing is saved",
    "WHEN (one argument: quote it) is every N(s|m|h|d) (at least a minute, counted from when it",
    'was added), daily HH:MM, weekdays HH:MM or cron "m h dom mon dow", each optionally followed',
    "by tz Area/City (else the daemon's time zone). A run while its last job still runs is",
    "skipped; runs missed while roost was down are said as one skipped run (--missed once: one job",
    "for them all). A run is over when its job comes to rest (a terminal's prompt again, a protocol",
    "agent's done) or ends: roost records it and stops the job, unless --keep (or its profile's",
    '"keep": true). Three skips in a row and it needs you: LAST says why, until a run starts.',
    "--json: {schedules} for the list, {schedule} for add, {job} for run.",
  ].join("\n"),
  options: {
    name: { type: "string", value: "N", help: "add: the schedule's name (default: the task's first words)" },
    "job-name": { type: "string", value: "N", help: "add: the name of each job it starts" },
    missed: {
      type: "string",
      value: "skip|once",
      help: "add: runs missed while roost was down (default skip)",
    },
    cwd: { type: "string", value: "DIR", help: "add: where its jobs run (default: this directory)" },
    worktree: { type: "boolean", help: "add: each job in a git worktree of its own, on a branch roost/ID" },
    keep: { type: "boolean", help: "add: keep each job once its run is over (default: it is stopped)" },
  },
  examples: [
    "roost schedule",
    "roost schedule add 'daily 18:00' shell 'npm test' --name nightly",
    "roost schedule add 'weekdays 09:00 tz Europe/Berlin' claude 'summarise the open PRs'",
    "roost schedule add 'cron \"*/15 9-17 * * 1-5\"' shell 'git fetch --all' --missed once",
    "roost schedule when 'every 90m'",
    "roost schedule pause s2",
    "roost schedule run s1",
  ],
  async run(inv) {
    const [action, ...rest] = inv.positionals;
    const sub = { ...inv, positionals: rest };
    switch (action) {
      case undefined: {
        const { schedules } = await callOnce(inv.env, "schedules", {});
        if (inv.json) printJson({ schedules });
        else list(schedules, inv.env);
        return 0;
      }
      case "add":
        return add(sub);
      case "when":
        return preview(sub);
      case "rm":
      case "pause":
      case "resume": {
        if (rest.length === 0) throw new UsageError(`schedule ${action} needs ID...`);
        const done = { rm: "removed", pause: "paused", resume: "resumed" }[action];
        return eachJob(sub, done, (client, id) =>
          action === "rm"
            ? client.call("schedule-rm", { id })
            : client.call("schedule-pause", { id, paused: action === "pause" }),
        );
      }
      case "run": {
        if (rest.length !== 1) throw new UsageError("schedule run needs one ID");
        const { job } = await callOnce(inv.env, "schedule-run", { id: rest[0]! });
        if (inv.json) printJson({ job });
        else out(`started ${job.id} (${job.profile}) from ${rest[0]}`);
        return 0;
      }
      default:
        throw new UsageError(`no action ${JSON.stringify(action)}: ${ACTIONS}`);
    }
  },
};
