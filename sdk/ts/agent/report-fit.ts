/**
 * A report as the agent gives it, fitted to what the wire carries (docs/protocol.md, `report`):
 * every field present (null when left out), each within the protocol's limits; and which changes
 * of it are urgent. Its numbers come from protocol/limits, which imports nothing.
 */
import type { Report } from "../protocol/index.js";
import { LIMITS, NULL_REPORT_FIELDS } from "../protocol/limits.js";

/** The field limits of a report (docs/protocol.md, `report`; roost's own for model and thinking). */
export const REPORT_LIMITS = LIMITS;

/** A report as the agent gives it: `state`, and whatever else it has (what is left out is null). */
export type AgentReport = Report;

const NULL_REPORT: Omit<Required<Report>, "state"> = NULL_REPORT_FIELDS;

/** At most `max` UTF-16 units (the tighter count), never half a surrogate pair, "…" when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}…`;
}

const cap = (value: string | null | undefined, max: number) =>
  typeof value === "string" ? truncate(value, max) : (value ?? null);

/** The full snapshot the wire carries: every field present, each within its limit. */
export function fitReport(report: AgentReport): Required<Report> {
  const r = { ...NULL_REPORT, ...report } as Required<Report>;
  for (const [key, value] of Object.entries(r))
    if (value === undefined) (r as Record<string, unknown>)[key] = null;
  const L = REPORT_LIMITS;
  r.summary = cap(r.summary, L.summary);
  r.question = cap(r.question, L.question);
  r.tool = cap(r.tool, L.tool);
  r.error = cap(r.error, L.error);
  r.name = cap(r.name, L.name);
  r.model = cap(r.model, L.model);
  r.thinking = cap(r.thinking, L.thinking);
  r.remoteAt = cap(r.remoteAt, L.remoteAt);
  if (Array.isArray(r.choices))
    r.choices = r.choices.slice(0, L.choices).map((c) => truncate(String(c), L.choice));
  if (Array.isArray(r.prLinks))
    r.prLinks = r.prLinks.slice(0, L.prLinks).map((p) => truncate(String(p), L.prLink));
  return r;
}

/** A change of these goes at once; the rest (the row's text) at most every `coalesceMs`. */
export const urgent = (a: Required<Report>, b: Required<Report> | null) =>
  !b || a.state !== b.state || a.waitingFor !== b.waitingFor || a.question !== b.question;
