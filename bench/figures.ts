/** The figures a scenario gives (bench/run.ts prints them as a table): each kind made one way. */

/** One line of the table: a figure of roost's, and the baseline's when it has one. */
export interface Figure {
  scenario: string;
  name: string;
  unit: string;
  roost: number;
  baseline: number | null;
  /** roost ÷ baseline (the median of each round's own ratio where there are rounds). */
  ratio: number | null;
  /** What is asked, said for the table ("ratio ≥ 0.70", "< 5 ms"); null: for information only. */
  target: string | null;
  met: boolean | null;
  /** Its value in each round, where the scenario ran rounds (`withRounds`): its spread, for `--compare`. */
  rounds?: number[];
}

export function table(figures: Figure[]): string {
  const head = ["scenario", "figure", "roost", "baseline", "ratio", "target", "met"];
  const rows = figures.map((f) => [
    f.scenario,
    f.name,
    num(f.roost, f.unit),
    f.baseline === null ? "—" : num(f.baseline, f.unit),
    f.ratio === null ? "—" : f.ratio.toFixed(2),
    f.target ?? "—",
    f.met === null ? "" : f.met ? "yes" : "NO",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const right = new Set([2, 3, 4]);
  const line = (cells: string[]) =>
    cells.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** A figure with its unit, rounded for reading. */
export function num(v: number, unit: string): string {
  if (!Number.isFinite(v)) return "n/a";
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  const s = v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  return unit ? `${s} ${unit}` : s;
}

/** A figure without a baseline or a target: it is there to explain the others. */
export function info(scenario: string, name: string, unit: string, roost: number): Figure {
  return { scenario, name, unit, roost, baseline: null, ratio: null, target: null, met: null };
}

/** A figure beside its baseline's, measured in the same run (and their `ratio`, where it says something); no target. */
export function withBaseline(
  scenario: string,
  name: string,
  unit: string,
  roost: number,
  baseline: number,
  ratio: number | null = null,
): Figure {
  return { scenario, name, unit, roost, baseline, ratio, target: null, met: null };
}

/** A figure with a ratio to its baseline, held to `bound`: met when the ratio is at least it (`≥`) or at most (`≤`). */
export function ratioHeld(figure: Figure, sense: "≥" | "≤", bound: number): Figure {
  const ratio = figure.ratio ?? Number.NaN;
  return {
    ...figure,
    target: `ratio ${sense} ${bound.toFixed(2)}`,
    met: sense === "≥" ? ratio >= bound : ratio <= bound,
  };
}

/** A figure held to its baseline's: met when `ratio` (roost ÷ baseline, as the scenario takes it) is at least `min`. */
export function ratioAtLeast(
  scenario: string,
  name: string,
  unit: string,
  roost: number,
  baseline: number,
  ratio: number,
  min: number,
): Figure {
  return ratioHeld(withBaseline(scenario, name, unit, roost, baseline, ratio), "≥", min);
}

/** A figure with no baseline and a ceiling: met when below it (`target` says it, "< 10 ms" by default). */
export function underTarget(
  scenario: string,
  name: string,
  unit: string,
  roost: number,
  ceiling: number,
  target = `< ${ceiling} ${unit}`,
): Figure {
  return { scenario, name, unit, roost, baseline: null, ratio: null, target, met: roost < ceiling };
}

/** The figure with its value in each round, from which `--compare` takes its spread (bench/compare.ts). */
export function withRounds(figure: Figure, rounds: number[]): Figure {
  return { ...figure, rounds: rounds.map((v) => Math.round(v * 1000) / 1000) };
}
