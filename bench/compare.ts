/**
 * `npm run bench -- --compare`: each figure of this run beside the same figure of the last run on
 * record (bench/results.jsonl, the same scenario on a machine with as many CPUs, not profiled), and
 * flagged where it got worse beyond the spread that figure shows by itself: the spread of its rounds
 * in that run where the scenario kept them (`rounds`), else of its last five runs' values, else 10%
 * either side. A regression is then seen by the change that made it, not weeks later.
 */
import fs from "node:fs";
import { type Figure, num } from "./figures.js";

/** Which way is better for a figure: what its target says, else its unit (a rate: higher). */
export type Better = "higher" | "lower";

export function betterOf(f: Pick<Figure, "unit" | "target">): Better {
  if (f.target?.startsWith("ratio ≥") || f.target?.startsWith("≥")) return "higher";
  if (f.target?.startsWith("<") || f.target?.startsWith("≤")) return "lower";
  return f.unit.endsWith("/s") || f.unit === "×" ? "higher" : "lower";
}

/** One line of bench/results.jsonl, as far as comparing goes. */
export interface ResultLine {
  at: string;
  scenario: string;
  profiled?: boolean;
  machine?: { nproc?: number; commit?: string | null };
  figures?: Figure[];
}

export interface Verdict {
  scenario: string;
  name: string;
  unit: string;
  now: number;
  before: number;
  /** The run it is compared with: its time and commit. */
  beforeAt: string;
  beforeCommit: string | null;
  /** The values that count as the same as before (the spread), lowest and highest. */
  band: [number, number];
  /** Where the band came from: the rounds of the run before, the runs before, or ±10%. */
  bandFrom: "rounds" | "runs" | "10%";
  worse: boolean;
}

const RUNS_FOR_SPREAD = 5;

/** The lines of the results file (a line that does not parse, as a run cut short writes, is skipped). */
export function readHistory(file: string): ResultLine[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const lines: ResultLine[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      lines.push(JSON.parse(line) as ResultLine);
    } catch {}
  }
  return lines;
}

/** Each figure of `now` that has one before (same scenario and name) in `history`, judged. */
export function compare(now: Figure[], history: readonly ResultLine[], nproc: number): Verdict[] {
  const comparable = history.filter((l) => !l.profiled && (l.machine?.nproc ?? nproc) === nproc && l.figures);
  const verdicts: Verdict[] = [];
  for (const f of now) {
    // Newest first: the runs before that have this figure.
    const earlier: { line: ResultLine; fig: Figure }[] = [];
    for (let i = comparable.length - 1; i >= 0 && earlier.length < RUNS_FOR_SPREAD; i--) {
      const line = comparable[i]!;
      if (line.scenario !== f.scenario) continue;
      const fig = line.figures!.find((x) => x.name === f.name);
      if (fig && Number.isFinite(fig.roost)) earlier.push({ line, fig });
    }
    const last = earlier[0];
    if (!last || !Number.isFinite(f.roost)) continue;
    const { band, from } = spreadOf(
      last.fig,
      earlier.map((e) => e.fig.roost),
    );
    const worse = betterOf(f) === "lower" ? f.roost > band[1] : f.roost < band[0];
    verdicts.push({
      scenario: f.scenario,
      name: f.name,
      unit: f.unit,
      now: f.roost,
      before: last.fig.roost,
      beforeAt: last.line.at,
      beforeCommit: last.line.machine?.commit ?? null,
      band,
      bandFrom: from,
      worse,
    });
  }
  return verdicts;
}

function spreadOf(last: Figure, values: number[]): { band: [number, number]; from: Verdict["bandFrom"] } {
  const rounds = last.rounds?.filter(Number.isFinite) ?? [];
  if (rounds.length >= 2) return { band: [Math.min(...rounds), Math.max(...rounds)], from: "rounds" };
  if (values.length >= 2) return { band: [Math.min(...values), Math.max(...values)], from: "runs" };
  const v = last.roost;
  return { band: [v - Math.abs(v) * 0.1, v + Math.abs(v) * 0.1], from: "10%" };
}

/** The verdicts as the terminal shows them: the figures that got worse, then a count of the rest. */
export function compareText(verdicts: readonly Verdict[]): string {
  if (verdicts.length === 0) return "compare: no figure of this run has one on record to compare with";
  const worse = verdicts.filter((v) => v.worse);
  const lines = worse.map((v) => {
    const was = `${num(v.before, v.unit)} at ${v.beforeCommit ?? v.beforeAt}`;
    const band = `${num(v.band[0], v.unit)} – ${num(v.band[1], v.unit)}, from ${v.bandFrom}`;
    return `  WORSE  ${v.scenario}: ${v.name}: ${num(v.now, v.unit)} (was ${was}; spread ${band})`;
  });
  const same = verdicts.length - worse.length;
  return [
    `compare: ${worse.length} of ${verdicts.length} figures got worse beyond their spread; ${same} held`,
    ...lines,
  ].join("\n");
}
