/**
 * The other daemons, as the core and the op table see them (roost.json's `remotes`; docs/fleet.md):
 * their rows among this daemon's, whether they answer, `remotes-reload`, and a hub's op about one
 * of their jobs sent on. What follows them over their HTTP API is a transport's (server/fleet/),
 * wired in server/main.ts; which ops are sent on is the op table's to say (`relayed`).
 */
import type { RemoteStatus, Row } from "../../sdk/ts/protocol/index.js";

/** Who asks: a hub's caller, with its pushes when it stays open (a terminal's viewer). */
export interface RouteCaller {
  push?: (event: never) => void;
  onClose?: (cleanup: () => void) => void;
}

export interface Remotes {
  /** Whether roost.json names any remote (`subscribe` then says their status). */
  readonly any: boolean;
  /** Every remote's rows, as this daemon's hubs see them (ids `NAME:ID`). */
  rows(): Row[];
  status(): RemoteStatus[];
  /** `remotes-reload`: roost.json's remotes read again; `bad_request` when it does not read. */
  reload(): { remotes: RemoteStatus[] };
  /**
   * A hub's `relayed` op about another daemon's job (`args.id` is `name:id`), sent on to it: its
   * answer, or null for a job of this daemon's. `not_found` where no remote is named `name`.
   */
  route(caller: RouteCaller, op: string, args: Record<string, unknown>): Promise<unknown> | null;
}
