/**
 * The concierge's tools (agent-protocol.md, M44–M46): given to the pi that roost runs as its
 * concierge (`ROOST_CONCIERGE=1`, the concierge's built-in profile), besides the `roost_*` tools
 * every pi has. Each is one op on the job's own connection, which the daemon allows only to the
 * concierge's job; a refusal (`policy`, `bad_request`) comes back to the model as text.
 */
import type { RoostAgent } from "../agent/index.js";
import type { PiTool } from "./pi-api.js";
import { type Params, schema, str, tool } from "./tools.js";

const opt = (p: Params, key: string): Record<string, string> =>
  typeof p[key] === "string" && p[key] !== "" ? { [key]: p[key] as string } : {};

export function conciergeTools(agent: RoostAgent): PiTool[] {
  return [
    tool(
      {
        name: "roost_concierge_say",
        label: "concierge say",
        description:
          "Tell the user something in the hub: kind info (news), need (something they must decide or do: raised like a blocked session, with a notification; say each need once), answer (your answer to what they asked you).",
        promptSnippet: "Tell the user something (info, need, answer)",
        parameters: schema(
          {
            kind: { type: "string", enum: ["info", "need", "answer"] },
            text: str("what to tell them, short"),
          },
          ["kind", "text"],
        ),
      },
      async (p) => {
        await agent.call("concierge-say", { kind: p.kind, text: String(p.text) });
        return "said";
      },
    ),
    tool(
      {
        name: "roost_concierge_suggest",
        label: "concierge suggest",
        description:
          "Suggest an answer to a session that waits (blocked on a question, or its turn): the user sees it on the session's row and takes it with one click.",
        promptSnippet: "Suggest an answer to a waiting session",
        parameters: schema(
          { id: str("the session's id (j3)"), text: str("the answer"), why: str("why, in a few words") },
          ["id", "text"],
        ),
      },
      async (p) => {
        await agent.call("concierge-suggest", { id: String(p.id), text: String(p.text), ...opt(p, "why") });
        return `suggested to ${String(p.id)}`;
      },
    ),
    tool(
      {
        name: "roost_concierge_reply",
        label: "concierge reply",
        description:
          "Answer a session's question in the user's place, when the policy allows (roost_concierge_policy): with answer routine, only questions you judge routine. The user can undo it.",
        promptSnippet: "Answer a session's question in the user's place (when the policy allows)",
        parameters: schema(
          { id: str("the session's id (j3)"), text: str("the answer"), why: str("why it is safe to answer") },
          ["id", "text"],
        ),
      },
      async (p) => {
        const r = (await agent.call("concierge-reply", {
          id: String(p.id),
          text: String(p.text),
          ...opt(p, "why"),
        })) as { answered: { id: string; name: string } };
        return `answered ${r.answered.id} "${r.answered.name}"`;
      },
    ),
    tool(
      {
        name: "roost_concierge_policy",
        label: "concierge policy",
        description:
          "The user's policy for you: answer (never: only suggest; routine: answer what you judge routine; always: answer any question you can) and act (may you stop, respawn, dispatch).",
        promptSnippet: "What the user allows you to do",
        parameters: schema({}),
      },
      async () => ((await agent.call("concierge-policy")) as { policy: unknown }).policy,
    ),
    tool(
      {
        name: "roost_concierge_act",
        label: "concierge act",
        description:
          "When the policy's act allows: stop or respawn a session (id), or dispatch a new one (profile, task, name).",
        promptSnippet: "Stop, respawn or dispatch a session (when allowed)",
        parameters: schema(
          {
            what: { type: "string", enum: ["stop", "respawn", "dispatch"] },
            id: str("the session (stop, respawn)"),
            profile: str("the profile (dispatch)"),
            task: str("its task (dispatch)"),
            name: str("its name (dispatch)"),
          },
          ["what"],
        ),
      },
      async (p) => {
        const launch =
          p.what === "dispatch"
            ? { launch: { profile: String(p.profile ?? "pi"), ...opt(p, "task"), ...opt(p, "name") } }
            : {};
        const r = (await agent.call("concierge-act", { what: p.what, ...opt(p, "id"), ...launch })) as {
          job?: { id: string; name: string };
          id?: string;
        };
        return r.job ? `${String(p.what)}: ${r.job.id} "${r.job.name}"` : `stopped ${r.id}`;
      },
    ),
    tool(
      {
        name: "roost_concierge_order",
        label: "concierge orders",
        description:
          'Standing orders: list; add (text, when: every 30m | daily 18:00 | weekdays 09:00 | cron "…"); rm (id: your own only); applied (id, text: what you did this time).',
        promptSnippet: "Standing orders: list, add, rm, applied",
        parameters: schema(
          {
            action: { type: "string", enum: ["list", "add", "rm", "applied"] },
            id: str("the order's id (rm, applied)"),
            text: str("the order (add), or what you did (applied)"),
            when: str("its clock (add)"),
          },
          ["action"],
        ),
      },
      async (p) => {
        const r = (await agent.call("concierge-order", {
          action: p.action,
          ...opt(p, "id"),
          ...opt(p, "text"),
          ...opt(p, "when"),
        })) as { orders: { id: number; text: string; words: string | null; count: number }[] };
        return r.orders.length
          ? r.orders
              .map((o) => `#${o.id} ${o.words ? `[${o.words}] ` : ""}${o.text} (applied ${o.count}×)`)
              .join("\n")
          : "(no standing orders)";
      },
    ),
    tool(
      {
        name: "roost_events",
        label: "roost events",
        description:
          "The feed of what happened across the sessions, newest last: limit (default 50), id (one session's).",
        promptSnippet: "Read the feed of what the sessions did",
        parameters: schema({ limit: { type: "number" }, id: str("one session's id") }),
      },
      async (p) => {
        const r = (await agent.call("events", {
          limit: typeof p.limit === "number" ? p.limit : 50,
          ...opt(p, "id"),
        })) as { events: { at: string; id: string; kind: string; text: string; who: string }[] };
        return r.events
          .map((e) => `${e.at.slice(11, 19)} ${e.id} ${e.kind} (${e.who}): ${e.text}`)
          .join("\n");
      },
    ),
  ];
}
