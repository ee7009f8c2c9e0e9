/**
 * Other daemons, seen from this one (roost.json's `remotes`; docs/fleet.md). Each remote is
 * followed over its own HTTP API with the token roost.json keeps for it: its `/api/subscribe`
 * WebSocket gives its rows, which this daemon's hubs get among its own (`daemon` their remote's
 * name, their ids `name:id`, `reachable` false while it does not answer). What a hub does to such
 * a row is sent on by this daemon (`route`), so that a browser never holds a remote's token: the
 * op with the job's own id, over HTTP; a terminal (`attach`) relayed over the remote's terminal
 * WebSocket, its input and sizes sent back the same way.
 *
 * A remote that goes away is tried again, 250 ms doubling to 2 s, for as long as this daemon runs:
 * its rows stay, greyed, and come back live when it answers again.
 *
 * What a remote sends is input (remote-input.ts): checked against the schema set and bounded
 * before it is kept or relayed. One that sends what a daemon may not is cut off, said (logged, and
 * a `remote` push with why), its rows dropped until it sends a valid list again: the rest of the
 * list, this daemon's and the other remotes', never fails because of one remote.
 */
import { type RemoteStatus, RoostError, type Row } from "../../sdk/ts/protocol/index.js";
import type { Pushes } from "../core/pushes.js";
import type { Remotes as RemotesApi, RouteCaller } from "../core/remotes.js";
import { RemoteChecks } from "./remote-input.js";
import { type RemoteConfig, RemoteLink } from "./remote-link.js";
import { RemoteTerminal } from "./remote-terminal.js";

export class Remotes implements RemotesApi {
  private readonly links = new Map<string, RemoteLink>();
  /** Each viewer's relayed terminals, by the job's id here. */
  private readonly terminals = new WeakMap<object, Map<string, RemoteTerminal>>();
  private started = false;
  private readonly checks: RemoteChecks;

  /**
   * `reread`: roost.json's remotes as they are now (for `remotes-reload`); throws what is wrong with
   * it. `relayed`: the ops sent on, as the op table marks them (`relayed` in `defineOp`).
   */
  constructor(
    private readonly pushes: Pushes,
    configs: readonly RemoteConfig[],
    private readonly reread: () => readonly RemoteConfig[],
    private readonly relayed: readonly string[],
  ) {
    this.checks = new RemoteChecks(relayed);
    for (const c of configs) this.links.set(c.name, new RemoteLink(c, pushes, this.checks));
  }

  get any(): boolean {
    return this.links.size > 0;
  }

  start(): void {
    this.started = true;
    for (const link of this.links.values()) link.connect();
  }

  /**
   * `remotes-reload`: roost.json's remotes read again, so that `roost remote add` and `rm` take
   * effect without a restart. A remote gone from it, or whose url or token changed, is let go: its
   * rows removed from the hubs, its relayed terminals ended, a `remote` push with `gone`. A new one
   * (or the changed one again) is followed from now on. A roost.json that does not read changes
   * nothing: `bad_request` saying what is wrong with it.
   */
  reload(): { remotes: RemoteStatus[] } {
    let configs: readonly RemoteConfig[];
    try {
      configs = this.reread();
    } catch (err) {
      throw new RoostError(
        "bad_request",
        `${(err as Error).message} (the remotes followed are as they were: fix it, then reload)`,
      );
    }
    const wanted = new Map(configs.map((c) => [c.name, c]));
    for (const [name, link] of this.links) {
      const now = wanted.get(name);
      if (now && now.url === link.config.url && now.token === link.config.token) continue;
      this.links.delete(name);
      link.forget(now ? "its url or token changed in roost.json" : "it was removed from roost.json");
      if (!now) this.pushes.remote({ ...link.status(), gone: true });
    }
    for (const c of configs) {
      if (this.links.has(c.name)) continue;
      const link = new RemoteLink(c, this.pushes, this.checks);
      this.links.set(c.name, link);
      this.pushes.remote(link.status());
      if (this.started) link.connect();
    }
    return { remotes: this.status() };
  }

  close(): void {
    for (const link of this.links.values()) link.close();
  }

  /** Every remote's rows, as this daemon's hubs see them. */
  rows(): Row[] {
    return [...this.links.values()].flatMap((link) => link.shownRows());
  }

  status(): RemoteStatus[] {
    return [...this.links.values()].map((link) => link.status());
  }

  /**
   * A hub's `relayed` op about another daemon's job (`args.id` is `name:id`), sent on to it: its answer, or
   * null for an op this daemon answers itself. An id `name:id` where no remote is named `name` is
   * `not_found`, saying which remotes there are.
   */
  route(caller: RouteCaller, op: string, args: Record<string, unknown>): Promise<unknown> | null {
    const id = args.id;
    if (!this.relayed.includes(op) || typeof id !== "string") return null;
    const at = id.indexOf(":");
    if (at < 0) return null;
    const link = this.links.get(id.slice(0, at));
    if (!link) {
      const names = [...this.links.keys()];
      throw new RoostError(
        "not_found",
        `no job ${id}: no remote is named ${JSON.stringify(id.slice(0, at))} (${names.length ? `roost.json's remotes: ${names.join(", ")}` : "roost.json names none"})`,
      );
    }
    const theirs = { ...args, id: id.slice(at + 1) };
    const viewing = this.terminals.get(caller)?.get(id);
    if (op === "attach") return this.attach(caller, link, theirs.id, id);
    if (op === "detach") {
      viewing?.close();
      return Promise.resolve({});
    }
    if ((op === "input" || op === "resize") && viewing) {
      viewing.send(op, theirs);
      return Promise.resolve({});
    }
    return link.call(op, theirs).then((result) => link.ours(result as { rows?: Row[]; job?: Row }));
  }

  /** A terminal of the remote's, relayed to this viewer until it detaches, goes, or the job ends. */
  private async attach(
    caller: RouteCaller,
    link: RemoteLink,
    theirs: string,
    ours: string,
  ): Promise<unknown> {
    const mine = this.terminals.get(caller) ?? new Map<string, RemoteTerminal>();
    this.terminals.set(caller, mine);
    mine.get(ours)?.close();
    const terminal = new RemoteTerminal(link, theirs, ours, (e) => caller.push?.(e as never));
    mine.set(ours, terminal);
    terminal.onEnd(() => {
      if (mine.get(ours) === terminal) mine.delete(ours);
    });
    caller.onClose?.(() => terminal.close());
    return terminal.opened;
  }
}
