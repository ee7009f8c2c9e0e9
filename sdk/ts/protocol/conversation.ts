/**
 * A job's conversation (docs/protocol.md, "The conversation"): what its agent said and did, as
 * entries, kept by roost in the job's directory and shown on its page. An agent appends them
 * (`conversation-append`); a hub reads them (`conversation`) and hears of new ones by a
 * `conversation` push. One entry is one thing said or done: a message (the agent's, the user's, a
 * peer's), the agent's thinking, a tool call (said again as it goes on: the same `tool.id`, its
 * status and output filled in), a plan, a diff, a permission asked and its answer.
 */
import Type, { type Static } from "typebox";
import { LIMITS } from "./limits.js";
import { JobId, oneOf, RequestId, Token } from "./schema.js";

export const ENTRY_KINDS = ["message", "thinking", "tool", "plan", "diff", "ask", "answer"] as const;
/** Who said it: the agent, the user (a reply, a prompt, an answer), or another session (a peer item). */
export const ENTRY_ROLES = ["agent", "user", "peer"] as const;
export const TOOL_STATUSES = ["pending", "running", "completed", "failed"] as const;
export const PLAN_STATUSES = ["pending", "in_progress", "completed"] as const;

const text = (max: number) => Type.String({ maxLength: max });

/** A tool call; said again (same `id`) as it runs and ends, each time with what is new. */
export const EntryTool = Type.Object({
  id: Type.String({ minLength: 1, maxLength: LIMITS.entryName }),
  name: text(LIMITS.entryName),
  /** What it was given, as text (a command, a path, JSON). */
  input: Type.Optional(text(LIMITS.entryText)),
  /** What it gave back, as text. */
  output: Type.Optional(text(LIMITS.entryText)),
  status: oneOf(TOOL_STATUSES),
});

export const PlanStep = Type.Object({ text: text(LIMITS.planStep), status: oneOf(PLAN_STATUSES) });

/** A file changed: its path, the text before (none: a new file) and after. */
export const EntryDiff = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 1000 }),
  old: Type.Optional(text(LIMITS.entryText)),
  new: text(LIMITS.entryText),
});

const entryFields = {
  kind: oneOf(ENTRY_KINDS),
  role: Type.Optional(oneOf(ENTRY_ROLES)),
  /** A message's, a thought's, a question's or an answer's words; a tool call's title. */
  text: Type.Optional(text(LIMITS.entryText)),
  tool: Type.Optional(EntryTool),
  plan: Type.Optional(Type.Array(PlanStep, { maxItems: LIMITS.planSteps })),
  diff: Type.Optional(EntryDiff),
  /** An ask's choices, as the agent offers them. */
  choices: Type.Optional(Type.Array(text(LIMITS.choice), { maxItems: LIMITS.choices })),
};

/** An entry as an agent sends it; `at` (ms since the epoch) is roost's when left out. */
export const Entry = Type.Object({ ...entryFields, at: Type.Optional(Type.Integer({ minimum: 0 })) });
export type Entry = Static<typeof Entry>;

/** An entry as roost keeps it: numbered from 1 in the job's conversation, with its time. */
export const KeptEntry = Type.Object({
  ...entryFields,
  n: Type.Integer({ minimum: 1 }),
  at: Type.Integer({ minimum: 0 }),
});
export type KeptEntry = Static<typeof KeptEntry>;

/** The field each kind must carry (a kind without it is `bad_request`). */
export const ENTRY_NEEDS: Record<(typeof ENTRY_KINDS)[number], "text" | "tool" | "plan" | "diff"> = {
  message: "text",
  thinking: "text",
  ask: "text",
  answer: "text",
  tool: "tool",
  plan: "plan",
  diff: "diff",
};

export const ConversationAppendArgs = Type.Object({
  id: JobId,
  token: Token,
  entries: Type.Array(Entry, { minItems: 1, maxItems: LIMITS.entriesPerCall }),
  /** Sent again after a restart, the same entries are not kept twice. */
  requestId: Type.Optional(RequestId),
});

/** The push that says a job's conversation grew: `last` is its newest entry's `n`. */
export const ConversationEvent = Type.Object({
  event: Type.Literal("conversation"),
  id: Type.String(),
  last: Type.Integer({ minimum: 0 }),
});
export type ConversationEvent = Static<typeof ConversationEvent>;

export { foldEntries } from "./entries.js";
