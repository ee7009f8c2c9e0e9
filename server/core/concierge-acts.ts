/**
 * What counts as acting for the concierge (docs/protocol.md, "The concierge"):
 * whatever starts or changes a job, by whichever op it comes: `concierge-act` (stop, respawn,
 * dispatch), `spawn`, and text of its own typed into a terminal (a `send`, an `assign`, a task's
 * word to its holder: a terminal agent takes typed text as its user's). The policy's `act` allows
 * them; without it each is `policy`, whatever tools the concierge's client offers its model: the
 * daemon is the boundary. A message to a protocol agent (an item it reads as a peer's, with its
 * envelope) is not acting; neither is watching, suggesting or talking to the user.
 */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import type { Core } from "./core.js";
import type { LiveJob } from "./registry.js";

/** `policy` when `job` is the concierge and the user's policy says `act: false`; any other session acts freely. */
export function mayAct(core: Core, job: LiveJob, what: string): void {
  if (job.rec.role !== "concierge" || core.concierge.policy.act) return;
  throw new RoostError(
    "policy",
    `the user's policy is act: false: the concierge does not ${what}; tell the user instead (concierge-say)`,
  );
}
