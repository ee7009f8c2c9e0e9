/**
 * What the queue tells a job whose branch did not land (`tell`; docs/worktrees.md, "The merge
 * queue"): what went wrong, in words, and what to do about it.
 */
import type { QueueRecord } from "../../store/queue.js";
import type { CheckEnd } from "./check-run.js";

/** How much of the check's output goes in the reply: its last lines, up to this many characters. */
const TAIL_CHARS = 3000;

export function conflictWords(rec: QueueRecord, files: string[], firstThere: string | null): string {
  const where =
    files.length === 1
      ? files[0]
      : `${files.slice(0, 10).join(", ")}${files.length > 10 ? ` and ${files.length - 10} more` : ""}`;
  const first = firstThere ? ` (${firstThere} landed there first)` : "";
  return (
    `roost's merge queue (#${rec.n}): your branch ${rec.branch} conflicts with ${rec.into} in ${where}${first}. ` +
    `Rebase on ${rec.into} and resolve the conflicts, commit, and ask for it to be queued again. ` +
    `${rec.into} was left as it was.`
  );
}

export function checkWords(rec: QueueRecord, end: CheckEnd): string {
  const how = end.timedOut
    ? `timed out after ${Math.round(rec.timeoutMs / 1000)} s`
    : `exited ${end.code ?? "on a signal"}`;
  return (
    `roost's merge queue (#${rec.n}): the check \`${rec.check}\` failed (${how}) on your branch ${rec.branch} merged onto ${rec.into}. ` +
    `Fix it on your branch (rebase on ${rec.into} if the fix needs what landed there), commit, and ask for it to be queued again. ` +
    `${rec.into} was left as it was. The check's last output:\n\n${lastLines(end.output)}`
  );
}

function lastLines(output: string): string {
  const text = output.trimEnd();
  if (!text) return "(nothing)";
  if (text.length <= TAIL_CHARS) return text;
  const cut = text.slice(-TAIL_CHARS);
  const nl = cut.indexOf("\n");
  return `…\n${nl >= 0 ? cut.slice(nl + 1) : cut}`;
}
