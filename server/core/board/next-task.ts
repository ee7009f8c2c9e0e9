/**
 * `task {action: "claim", next: true}` (docs/protocol.md, "The task board"): which task a session
 * takes when it asks for the next one. Picked on the board as it is in the step that claims it, so
 * that of many sessions asking at once each gets its own (on a shared board, the claim's write is
 * conditional, and a step that lost is taken again on the board as it then is: pg-board.ts).
 */
import { type BoardTask, byId, waitingOn } from "../../../sdk/ts/protocol/index.js";
import type { Board, Ctx, Ref } from "./board.js";

/**
 * The oldest task `me` may claim now: open (or held by a session that is no longer live, which a
 * claim takes over), waiting on no task of its `after`, not handed (`assign`) to another session,
 * and not its own already.
 */
export function nextTask(board: Board, me: Ref, ctx: Ctx): BoardTask | undefined {
  const all = byId(board.tasks); // once, not once a task: a board is up to 200
  return board.tasks.find((t) => {
    if (t.state === "claimed") {
      if (!t.owner || t.owner.id === me.id || ctx.isLive(t.owner.id)) return false;
    } else if (t.state !== "open") return false;
    const to = t.assigned?.id ?? board.handovers.get(t.id)?.id;
    if (to !== undefined && to !== me.id) return false;
    return waitingOn(t, all).length === 0;
  });
}

/** Why there is none: what the board holds that this session may not take now. */
export function noneToClaim(board: Board, me: Ref): string {
  let blocked = 0;
  let held = 0;
  let mine = 0;
  let handed = 0;
  const all = byId(board.tasks);
  for (const t of board.tasks) {
    if (t.state === "claimed") {
      if (t.owner?.id === me.id) mine++;
      else held++;
    } else if (t.state === "open") {
      if (waitingOn(t, all).length > 0) blocked++;
      else handed++; // open, waiting on none, yet not this session's: handed to another
    }
  }
  const parts = [
    blocked ? `${blocked} blocked (waiting on tasks not yet done)` : "",
    held ? `${held} held by other sessions` : "",
    handed ? `${handed} handed to other sessions` : "",
    mine ? `${mine} yours already` : "",
  ].filter(Boolean);
  return `no task you may claim now${parts.length ? `: ${parts.join(", ")}` : ": none is open"}`;
}
