/**
 * A reply to a terminal agent's permission prompt (docs/agents.md, "Terminal agents' hooks"): the
 * numbered menu its screen shows (hooked.ts keeps it) takes one key per option.
 */
import type { LiveJob } from "./registry.js";

/**
 * The keys that answer the menu the row asks about, when the reply names one of its options: its
 * number, its label (in any case), or both (`2. No`). null: the reply is text to type as it is.
 */
export function menuKeys(job: LiveJob, text: string): string | null {
  const menu = job.screen?.menu;
  if (!menu || job.rec.report?.state !== "blocked") return null;
  const said = text.trim().toLowerCase();
  const i = menu.labels.findIndex(
    (label, n) =>
      said === menu.keys[n] ||
      said === label.toLowerCase() ||
      said === `${menu.keys[n]}. ${label}`.toLowerCase(),
  );
  return i < 0 ? null : menu.keys[i]!;
}
