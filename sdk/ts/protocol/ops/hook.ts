/**
 * `hook` (protocol.md, "The agent's ops"): what a terminal agent's own hooks said (Claude Code's,
 * Codex's, Gemini CLI's, run as `roost hook AGENT EVENT`), for the job whose identity they inherit.
 * The row takes it over the screen's reading; the screen still says what the hooks do not.
 */
import Type from "typebox";

import { Context, Empty, JobId, LIMITS, oneOf, Token } from "../schema.js";

/** The agent CLIs whose hooks roost installs for a terminal job (docs/agents.md). */
export const HOOK_AGENTS = ["claude", "codex", "gemini"] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

/**
 * What happened, in roost's words: its session began (`session`), a prompt was taken (`prompt`), a
 * tool is to run (`tool`) or ran (`tool-done`), a permission is asked (`ask`), the turn ended and
 * the agent waits for the user (`turn-end`), the agent's session ended (`session-end`).
 */
export const HOOK_EVENTS = [
  "session",
  "prompt",
  "tool",
  "tool-done",
  "ask",
  "turn-end",
  "session-end",
] as const;

const text = (max: number) => Type.String({ maxLength: max });

export const hook = {
  args: Type.Object({
    id: JobId,
    token: Token,
    event: oneOf(HOOK_EVENTS),
    /** The agent's session (its conversation): a respawn goes on with it. */
    session: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** `session`: whether the agent went on with a session it had (`--resume`). */
    resumed: Type.Optional(Type.Boolean()),
    tool: Type.Optional(text(LIMITS.tool)),
    summary: Type.Optional(text(LIMITS.summary)),
    question: Type.Optional(text(LIMITS.question)),
    choices: Type.Optional(Type.Array(text(LIMITS.choice), { maxItems: LIMITS.choices })),
    model: Type.Optional(text(LIMITS.model)),
    context: Type.Optional(Context),
    /** The job's usage so far (tokens, and cost where roost knows the model's price), as pi's. */
    usage: Type.Optional(
      Type.Object({
        input: Type.Number(),
        output: Type.Number(),
        cacheRead: Type.Number(),
        cacheWrite: Type.Number(),
        totalTokens: Type.Number(),
        messages: Type.Integer(),
        cost: Type.Optional(Type.Object({ total: Type.Number(), currency: Type.Literal("USD") })),
      }),
    ),
  }),
  result: Empty,
} as const;
