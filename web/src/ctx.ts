/** What the views share: the live state, who the page speaks as, and a few page-wide moves. */
import type { Profile, WhoAmI } from "./api.js";
import type { BoardState } from "./board-state.js";
import type { Live } from "./live.js";
import type { Triage } from "./triage.js";

export interface Ctx {
  live: Live;
  /** The task board: its tasks and counts, live. */
  board: BoardState;
  who: WhoAmI | null;
  profiles: Profile[];
  /** The jobs view's filter: the header's "need you" badge sets it too. */
  triage: Triage;
  /** Read-only token: no action buttons or inputs at all. */
  readOnly(): boolean;
  /** Says something to screen readers (sparingly). */
  announce(text: string): void;
  openDispatch(): void;
}

/**
 * A getter of the page's one `T` (a store several views share: the queue's, the spend's), made by
 * `make` when first asked for.
 */
export function onePerPage<T>(make: (ctx: Ctx) => T): (ctx: Ctx) => T {
  const made = new WeakMap<Ctx, T>();
  return (ctx) => {
    let one = made.get(ctx);
    if (one === undefined) {
      one = make(ctx);
      made.set(ctx, one);
    }
    return one;
  };
}
