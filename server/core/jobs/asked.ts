/**
 * A row's `asked` (docs/protocol.md, "A row"): a number that moves whenever what the row asks
 * changes (its question or its choices) and when it is answered, so that an answer drawn for one
 * question never lands on the next (`reply`'s `ifAsked`). The one place it moves and is checked.
 */
import { type FullReport, RoostError } from "../../../sdk/ts/protocol/index.js";
import { excerpt } from "../text.js";
import type { LiveJob } from "./registry.js";

/** What a report asks, compared: its question and its choices. */
function asks(report: FullReport | null): string {
  return JSON.stringify([report?.question ?? null, report?.choices ?? null]);
}

/**
 * The job's report went from `before` to its record's: `asked` moves if what it asks changed.
 * The caller writes the record (the report's own write carries it).
 */
export function reportAsked(job: LiveJob, before: FullReport | null): void {
  if (asks(before) !== asks(job.rec.report)) job.rec.asked++;
}

/** The row was answered (a reply saved): `asked` moves, so that a second answer drawn for it is refused. */
export function answered(job: LiveJob): void {
  job.rec.asked++;
}

/**
 * `ifAsked` as a caller gives it: refused with `conflict` when the row no longer asks what the
 * caller read (nothing is sent or stored then).
 */
export function mustStillAsk(job: LiveJob, ifAsked: number | undefined): void {
  if (ifAsked === undefined || ifAsked === job.rec.asked) return;
  const id = job.rec.id;
  const question = job.rec.report?.question;
  throw new RoostError(
    "conflict",
    `${id} now asks something else (asked ${job.rec.asked}, not ${ifAsked})${
      question ? `: "${excerpt(question, 200)}"` : ""
    }; nothing was sent: read its row again (\`roost ls\`, \`list\`) and answer what it asks now`,
  );
}
