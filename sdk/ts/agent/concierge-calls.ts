/**
 * The concierge's tools (docs/protocol.md, "The concierge"), once for every agent that can be it: pi's
 * extension makes pi tools of them, `roost mcp` MCP tools. Each is one op on the session's own
 * connection, which the daemon allows only to the concierge's job; a refusal (`policy`,
 * `bad_request`) is thrown with the wire's code, for the tool to give the model as text.
 */
import type { SessionOps } from "./session-ops.js";

export type Params = Record<string, unknown>;

/** A parameter: a string (one of `choices`, when given) or a number, described for the model. */
export interface CallParam {
  type: "string" | "number";
  description: string;
  choices?: readonly string[];
}

export interface ConciergeCall {
  name: string;
  label: string;
  description: string;
  /** The line pi's prompt lists the tool with. */
  snippet: string;
  params: Record<string, CallParam>;
  required: readonly string[];
  run: (ops: SessionOps, p: Params) => Promise<unknown>;
}

const text = (description: string): CallParam => ({ type: "string", description });
const oneOf = (choices: readonly string[], description: string): CallParam => ({
  type: "string",
  description,
  choices,
});
/** `{key: value}` when the model gave a non-empty string for it, else nothing. */
const given = (p: Params, key: string): Record<string, string> =>
  typeof p[key] === "string" && p[key] !== "" ? { [key]: p[key] as string } : {};
/** What the row asked as the digest showed it (`asked N`): the answer is refused if it has moved since. */
const askedParam: CallParam = {
  type: "number",
  description:
    "the row's asked number, as the digest shows it (asked N): refused if its question changed since",
};
const ifAsked = (p: Params): { ifAsked?: number } =>
  typeof p.asked === "number" && Number.isInteger(p.asked) && p.asked >= 0 ? { ifAsked: p.asked } : {};

export const CONCIERGE_CALLS: readonly ConciergeCall[] = [
  {
    name: "roost_concierge_say",
    label: "concierge say",
    description:
      "Tell the user something in the hub: kind info (news), need (something they must decide or do: raised like a blocked session, with a notification; say each need once), answer (your answer to what they asked you).",
    snippet: "Tell the user something (info, need, answer)",
    params: {
      kind: oneOf(["info", "need", "answer"], "info, need or answer"),
      text: text("what to tell them, short"),
    },
    required: ["kind", "text"],
    run: async (ops, p) => {
      await ops.call("concierge-say", { kind: p.kind, text: String(p.text) });
      return "said";
    },
  },
  {
    name: "roost_concierge_suggest",
    label: "concierge suggest",
    description:
      "Suggest an answer to a session that waits (blocked on a question, or its turn): the user sees it on the session's row and takes it with one click.",
    snippet: "Suggest an answer to a waiting session",
    params: {
      id: text("the session's id (j3)"),
      text: text("the answer"),
      why: text("why, in a few words"),
      asked: askedParam,
    },
    required: ["id", "text"],
    run: async (ops, p) => {
      await ops.call("concierge-suggest", {
        id: String(p.id),
        text: String(p.text),
        ...given(p, "why"),
        ...ifAsked(p),
      });
      return `suggested to ${String(p.id)}`;
    },
  },
  {
    name: "roost_concierge_reply",
    label: "concierge reply",
    description:
      "Answer a session's question in the user's place, when the policy allows (roost_concierge_policy): with answer routine, only questions you judge routine. The user can undo it.",
    snippet: "Answer a session's question in the user's place (when the policy allows)",
    params: {
      id: text("the session's id (j3)"),
      text: text("the answer"),
      why: text("why it is safe to answer"),
      asked: askedParam,
    },
    required: ["id", "text"],
    run: async (ops, p) => {
      const r = (await ops.call("concierge-reply", {
        id: String(p.id),
        text: String(p.text),
        ...given(p, "why"),
        ...ifAsked(p),
      })) as { answered: { id: string; name: string } };
      return `answered ${r.answered.id} "${r.answered.name}"`;
    },
  },
  {
    name: "roost_concierge_policy",
    label: "concierge policy",
    description:
      "The user's policy for you: answer (never: only suggest; routine: answer what you judge routine; always: answer any question you can) and act (may you stop, respawn, dispatch or spawn sessions, and send to a terminal session).",
    snippet: "What the user allows you to do",
    params: {},
    required: [],
    run: async (ops) => ((await ops.call("concierge-policy")) as { policy: unknown }).policy,
  },
  {
    name: "roost_concierge_act",
    label: "concierge act",
    description:
      "When the policy's act allows: stop or respawn a session (id), or dispatch a new one (profile, task, name).",
    snippet: "Stop, respawn or dispatch a session (when allowed)",
    params: {
      what: oneOf(["stop", "respawn", "dispatch"], "stop, respawn or dispatch"),
      id: text("the session (stop, respawn)"),
      profile: text("the profile (dispatch)"),
      task: text("its task (dispatch)"),
      name: text("its name (dispatch)"),
    },
    required: ["what"],
    run: async (ops, p) => {
      const launch =
        p.what === "dispatch"
          ? { launch: { profile: String(p.profile ?? "pi"), ...given(p, "task"), ...given(p, "name") } }
          : {};
      const r = (await ops.call("concierge-act", { what: p.what, ...given(p, "id"), ...launch })) as {
        job?: { id: string; name: string };
        id?: string;
      };
      return r.job ? `${String(p.what)}: ${r.job.id} "${r.job.name}"` : `stopped ${r.id}`;
    },
  },
  {
    name: "roost_concierge_order",
    label: "concierge orders",
    description:
      'Standing orders: list; add (text, when: every 30m | daily 18:00 | weekdays 09:00 | cron "…"); rm (id: your own only); applied (id, text: what you did this time).',
    snippet: "Standing orders: list, add, rm, applied",
    params: {
      action: oneOf(["list", "add", "rm", "applied"], "list, add, rm or applied"),
      id: text("the order's id (rm, applied)"),
      text: text("the order (add), or what you did (applied)"),
      when: text("its clock (add)"),
    },
    required: ["action"],
    run: async (ops, p) => {
      const r = (await ops.call("concierge-order", {
        action: p.action,
        ...given(p, "id"),
        ...given(p, "text"),
        ...given(p, "when"),
      })) as { orders: { id: number; text: string; words: string | null; count: number }[] };
      return r.orders.length
        ? r.orders
            .map((o) => `#${o.id} ${o.words ? `[${o.words}] ` : ""}${o.text} (applied ${o.count}×)`)
            .join("\n")
        : "(no standing orders)";
    },
  },
  {
    name: "roost_events",
    label: "roost events",
    description:
      "The feed of what happened across the sessions, newest last: limit (default 50), id (one session's).",
    snippet: "Read the feed of what the sessions did",
    params: { limit: { type: "number", description: "how many (default 50)" }, id: text("one session's id") },
    required: [],
    run: async (ops, p) => {
      const r = (await ops.call("events", {
        limit: typeof p.limit === "number" ? p.limit : 50,
        ...given(p, "id"),
      })) as { events: { at: string; id: string; kind: string; text: string; who: string }[] };
      return r.events.map((e) => `${e.at.slice(11, 19)} ${e.id} ${e.kind} (${e.who}): ${e.text}`).join("\n");
    },
  },
];

/** The user's policy for the concierge (`concierge-policy`). */
export interface ConciergePolicyView {
  answer: string;
  act: boolean;
}

/**
 * The tools a policy takes away from the concierge's model, and what each needs: with `act: false`
 * it is not offered spawning or acting. pi's extension and `roost mcp` offer them by it; the daemon
 * refuses each with `policy` all the same. `roost_concierge_reply` stays offered: the concierge
 * asks the policy itself before it answers (its prompt says so), and an answer the user allows in
 * the middle of a run (a follow-up, as `concierge-ask` comes while it works) must not wait for the
 * next run's list.
 */
export const POLICY_TOOLS: Readonly<Record<string, (p: ConciergePolicyView) => boolean>> = {
  roost_spawn: (p) => p.act,
  roost_concierge_act: (p) => p.act,
};

/** The policy as roost says it now, or null when roost cannot be asked (the tools stay as they were). */
export async function policyNow(ops: Pick<SessionOps, "call">): Promise<ConciergePolicyView | null> {
  try {
    return ((await ops.call("concierge-policy")) as { policy: ConciergePolicyView }).policy;
  } catch {
    return null;
  }
}

/** The ops a concierge's tool server may relay (tool-relay.ts): its own, and the feed. */
export const CONCIERGE_OPS = [
  "concierge-say",
  "concierge-suggest",
  "concierge-reply",
  "concierge-policy",
  "concierge-act",
  "concierge-order",
  "events",
] as const;
