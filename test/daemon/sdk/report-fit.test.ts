/**
 * The two clients fit a report alike (docs/protocol.md, `report`): one list of cases
 * (test/fixtures/report-fit.json), fitted by the TypeScript client's `fitReport` here and by the
 * Python client's `fit_report` in python3, compared field for field; and each fitted report is one
 * the daemon's own check of a report takes (bar the cases marked `refused`). In the daemon tier for
 * python3, a process; no daemon is started.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fitReport } from "../../../sdk/ts/agent/index.js";
import { LIMITS, NULL_REPORT_FIELDS } from "../../../sdk/ts/protocol/limits.js";
import { REPORT_FIELDS, Report } from "../../../sdk/ts/protocol/schema.js";
import { compileCheck } from "../../../server/validate.js";
import { FIXTURES, ROOT } from "../../helpers/daemon.js";

interface Case {
  name: string;
  refused?: boolean;
  report: Record<string, unknown>;
}

/** `{repeat, times}` and `{join}` spelled out: the long values the file would otherwise hold. */
function expand(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expand);
  if (value && typeof value === "object") {
    const v = value as Record<string, unknown>;
    if (typeof v.repeat === "string" && typeof v.times === "number") return v.repeat.repeat(v.times);
    if (Array.isArray(v.join)) return v.join.map(expand).join("");
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x)]));
  }
  return value;
}

const file = JSON.parse(fs.readFileSync(path.join(FIXTURES, "report-fit.json"), "utf8")) as { cases: Case[] };
const cases = file.cases.map((c) => ({ ...c, report: expand(c.report) as Record<string, unknown> }));

/** The Python client's side: its limits, its fields, and each case fitted. */
function python(): { limits: Record<string, number>; fields: string[]; fitted: unknown[] } {
  const script = [
    "import json, sys",
    `sys.path.insert(0, ${JSON.stringify(path.join(ROOT, "sdk/python"))})`,
    "import roost_agent",
    "cases = json.load(sys.stdin)",
    "out = {'limits': roost_agent.LIMITS, 'fields': list(roost_agent.REPORT_FIELDS),",
    "       'fitted': [roost_agent.fit_report(c) for c in cases]}",
    "sys.stdout.write(json.dumps(out))",
  ].join("\n");
  const out = execFileSync("python3", ["-c", script], {
    input: JSON.stringify(cases.map((c) => c.report)),
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.toString("utf8"));
}

describe("the clients fit a report alike", () => {
  const py = python();
  const check = compileCheck<Report>(Report, "report", "report");

  it("the Python client knows every report field and the TypeScript client's limits for them", () => {
    expect(py.fields).toEqual(REPORT_FIELDS.filter((f) => f !== "state"));
    expect(py.fields).toEqual(Object.keys(NULL_REPORT_FIELDS));
    for (const [key, limit] of Object.entries(py.limits))
      expect(limit, key).toBe(LIMITS[key as keyof typeof LIMITS]);
    for (const key of ["summary", "question", "choices", "choice", "tool", "error", "name", "model"])
      expect(py.limits[key], key).toBeDefined();
    for (const key of ["thinking", "remoteAt", "prLinks", "prLink"])
      expect(py.limits[key], key).toBeDefined();
  });

  it.each(cases.map((c, i) => [c.name, i] as const))("%s", (_name, i) => {
    const c = cases[i]!;
    const ts = fitReport(c.report as Report);
    expect(py.fitted[i]).toEqual(ts);
    // Field for field, in the same order too (what JSON.stringify would send).
    expect(Object.keys(py.fitted[i] as object)).toEqual(Object.keys(ts));
    const taken = check(ts);
    expect(taken.ok, taken.ok ? "" : taken.message).toBe(!c.refused);
  });
});
