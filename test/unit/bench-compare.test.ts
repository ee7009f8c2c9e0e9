/**
 * `npm run bench -- --compare` (bench/compare.ts): a figure is flagged only when it moved the worse
 * way beyond its spread (its rounds', else its last runs', else 10%), by what its target or unit
 * says is better; the runs compared are the same scenario's, unprofiled, on as many CPUs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { betterOf, compare, compareText, type ResultLine, readHistory } from "../../bench/compare.js";
import { type Figure, info, ratioAtLeast, underTarget, withRounds } from "../../bench/figures.js";

const p99 = (v: number, rounds?: number[]): Figure => {
  const f = underTarget("fan-out", "p99", "ms", v, 5);
  return rounds ? withRounds(f, rounds) : f;
};
const run = (at: string, figures: Figure[], extra: Partial<ResultLine> = {}): ResultLine => ({
  at,
  scenario: "fan-out",
  profiled: false,
  machine: { nproc: 2, commit: at.slice(0, 4) },
  figures,
  ...extra,
});

describe("bench --compare", () => {
  it("takes the better way from the target, else the unit", () => {
    expect(betterOf(underTarget("s", "p99", "ms", 1, 5))).toBe("lower");
    expect(betterOf(ratioAtLeast("s", "rate", "/s", 9, 6, 1.5, 1.2))).toBe("higher");
    expect(betterOf(info("s", "sent", "/s", 1))).toBe("higher");
    expect(betterOf(info("s", "CPU", "µs", 1))).toBe("lower");
  });

  it("flags a figure worse than the last run's rounds, and not one within them", () => {
    const history = [run("a", [p99(4.4, [3.9, 4.4, 5.1])])];
    const [inside] = compare([p99(5.0)], history, 2);
    expect(inside).toMatchObject({ worse: false, before: 4.4, band: [3.9, 5.1], bandFrom: "rounds" });
    const [outside] = compare([p99(12.7)], history, 2);
    expect(outside).toMatchObject({ worse: true, bandFrom: "rounds" });
    // Better is never worse, however far it moved.
    expect(compare([p99(0.5)], history, 2)[0]!.worse).toBe(false);
    expect(compareText(compare([p99(12.7)], history, 2))).toContain("WORSE  fan-out: p99: 12.7 ms");
  });

  it("without rounds: the spread of the last runs, else 10% of the last", () => {
    const rate = (v: number) => info("fan-out", "sent", "/s", v);
    const runs = [run("a", [rate(900)]), run("b", [rate(1000)]), run("c", [rate(950)])];
    expect(compare([rate(905)], runs, 2)[0]).toMatchObject({
      worse: false,
      band: [900, 1000],
      bandFrom: "runs",
    });
    expect(compare([rate(880)], runs, 2)[0]).toMatchObject({ worse: true, before: 950 });
    const one = [run("a", [rate(1000)])];
    expect(compare([rate(905)], one, 2)[0]).toMatchObject({ worse: false, bandFrom: "10%" });
    expect(compare([rate(899)], one, 2)[0]!.worse).toBe(true);
  });

  it("compares only unprofiled runs of the same scenario on as many CPUs, and skips new figures", () => {
    const history = [
      run("a", [p99(4)]),
      run("b", [p99(40)], { profiled: true }),
      run("c", [p99(40)], { machine: { nproc: 8, commit: null } }),
      run("d", [p99(40)], { scenario: "replies" }),
    ];
    const [v] = compare([p99(4.2), info("fan-out", "new figure", "ms", 1)], history, 2);
    expect(v).toMatchObject({ before: 4, beforeCommit: "a", worse: false });
    expect(compare([p99(4.2), info("fan-out", "new figure", "ms", 1)], history, 2)).toHaveLength(1);
    expect(compareText([])).toContain("no figure of this run has one on record");
  });

  it("reads the results file, skipping a line cut short", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-bench-compare-"));
    try {
      const file = path.join(dir, "results.jsonl");
      fs.writeFileSync(file, `${JSON.stringify(run("a", [p99(4)]))}\n{"at": "cut`);
      expect(readHistory(file).map((l) => l.at)).toEqual(["a"]);
      expect(readHistory(path.join(dir, "none.jsonl"))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
