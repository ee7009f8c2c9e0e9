/**
 * The concierge's tests (test/concierge*.test.ts): the concierge is an inert protocol job (`sleep
 * 600`) that `concierge {action: "on", launch}` starts, spoken for by a raw client with its token
 * (a scripted protocol agent: the test says what it reports and calls); the sessions are inert jobs
 * too (helpers/board.ts), whose reports the tests write.
 */
import { INERT, type Session, session } from "./board.js";
import type { Roost } from "./daemon.js";
import type { RawClient } from "./raw-client.js";

export const CONFIG = { agentProfiles: { inert: INERT } };

/** Turns the concierge on (an inert job) and speaks for it on a connection of its own. */
export async function conciergeOn(
  d: Roost,
  hub: RawClient,
  opts: { items?: boolean } = {},
): Promise<Session> {
  const status = await hub.ok("concierge", { action: "on", launch: { profile: "inert", cwd: "/tmp" } });
  return session(d, hub, "concierge", { id: status.id, ...opts });
}

/** A session's report on its own connection: blocked on a question, or another state. */
export function reportAs(s: Session, report: Record<string, unknown>): Promise<unknown> {
  return s.c.ok("report", { id: s.id, token: s.token, report: { agentItems: true, ...report } });
}

export const blockedOn = (s: Session, question: string, choices: string[] = []) =>
  reportAs(s, { state: "blocked", status: "waiting", waitingFor: "question", question, choices });

/** The concierge's deliveries of kind `digest`. */
export const digests = (s: Session) =>
  s.c.events.filter((e) => e.event === "deliver" && e.id === s.id && e.kind === "digest");

/** Acks a delivery exactly (a peer item), as a client would once it handled it. */
export const ackItem = (s: Session, seq: number) =>
  s.c.ok("ack", { id: s.id, token: s.token, seq, exact: true });
