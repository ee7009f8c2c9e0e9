/**
 * A board task as a row of `roost_board_tasks` and back (pg-board.ts), with the session ids in it
 * as stored: qualified by their daemon's board name (`alpha:3`), read back bare by that daemon
 * (`3`) and qualified by every other, so that one `step` tells them apart.
 */
import type { BoardTask } from "../../sdk/ts/protocol/index.js";
import type { BoardNote } from "./board.js";

const COLUMNS = [
  "id",
  "title",
  "detail",
  "state",
  "after",
  "by_who",
  "by_who_id",
  "at",
  "owner_id",
  "owner_name",
  "claimed_at",
  "done_at",
  "result",
  "assigned_id",
  "assigned_name",
  "assigned_at",
] as const;
const PLACES = COLUMNS.map((_, i) => `$${i + 1}`).join(", ");
const SETS = COLUMNS.slice(1)
  .map((c, i) => `${c} = $${i + 2}`)
  .join(", ");
const VERSION = `$${COLUMNS.length + 1}`;
const EPOCH = `$${COLUMNS.length + 2}`;
const OWNER = `$${COLUMNS.indexOf("owner_id") + 1}`;
/**
 * One statement: the task as read (its version), and, to become claimed, every `after` over. A
 * claim (a task newly claimed, or by another owner) keeps the epoch of this daemon's lease
 * (pg-lease.ts), the last parameter, renewed in the same transaction.
 */
export const UPDATE_TASK = `UPDATE roost_board_tasks AS t SET ${SETS}, version = t.version + 1,
    claim_epoch = CASE WHEN $4::text <> 'claimed' THEN NULL
      WHEN t.state <> 'claimed' OR t.owner_id IS DISTINCT FROM ${OWNER}::text THEN ${EPOCH}::bigint
      ELSE t.claim_epoch END
  WHERE t.id = $1 AND t.version = ${VERSION}
    AND ($4::text <> 'claimed' OR NOT EXISTS (
      SELECT 1 FROM roost_board_tasks a WHERE a.id = ANY(t.after) AND a.state NOT IN ('done', 'dropped')))`;
export const INSERT_TASK = `INSERT INTO roost_board_tasks (${COLUMNS.join(", ")}) VALUES (${PLACES})`;
/** This daemon's side of the ids: its own sessions' bare here, qualified by `name` as stored. */
export class BoardIds {
  constructor(private readonly name: string) {}

  there(id: string): string;
  there(id: string | null): string | null;
  there(id: string | null): string | null {
    return id === null || daemonOf(id) !== null ? id : `${this.name}:${id}`;
  }

  here(id: string): string;
  here(id: string | null): string | null;
  here(id: string | null): string | null {
    const mine = `${this.name}:`;
    return id?.startsWith(mine) ? id.slice(mine.length) : id;
  }

  taskParams(t: BoardTask): unknown[] {
    return [
      t.id,
      t.title,
      t.detail,
      t.state,
      t.after,
      t.by.who,
      this.there(t.by.whoId),
      t.at,
      this.there(t.owner?.id ?? null),
      t.owner?.name ?? null,
      t.claimedAt,
      t.doneAt,
      t.result,
      this.there(t.assigned?.id ?? null),
      t.assigned?.name ?? null,
      t.assigned?.at ?? null,
    ];
  }

  taskHere(r: Record<string, unknown>): BoardTask {
    const s = (k: string) => r[k] as string | null;
    return {
      id: Number(r.id),
      title: r.title as string,
      detail: s("detail"),
      state: r.state as BoardTask["state"],
      after: (r.after as string[]).map(Number),
      by: { who: r.by_who as string, whoId: this.here(s("by_who_id")) },
      at: r.at as string,
      owner: r.owner_id ? { id: this.here(r.owner_id as string), name: r.owner_name as string } : null,
      claimedAt: s("claimed_at"),
      doneAt: s("done_at"),
      result: s("result"),
      assigned: r.assigned_id
        ? {
            id: this.here(r.assigned_id as string),
            name: r.assigned_name as string,
            at: r.assigned_at as string,
          }
        : null,
    };
  }

  noteThere(n: BoardNote): BoardNote {
    return { ...n, about: this.there(n.about), actor: { ...n.actor, whoId: this.there(n.actor.whoId) } };
  }

  noteHere(n: BoardNote): BoardNote {
    return { ...n, about: this.here(n.about), actor: { ...n.actor, whoId: this.here(n.actor.whoId) } };
  }
}

/** The daemon a session id names (`alpha:3`'s is alpha), or null for one of this daemon's (`3`). */
export function daemonOf(id: string): string | null {
  const at = id.indexOf(":");
  return at < 0 ? null : id.slice(0, at);
}
