/**
 * The rules for a job's name, in one place (protocol.md, "roost's choices": A job's name), for
 * every op that takes one: `dispatch`, `rename` and the name a `report` gives, and the ops to come
 * that name a session.
 *
 * - its length: at most LIMITS.name characters, checked with the args (`JobName` and the report's
 *   `name` in sdk/ts/protocol/schema.ts), before any handler runs; folding never lengthens it;
 * - one line: folded by `oneLine` (control characters and line separators become spaces, the
 *   bidirectional controls go), and not empty once folded;
 * - `concierge` is roost's own agent's: no session may take it, nor anything a reader would take
 *   for it: names are compared by their skeleton (below), so `Concierge`, `concierge\u200b` (a
 *   zero-width space), `concierge\u00ad` (a soft hyphen), `cоncierge` (a Cyrillic о) and
 *   `ｃｏｎｃｉｅｒｇｅ` are all it.
 *
 * A name asked for (dispatch, rename) that breaks a rule is refused (`bad_request`, saying which).
 * A name an agent reports for itself is ignored instead (the row keeps its other name): a report
 * is never refused for its name, so an agent's state always reaches its row.
 */
import { RoostError } from "../../../sdk/ts/protocol/index.js";
import { oneLine } from "../text.js";
import { CONFUSABLES } from "./confusables.js";

/** Each lookalike letter as the Latin one it looks like. */
const looks = (s: string) => [...s].map((c) => CONFUSABLES.get(c) ?? c).join("");

/**
 * What a name looks like, after UTS #39's skeleton: NFKC (fullwidth and mathematical letters become
 * Latin ones), the default ignorable code points removed (zero-width spaces and joiners, the soft
 * hyphen, variation selectors: nothing a reader sees), the lookalikes of other scripts mapped to
 * the letters they look like (confusables.ts), in any case. Two names of one skeleton read the same.
 */
export function skeleton(name: string): string {
  // Mapped before NFKC as well as after: NFKC makes some lookalikes others (`Ϲ`, like C, becomes
  // `Σ`, whose small `σ` is like o); and once more in small letters, for a capital the table does
  // not have whose small letter it does (`Ѵ`, `ѵ` like v).
  const visible = looks(name)
    .normalize("NFKC")
    .replace(/\p{Default_Ignorable_Code_Point}/gu, "");
  return looks(looks(visible).toLowerCase());
}

/** Names no session may take: roost's own agents', as skeletons. */
const RESERVED: ReadonlySet<string> = new Set(["concierge"].map(skeleton));

const isReserved = (folded: string) => RESERVED.has(skeleton(folded));

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
