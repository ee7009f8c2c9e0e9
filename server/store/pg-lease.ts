/**
 * Each daemon's lease on the shared board (pg-board.ts; docs/fleet.md), and its fencing number.
 * A daemon's row in `roost_board_daemons` says until when it holds its lease and under which
 * `epoch`: the number goes up each time the lease is taken again after it ran out (a daemon cut off
 * from the database longer than its lease, then back). Every claim is written with the epoch of
 * its daemon's lease at that moment (`claim_epoch`), in the transaction that renews the lease
 * first, so that no claim is ever written under a lease that ran out. Another daemon that finds
 * the lease run out releases the claims made under it, and only those: a claim made after the
 * lease was taken again carries a higher epoch, and its daemon's lease is live.
 */
import type { BoardTask } from "../../sdk/ts/protocol/index.js";

const UNTIL = "now() + $3 * interval '1 millisecond'";

/** Taken if free, run out, or this daemon's own (its machine and home): the epoch it holds it under. */
export const TAKE_LEASE = `INSERT INTO roost_board_daemons AS d (name, instance, lease_until, epoch)
    VALUES ($1, $2, ${UNTIL}, 1)
  ON CONFLICT (name) DO UPDATE SET instance = excluded.instance, lease_until = excluded.lease_until,
    epoch = d.epoch + CASE WHEN d.lease_until < now() OR d.instance <> excluded.instance THEN 1 ELSE 0 END
    WHERE d.instance = excluded.instance OR d.lease_until < now()
  RETURNING epoch`;

/**
 * This daemon's lease renewed (taken again, under the next epoch, if it had run out); no row when
 * another daemon took the name meanwhile.
 */
export const RENEW_LEASE = `UPDATE roost_board_daemons
  SET lease_until = ${UNTIL}, epoch = epoch + CASE WHEN lease_until < now() THEN 1 ELSE 0 END
  WHERE name = $1 AND instance = $2 RETURNING epoch`;

/** Every daemon's lease, as read with the board (one snapshot). */
export const READ_LEASES = "SELECT name, epoch, lease_until > now() AS live FROM roost_board_daemons";

/** The leases as last read, and the epoch each claim was made under. */
export class Leases {
  private held = new Map<string, { epoch: number; live: boolean }>();
  private claims = new Map<number, number>();

  read(leases: Record<string, unknown>[], tasks: Record<string, unknown>[]): void {
    this.held = new Map(
      leases.map((r) => [r.name as string, { epoch: Number(r.epoch), live: r.live === true }]),
    );
    this.claims = new Map(
      tasks.filter((r) => r.claim_epoch !== null).map((r) => [Number(r.id), Number(r.claim_epoch)]),
    );
  }

  /** Whether `daemon` holds its lease. */
  live(daemon: string): boolean {
    return this.held.get(daemon)?.live === true;
  }

  /**
   * Whether the task's claim, by a session of `daemon`, was made under a lease that ran out: it
   * is what a release for that lost lease takes. A claim under the lease its daemon holds now, or
   * under a later one than the lease that ran out, is not.
   */
  lapsed(daemon: string, task: BoardTask): boolean {
    if (task.state !== "claimed") return false;
    const lease = this.held.get(daemon);
    if (!lease) return true; // no lease at all: its daemon left the board
    return !lease.live && (this.claims.get(task.id) ?? 0) <= lease.epoch;
  }
}
