/**
 * `roost ls`'s filters and order: the rows in a state (the words of row-state.ts, as the hub's
 * filter takes them), of a profile, and triage's order, what needs the user first.
 */
import type { Row } from "../../sdk/ts/protocol/index.js";
import { statesNamed, triageRank, VIEW_STATES, type ViewState } from "../../sdk/ts/protocol/row-state.js";
import { layTrees, type Placed } from "../../sdk/ts/protocol/tree.js";
import { UsageError } from "./command.js";

/** What `--state` takes, as the help and an error list them: each state, then the words for several. */
export const STATE_WORDS: readonly string[] = [
  ...VIEW_STATES.map((s) => s.replace(" ", "-")),
  "idle",
  "ended",
  "need",
  "running",
];

/** A comma-separated list of words ("a,b" or "a, b"), empty ones dropped. */
const words = (raw: string) =>
  raw
    .split(",")
    .map((w) => w.trim())
    .filter(Boolean);

/** `--state blocked,idle`: the view states named, or a UsageError listing the words it takes. */
export function parseStates(raw: string): Set<ViewState> {
  const named = words(raw);
  if (named.length === 0) throw new UsageError(`--state needs a word: ${STATE_WORDS.join(", ")}`);
  const states = new Set<ViewState>();
  for (const word of named) {
    const these = statesNamed(word);
    if (!these)
      throw new UsageError(
        `--state: no state ${JSON.stringify(word)}; the words are ${STATE_WORDS.join(", ")}`,
      );
    for (const s of these) states.add(s);
  }
  return states;
}

/** `--profile shell,py`: the profile names. */
export function parseProfiles(raw: string): Set<string> {
  const named = words(raw);
  if (named.length === 0)
    throw new UsageError("--profile needs a profile's name (`roost profiles` lists them)");
  return new Set(named);
}

export const ORDERS = ["triage", "list"] as const;
export type Order = (typeof ORDERS)[number];

export function parseOrder(raw: string | undefined): Order {
  if (raw === undefined) return "triage";
  if ((ORDERS as readonly string[]).includes(raw)) return raw as Order;
  throw new UsageError(`--sort takes ${ORDERS.join(" or ")}, not ${JSON.stringify(raw)}`);
}

/**
 * The rows to show, in the order asked. Pinned rows come first either way (pinning is the user
 * saying "keep this on top"); `triage` then puts each state in triageRank's order (blocked,
 * failed, your turn, working, starting, done, stopped), the daemon's order kept within a state;
 * `list` keeps the daemon's order (the hub's: newest first, as the user arranged them).
 */
export function pick(
  rows: readonly Row[],
  opts: { states?: Set<ViewState>; profiles?: Set<string>; order: Order },
): Row[] {
  const kept = rows.filter(
    (r) => (!opts.states || opts.states.has(r.view)) && (!opts.profiles || opts.profiles.has(r.profile)),
  );
  if (opts.order === "list") return kept;
  // Array.prototype.sort is stable: rows of one rank keep the daemon's order.
  return kept.sort((a, b) => Number(b.pinned) - Number(a.pinned) || triageRank(a) - triageRank(b));
}

/**
 * The rows picked, as trees (sdk/ts/protocol/tree.ts, the hub's own layout): each child right
 * under its parent, and its depth. In triage's order a tree goes where its most urgent job
 * would, and the pinned trees stay first; in the list's order the trees keep the daemon's. A
 * child whose parent is not shown (filtered out) stands as a root.
 */
export function arrange(
  picked: readonly Row[],
  all: readonly Row[],
  order: Order,
): { rows: Row[]; depth: Map<string, number> } {
  const { placed } = layTrees(
    [...picked],
    new Map(all.map((r) => [r.id, r])),
    order === "list" ? "mine" : "state",
    NONE_FOLDED,
  );
  const trees: Placed[][] = [];
  for (const p of placed) {
    if (p.depth === 0) trees.push([p]);
    else trees.at(-1)!.push(p);
  }
  // Array.prototype.sort is stable: within pinned and unpinned, the layout's order holds.
  if (order === "triage") trees.sort((a, b) => Number(b[0]!.row.pinned) - Number(a[0]!.row.pinned));
  const flat = trees.flat();
  return { rows: flat.map((p) => p.row), depth: new Map(flat.map((p) => [p.row.id, p.depth])) };
}

const NONE_FOLDED: ReadonlySet<string> = new Set();
