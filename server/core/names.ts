/**
 * The rules for a job's name, in one place (protocol.md, "Names"), for every op that takes one:
 * `dispatch`, `rename` and the name a `report` gives, and the ops to come that name a session.
 *
 * - its length: at most LIMITS.name characters, checked with the args (`JobName` and the report's
 *   `name` in sdk/ts/protocol/schema.ts), before any handler runs; folding never lengthens it;
 * - one line: folded by `oneLine` (control characters and line separators become spaces, the
 *   bidirectional controls go), and not empty once folded;
 * - `concierge` is roost's own agent's: no session may take it, in any case.
 *
 * A name asked for (dispatch, rename) that breaks a rule is refused (`bad_request`, saying which).
 * A name an agent reports for itself is ignored instead (the row keeps its other name): a report
 * is never refused for its name, so an agent's state always reaches its row.
 */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { oneLine } from "./text.js";

/** Names no session may take: roost's own agents'. Compared once folded, in any case. */
const RESERVED: ReadonlySet<string> = new Set(["concierge"]);

const isReserved = (folded: string) => RESERVED.has(folded.toLowerCase());

/** A name asked for: folded, or refused saying why. */
export function checkName(name: string): string {
  const folded = oneLine(name);
  if (!folded) throw new RoostError("bad_request", "name is empty once folded to one line");
  if (isReserved(folded)) {
    throw new RoostError("bad_request", `name ${JSON.stringify(folded)} is reserved for roost's own agent`);
  }
  return folded;
}

/** A name an agent reports for itself: folded, or null (ignored) when empty or reserved. */
export function reportedName(name: string | null): string | null {
  if (name === null) return null;
  const folded = oneLine(name);
  return folded && !isReserved(folded) ? folded : null;
}
