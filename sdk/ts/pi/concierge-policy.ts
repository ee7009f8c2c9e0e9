/**
 * The concierge's tools follow the user's policy (docs/pi.md, "The concierge"): the tools
 * `POLICY_TOOLS` names are offered to its model only when the policy allows them (with
 * `act: false` no `roost_spawn` or `roost_concierge_act`). The policy is roost's
 * (`concierge-policy`), asked before each run that a prompt starts and after each run: pi lists a
 * run's tools when it starts, so the hub's change reaches the next run; a call of a tool the policy
 * took away meanwhile is blocked, asked again at the call. The daemon refuses each with `policy`
 * whatever is offered here: this keeps the model from trying.
 */
import { type ConciergePolicyView, POLICY_TOOLS, policyNow, type RoostAgent } from "../agent/index.js";
import type { PiAPI, PiToolCallResult } from "./pi-api.js";

/** The policy before roost says: the start's, which allows neither. */
const START: ConciergePolicyView = { answer: "never", act: false };

export function followPolicy(pi: PiAPI, agent: RoostAgent): void {
  const offer = (policy: ConciergePolicyView) => {
    const others = pi.getActiveTools().filter((name) => !(name in POLICY_TOOLS));
    const allowed = Object.keys(POLICY_TOOLS).filter((name) => POLICY_TOOLS[name]!(policy));
    pi.setActiveTools([...others, ...allowed]);
  };
  const refresh = async () => {
    const policy = await policyNow(agent);
    if (policy) offer(policy);
  };
  pi.on("session_start", () => offer(START));
  pi.on("before_agent_start", refresh);
  pi.on("agent_end", () => void refresh());
  pi.on("tool_call", async (event): Promise<PiToolCallResult | undefined> => {
    const needs = POLICY_TOOLS[event.toolName];
    if (!needs) return undefined;
    const policy = (await policyNow(agent)) ?? START;
    if (needs(policy)) return undefined;
    void refresh();
    return {
      block: true,
      reason: `the user's policy (answer: ${policy.answer}, act: ${policy.act}) does not allow ${event.toolName}`,
    };
  });
}
