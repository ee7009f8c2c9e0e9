/**
 * The concierge's tools follow the user's policy (docs/pi.md, "The concierge"): with `act: false`
 * its model is not offered `roost_spawn` or `roost_concierge_act`, with `answer: never` not
 * `roost_concierge_reply`. The policy is roost's (`concierge-policy`), asked before each run that a
 * prompt starts and after each run, so that the hub's change reaches the next run; a call of a tool
 * the policy took away meanwhile is blocked, asked again at the call. The daemon refuses each with
 * `policy` whatever is offered here: this keeps the model from trying.
 */
import type { RoostAgent } from "../agent/index.js";
import type { PiAPI, PiToolCallResult } from "./pi-api.js";

interface Policy {
  answer: string;
  act: boolean;
}

/** The tools a policy may take away, and what each needs. */
const NEEDS: Record<string, (p: Policy) => boolean> = {
  roost_spawn: (p) => p.act,
  roost_concierge_act: (p) => p.act,
  roost_concierge_reply: (p) => p.answer !== "never",
};

/** The policy before roost says: the start's, which allows neither. */
const START: Policy = { answer: "never", act: false };

export function followPolicy(pi: PiAPI, agent: RoostAgent): void {
  const ask = async (): Promise<Policy | null> => {
    try {
      return ((await agent.call("concierge-policy")) as { policy: Policy }).policy;
    } catch {
      return null; // roost away: the tools stay as they were, and the daemon still refuses
    }
  };
  const offer = (policy: Policy) => {
    const others = pi.getActiveTools().filter((name) => !(name in NEEDS));
    pi.setActiveTools([...others, ...Object.keys(NEEDS).filter((name) => NEEDS[name]!(policy))]);
  };
  const refresh = async () => {
    const policy = await ask();
    if (policy) offer(policy);
  };
  pi.on("session_start", () => offer(START));
  pi.on("before_agent_start", refresh);
  pi.on("agent_end", () => void refresh());
  pi.on("tool_call", async (event): Promise<PiToolCallResult | undefined> => {
    const needs = NEEDS[event.toolName];
    if (!needs) return undefined;
    const policy = (await ask()) ?? START;
    if (needs(policy)) return undefined;
    void refresh();
    return {
      block: true,
      reason: `the user's policy (answer: ${policy.answer}, act: ${policy.act}) does not allow ${event.toolName}`,
    };
  });
}
