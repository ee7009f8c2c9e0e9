/**
 * The jobs as the store kept them, checked at start as new input is (validate.ts): what an agent
 * sent (its report, its hello) may predate the checks (an older roost kept `report.context` as
 * sent, and one nested 8,000 levels deep stopped every start after). A field that fails its schema
 * is set aside (null, or dropped), the record written again, and the job's feed says what went.
 */
import Type from "typebox";
import {
  AgentInfo,
  Context,
  type FullReport,
  OPS,
  REPORT_FIELDS,
  Report,
} from "../../../sdk/ts/protocol/index.js";
import type { JobRecord, StoredJob } from "../../store/records.js";
import { Unreadable } from "../../store/records.js";
import type { Store } from "../../store/store.js";
import { compileCheck, knownFields } from "../../validate.js";
import type { Core } from "../core.js";
import { ROOST } from "../feed.js";
import { EMPTY_REPORT } from "./registry.js";

/** A job whose record had to be mended, and what was set aside. */
export interface SetAside {
  jobId: string;
  why: string[];
}

const reportChecks = REPORT_FIELDS.map((key) => ({
  key,
  check: compileCheck(Report.properties[key], `report.${key}`),
}));
const checkAgent = compileCheck(Type.Union([AgentInfo, Type.Null()]), "agent");
const checkCapabilities = compileCheck(OPS.hello.args.properties.capabilities, "capabilities");

/** Every job the store has, each as the schema allows it, and those that had to be mended. */
export function loadJobs(store: Store): { jobs: JobRecord[]; setAside: SetAside[] } {
  const setAside: SetAside[] = [];
  const jobs = store.loadJobs().map((stored) => {
    const why: string[] = [];
    const rec = checked(stored, why);
    if (why.length > 0) setAside.push({ jobId: rec.id, why });
    return rec;
  });
  return { jobs, setAside };
}

/** Once the feed is up: each mended record written, and said in the feed and the log. */
export function recordSetAside(core: Core, setAside: SetAside[]): void {
  for (const { jobId, why } of setAside) {
    const job = core.registry.find(jobId);
    if (!job) continue;
    core.registry.changed(job, true);
    const text = `set aside what roost could not keep of its saved row: ${why.join("; ")}`;
    console.warn(`roost: ${jobId}: ${text}`);
    core.feed.record(jobId, "repair", text, ROOST);
  }
}

function checked(stored: StoredJob, why: string[]): JobRecord {
  const agent = keep(stored.agent, null, why, (v) => checkAgent(v), "agent") as JobRecord["agent"];
  const capabilities = keep(stored.capabilities ?? [], [], why, checkCapabilities, "capabilities");
  return {
    ...stored,
    agent,
    capabilities: capabilities as string[],
    report: checkedReport(stored.report, why),
  };
}

function checkedReport(value: unknown, why: string[]): FullReport | null {
  if (value === null) return null;
  if (value instanceof Unreadable || typeof value !== "object" || Array.isArray(value)) {
    why.push(`report ${value instanceof Unreadable ? `is not JSON (${value.why})` : "is not an object"}`);
    return null;
  }
  const report: FullReport = { ...EMPTY_REPORT };
  for (const { key, check } of reportChecks) {
    const field = (value as Record<string, unknown>)[key] ?? (key === "state" ? EMPTY_REPORT.state : null);
    (report as Record<string, unknown>)[key] = keep(field, EMPTY_REPORT[key], why, check, `report.${key}`);
  }
  if (report.context) {
    const known = knownFields(Context, report.context);
    if (Object.keys(known).length !== Object.keys(report.context).length)
      why.push("report.context had fields besides tokens, window and percent");
    report.context = known;
  }
  return report;
}

/** The value if it passes its check; else the fallback, and why in `why`. */
function keep(
  value: unknown,
  fallback: unknown,
  why: string[],
  check: (v: unknown) => { ok: true } | { ok: false; message: string },
  name: string,
): unknown {
  if (value instanceof Unreadable) {
    why.push(`${name} is not JSON (${value.why})`);
    return fallback;
  }
  const result = check(value);
  if (result.ok) return value;
  why.push(result.message);
  return fallback;
}
