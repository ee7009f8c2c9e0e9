/**
 * `roost budget JOB --cost N`: a job's own budget; `roost spend`: what jobs spent a day, against
 * roost.json's budgets (docs/budgets.md). And the budget flags `dispatch` takes.
 */
import type { Limits, OpResult, Spent } from "../../../sdk/ts/protocol/index.js";
import { type Command, out, printJson, str, UsageError, type Values } from "../command.js";
import { callOnce } from "../connect.js";
import { columns, terminalWidth, wantsColour } from "../format.js";
import { io } from "../io.js";

/** The schema set's BUDGET_DIMENSIONS, here as a plain value: the CLI loads no schema at its start. */
const BUDGET_DIMENSIONS = ["cost", "tokens", "minutes"] as const;

/** A limit's value from the command line: a number > 0 (tokens: a whole one). */
function amount(dim: (typeof BUDGET_DIMENSIONS)[number], text: string, flag: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n <= 0 || (dim === "tokens" && !Number.isInteger(n)))
    throw new UsageError(
      `${flag}: ${JSON.stringify(text)} is not ${dim === "tokens" ? "a whole number" : "a number"} > 0${dim === "cost" ? " (US dollars)" : ""}`,
    );
  return n;
}

/** `--budget cost=5,minutes=30` and `--budget-cost 5` (…`-tokens`, `-minutes`), as one limit; undefined for none. */
export function budgetFlags(values: Values, prefix = "budget-"): Limits | undefined {
  const limit: Limits = {};
  const whole = str(values, "budget");
  for (const part of whole ? whole.split(",") : []) {
    const [dim, value, ...rest] = part.split("=");
    if (!(BUDGET_DIMENSIONS as readonly string[]).includes(dim!.trim()) || value === undefined || rest.length)
      throw new UsageError(
        `--budget: ${JSON.stringify(part)} is not DIM=N; DIM one of ${BUDGET_DIMENSIONS.join(", ")} (--budget cost=5,minutes=30)`,
      );
    const d = dim!.trim() as (typeof BUDGET_DIMENSIONS)[number];
    limit[d] = amount(d, value, "--budget");
  }
  for (const d of BUDGET_DIMENSIONS) {
    const v = str(values, `${prefix}${d}`);
    if (v !== undefined) limit[d] = amount(d, v, `--${prefix}${d}`);
  }
  return Object.keys(limit).length ? limit : undefined;
}

export const BUDGET_OPTIONS = {
  budget: {
    type: "string",
    value: "DIM=N,...",
    help: "its own budget: cost=USD, tokens=N, minutes=N (docs/budgets.md)",
  },
  "budget-cost": { type: "string", value: "USD", help: "its own budget's cost" },
  "budget-tokens": { type: "string", value: "N", help: "its own budget's tokens" },
  "budget-minutes": { type: "string", value: "N", help: "its own budget's minutes of running" },
} as const;

const money = (n: number) => `$${n.toFixed(2)}`;
const spentWords = (s: Spent) => [
  money(s.cost),
  `${Math.round(s.tokens)} tok`,
  `${s.minutes.toFixed(1)} min`,
];
const limitWords = (l: Limits | undefined) =>
  l
    ? BUDGET_DIMENSIONS.filter((d) => l[d] !== undefined)
        .map((d) => (d === "cost" ? money(l.cost!) : d === "tokens" ? `${l.tokens} tok` : `${l.minutes} min`))
        .join(", ")
    : "";

export const budget: Command = {
  name: "budget",
  args: "JOB",
  arity: [1, 1],
  summary: "Set a job's own budget; one stopped for its budget goes on once none is spent.",
  details:
    "What is given replaces that part of its budget (the rest stays). A job roost stopped for its budget\n" +
    "(its row's reason: budget) is started again when none of its budgets is spent any longer.\n" +
    "--json: {job, continued}.",
  options: {
    cost: { type: "string", value: "USD", help: "what it may cost, in US dollars" },
    tokens: { type: "string", value: "N", help: "how many tokens it may use" },
    minutes: { type: "string", value: "N", help: "how many minutes it may run" },
  },
  examples: ["roost budget j3 --cost 10", "roost budget j3 --minutes 90 --tokens 2000000"],
  async run({ positionals: [id], values, json, env }) {
    const limit = budgetFlags(values, "");
    if (!limit) throw new UsageError("give --cost, --tokens or --minutes: the job's own budget");
    const result = await callOnce(env, "budget", { id: id!, ...limit });
    if (json) printJson(result);
    else
      out(
        `${result.job.id}'s own budget: ${limitWords(result.job.budget?.own ?? undefined)}${result.continued ? "; started again" : ""}`,
      );
    return 0;
  },
};

export const spend: Command = {
  name: "spend",
  arity: [0, 0],
  summary: "What jobs spent, a day at a time: in all, by profile, by repository; and the budgets.",
  details: "Days are the daemon machine's local dates, newest first. --json: {today, days, limits}.",
  options: { days: { type: "string", value: "N", help: "how many days back, today included (default 7)" } },
  examples: ["roost spend", "roost spend --days 30 --json"],
  async run({ values, json, env }) {
    const daysText = str(values, "days");
    const days = daysText === undefined ? undefined : Number(daysText);
    if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 366))
      throw new UsageError(`--days: ${JSON.stringify(daysText)} is not a whole number from 1 to 366`);
    const result: OpResult<"spend"> = await callOnce(env, "spend", days === undefined ? {} : { days });
    if (json) {
      printJson(result);
      return 0;
    }
    const { limits } = result;
    const rows: string[][] = [];
    for (const d of result.days) {
      rows.push([
        d.day,
        "all",
        ...spentWords(d.total),
        d.day === result.today ? limitWords(limits.daily) : "",
      ]);
      for (const [p, s] of Object.entries(d.profiles))
        rows.push([
          "",
          `profile ${p}`,
          ...spentWords(s),
          d.day === result.today ? limitWords(limits.profiles?.[p]) : "",
        ]);
      for (const [r, s] of Object.entries(d.repositories))
        rows.push(["", r || "(no repository)", ...spentWords(s), ""]);
    }
    if (rows.length === 0) out("nothing spent in these days");
    else
      for (const line of columns(["DAY", "WHAT", "COST", "TOKENS", "MINUTES", "BUDGET"], rows, {
        width: terminalWidth(io().stdout, env),
        colour: wantsColour(io().stdout, env),
        max: [10, 40],
      }))
        out(line);
    if (limits.job) out(`each job's own budget by default: ${limitWords(limits.job)}`);
    return 0;
  },
};
