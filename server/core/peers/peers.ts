/**
 * The peer ops (docs/protocol.md, "The peer ops"): on a session's own connection, after its report
 * (or `peer_register`), sessions list each other, message each other, spawn children that hand
 * back, and watch each other. The items themselves are peer-items.ts's; the rules' memory
 * peer-rules.ts's; watches watches.ts's; a foreground pi's row foreground.ts's.
 */
import {
  LIMITS,
  type OpArgs,
  type OpName,
  type OpResult,
  RoostError,
  type SessionRef,
} from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";
import type { Actor } from "../feed.js";
import type { AgentConnection } from "../jobs/index.js";
import { dispatch, EMPTY_REPORT, isEnded, type LiveJob, setReport } from "../jobs/index.js";
import { excerpt } from "../text.js";
import { mustReadMessages, type Outcome, relationOf, sendItem } from "./peer-items.js";
import { requestOf, resentItem } from "./resends.js";

const BEFORE_REPORT =
  "a peer op is a session's: report first on this connection (a foreground pi: peer_register)";

/**
 * The session this connection speaks for: `unauthorized` before its report (`beforeReport` says
 * so), or once it ended.
 */
export function sessionOf(core: Core, conn: AgentConnection, beforeReport = BEFORE_REPORT): LiveJob {
  const jobId = conn.jobId;
  if (jobId === null) throw new RoostError("unauthorized", beforeReport);
  const job = core.registry.find(jobId);
  if (!job) throw new RoostError("unauthorized", `${jobId} was removed: stop speaking for it`);
  if (isEnded(job)) throw new RoostError("unauthorized", `${jobId} has ended: stop speaking for it`);
  return job;
}

/** The session as an actor in the feed: its name, with its id. */
export const actorOf = (core: Core, job: LiveJob): Actor => ({
  who: core.registry.nameOf(job),
  whoId: job.rec.id,
});

/** The session as a peer sees it: its id and name. */
export const refOf = (core: Core, job: LiveJob): SessionRef => ({
  id: job.rec.id,
  name: core.registry.nameOf(job),
});

/** `to` as an id, or a name exactly one live session has. */
export function sessionNamed(core: Core, to: string): LiveJob {
  const byId = core.registry.find(to);
  if (byId) return byId;
  const named = core.registry.all().filter((j) => !isEnded(j) && core.registry.nameOf(j) === to);
  if (named.length === 1) return named[0]!;
  if (named.length === 0)
    throw new RoostError(
      "not_found",
      `no session ${JSON.stringify(to)}: \`peers\` lists them, by id and name`,
    );
  throw new RoostError(
    "bad_request",
    `${named.length} sessions are named ${JSON.stringify(to)} (${named.map((j) => j.rec.id).join(", ")}): name one by its id`,
  );
}

/** The session this connection speaks for, and the one it names, never itself (a session cannot `act` itself). */
function selfAndOther(core: Core, conn: AgentConnection, to: string, act: string): [LiveJob, LiveJob] {
  const self = sessionOf(core, conn);
  const other = sessionNamed(core, to);
  if (other === self) throw new RoostError("bad_request", `a session cannot ${act} itself`);
  return [self, other];
}

/** A peer op's logic: on the connection of the session that calls it, with the op's args. */
type PeerOp<N extends OpName> = (core: Core, conn: AgentConnection, args: OpArgs<N>) => Promise<OpResult<N>>;

export function peers(core: Core, conn: AgentConnection): OpResult<"peers"> {
  const self = sessionOf(core, conn);
  return {
    peers: core.registry.rows().map((row) => ({
      id: row.id,
      name: row.name,
      profile: row.profile,
      role: row.role,
      kind: row.kind,
      life: row.life,
      state: row.state,
      status: row.status,
      summary: row.summary,
      parent: row.parent,
      connected: row.connected,
      self: row.id === self.rec.id,
    })),
  };
}

export const send: PeerOp<"send"> = async (core, conn, args) => {
  const [from, to] = selfAndOther(core, conn, args.to, "send to");
  const resent = resentItem(core, from, "send", args.requestId);
  if (resent) return resent;
  const ref = refOf(core, to);
  const rules = core.peers.rules;
  if (rules.isDuplicate(from.rec.id, to.rec.id, args.text)) return { outcome: "duplicate", to: ref };
  const wait = rules.waitFor(from.rec.id);
  if (wait > 0)
    throw new RoostError(
      "rate_limited",
      `${from.rec.id} sent ${LIMITS.sendsPerMinute} messages in the last minute; the next may go in ${Math.ceil(wait / 1000)} s`,
    );
  const peer = {
    kind: "message" as const,
    from: refOf(core, from),
    relation: relationOf(from, to),
  };
  const outcome = await sendItem(core, to, {
    peer,
    text: args.text,
    mode: args.mode ?? null,
    feed: { kind: "message", text: excerpt(args.text), actor: actorOf(core, from) },
    by: from,
    request: requestOf(from, "send", args.requestId),
  });
  rules.record(from.rec.id, to.rec.id, args.text);
  return { outcome, to: ref };
};

/** How deep the session is in its tree: a root is 1. */
function depthOf(core: Core, job: LiveJob): number {
  let depth = 1;
  for (let p = job.rec.parent; p !== null && depth <= LIMITS.treeDepth; depth++)
    p = core.registry.find(p)?.rec.parent ?? null;
  return depth;
}

export const spawn: PeerOp<"spawn"> = async (core, conn, args) => {
  const parent = sessionOf(core, conn);
  core.concierge.mayAct(parent, "spawn a session");
  if (args.requestId) {
    // A resend of a spawn that was taken is its job, whatever the limits now say.
    const id = core.store.jobForDispatchRequest(args.requestId);
    const existing = id ? core.registry.find(id) : undefined;
    if (existing) return { job: core.registry.row(existing), duplicate: true };
  }
  const children = core.registry.all().filter((j) => j.rec.parent === parent.rec.id && !isEnded(j));
  if (children.length >= LIMITS.children)
    throw new RoostError(
      "full",
      `${parent.rec.id} has ${children.length} live children (at most ${LIMITS.children}); wait for one to hand back`,
    );
  if (depthOf(core, parent) + 1 > LIMITS.treeDepth)
    throw new RoostError(
      "full",
      `a session tree is at most ${LIMITS.treeDepth} deep; ${parent.rec.id} is at the bottom`,
    );
  // The live children's limit counts only the living: a child that exits at once is counted here.
  const wait = core.peers.rules.spawnWait(parent.rec.id);
  if (wait > 0)
    throw new RoostError(
      "rate_limited",
      `${parent.rec.id} started ${LIMITS.spawnsPerMinute} children in the last minute; the next may start in ${Math.ceil(wait / 1000)} s`,
    );
  // Counted before it starts: spawns asked at once (pipelined) are each counted before the next.
  core.peers.rules.spawned(parent.rec.id);
  const actor = actorOf(core, parent);
  const { job } = await dispatch(core, args, actor, parent.rec.id);
  core.feed.record(job.id, "spawn", `${job.id} (${args.profile}): ${excerpt(args.task)}`, actor);
  return { job };
};

export const handback: PeerOp<"handback"> = async (core, conn, args) => {
  const child = sessionOf(core, conn);
  const resent = resentItem(core, child, "handback", args.requestId);
  if (resent) return resent;
  const parentId = child.rec.parent;
  if (parentId === null) throw new RoostError("bad_request", `${child.rec.id} has no parent to hand back to`);
  const parent = core.registry.find(parentId);
  if (!parent) throw new RoostError("not_found", `${child.rec.id}'s parent ${parentId} was removed`);
  // Refused before the child's row says done: a handback that cannot go changes nothing.
  mustReadMessages(parent, "a handback");
  const done = args.done ?? true;
  if (done) {
    // Its row says done at once; its process is stopped once the item reached the parent, which
    // no longer waits on it (`waitingOn`).
    child.handedBack = true;
    const report = child.rec.report ?? EMPTY_REPORT;
    setReport(core, child, {
      ...report,
      state: "done",
      status: "idle",
      summary: excerpt(args.text, LIMITS.summary),
    });
  }
  const outcome: Outcome = await sendItem(core, parent, {
    peer: {
      kind: "report",
      from: refOf(core, child),
      relation: "child",
    },
    text: args.text,
    thenStop: done ? child.rec.id : null,
    feed: { kind: "handback", text: excerpt(args.text), actor: actorOf(core, child) },
    by: child,
    request: requestOf(child, "handback", args.requestId),
  });
  return { outcome, to: refOf(core, parent) };
};

export const watch: PeerOp<"watch"> = async (core, conn, args) => {
  if (args.children) {
    if (args.id !== undefined)
      throw new RoostError("bad_request", "watch {children: true} is on your own children: leave out id");
    if (args.when === "idle")
      throw new RoostError("bad_request", 'watch {children: true} is for when: "handback" or "ended"');
    const watcher = sessionOf(core, conn);
    mustReadMessages(watcher, "a watch's notice");
    const { fired, children } = await core.peers.watches.watchChildren(core, watcher, args.when);
    return { ...refOf(core, watcher), when: args.when, fired, children };
  }
  if (args.id === undefined)
    throw new RoostError(
      "bad_request",
      "watch needs the session's id (or children: true, for your own children)",
    );
  if (args.when === "handback")
    throw new RoostError(
      "bad_request",
      'when: "handback" is for children: true; a session is watched "idle" or "ended"',
    );
  const [watcher, target] = selfAndOther(core, conn, args.id, "watch");
  // A watch's only word is its notice: a watcher that cannot read one may not watch.
  mustReadMessages(watcher, "a watch's notice");
  const fired = await core.peers.watches.watch(core, watcher, target, args.when);
  return { ...refOf(core, target), when: args.when, fired };
};
