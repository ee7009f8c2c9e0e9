/**
 * What a row means to the person looking at it, in one word: the same word and the same tone on
 * every face (the hub, `roost ls`, notifications, the feed, the concierge's digests), and the order
 * triage puts rows in. Read from the row alone (its life, the agent's state and status, its exit,
 * the children it waits on, whether it has begun), so every face agrees; the daemon puts it on
 * every row it sends as `view` (registry.ts), this function's answer.
 *
 * - `blocked`: it asks the user something and waits (a question, a dialog).
 * - `your turn`: running, and waiting for what the user says next without asking anything: a
 *   terminal agent whose prompt shows at its cursor (status `idle`), a protocol agent that is
 *   `done` or `waiting` while its process runs.
 * - `waiting`: it would be `your turn`, but children it spawned are still at work (`waitingOn`).
 * - `working`, `starting`: nothing to do but watch (`starting`: its process is being started, or a
 *   protocol agent has not yet begun its first turn, `begun` false).
 * - `failed`: it said so, exited with an error, or could not start.
 * - `done`, `stopped`: it ended, without an error, or stopped by the user.
 */
import type { Row } from "./schema.js";

export const VIEW_STATES = [
  "blocked",
  "failed",
  "your turn",
  "waiting",
  "working",
  "starting",
  "done",
  "stopped",
] as const;
export type ViewState = (typeof VIEW_STATES)[number];

/** How a state is coloured: the hub's CSS class and the CLI's colour come from this. */
export type Tone = "attention" | "failed" | "turn" | "working" | "done" | "ended";

export const TONES: Record<ViewState, Tone> = {
  blocked: "attention",
  failed: "failed",
  "your turn": "turn",
  waiting: "working",
  working: "working",
  starting: "working",
  done: "done",
  stopped: "ended",
};

/** What the word is read from; `waitingOn` and `begun` absent (a remote of an older roost): none, begun. */
type RowLike = Pick<Row, "life" | "state" | "status" | "exitCode"> &
  Partial<Pick<Row, "waitingOn" | "begun">>;

export function viewState(row: RowLike): ViewState {
  if (row.life === "stopped") return "stopped";
  if (row.life === "exited") {
    // The daemon makes an ended row's state `done` or `failed` by its exit (lifecycle.ts, `ended`).
    return row.state === "failed" || (row.exitCode !== null && row.exitCode !== 0) ? "failed" : "done";
  }
  if (row.life === "starting") return "starting";
  if (row.state === "blocked") return "blocked";
  if (row.state === "failed") return "failed";
  if (row.begun === false) return "starting";
  if (row.state === "done" || row.status === "waiting" || row.status === "idle")
    return row.waitingOn?.length ? "waiting" : "your turn";
  return "working";
}

/** Rows that need the user: counted in "need you", first in triage, raised as notifications. */
export const needsYou = (row: RowLike): boolean => {
  const s = viewState(row);
  return s === "blocked" || s === "failed";
};

/** Triage order: what needs the user first, then what waits for them, then the rest. */
export const triageRank = (row: RowLike): number => VIEW_STATES.indexOf(viewState(row));

/**
 * The words a `--state` filter (CLI, hub) may name, each standing for view states: the view
 * states themselves, `idle` and `your-turn` for `your turn`, `ended` for the three ends, `need`
 * for what `needsYou` counts.
 */
export function statesNamed(word: string): ViewState[] | null {
  const w = word.trim().toLowerCase().replace(/[-_]/g, " ");
  if ((VIEW_STATES as readonly string[]).includes(w)) return [w as ViewState];
  if (w === "idle" || w === "turn") return ["your turn"];
  if (w === "ended") return ["done", "stopped"];
  if (w === "need" || w === "need you" || w === "needs you") return ["blocked", "failed"];
  if (w === "running") return ["blocked", "your turn", "waiting", "working", "starting"];
  return null;
}
