/**
 * An ACP job's conversation (docs/protocol.md, "The conversation"; docs/agents.md): the agent's
 * `session/update`s as roost's entries. Its message and thought chunks are joined into one entry
 * each (sent when something else begins or the turn ends); a tool call is an entry when it begins
 * and one each time its status, title or output changes (the hub folds them into one, by id), its
 * input as text, each diff in its content an entry of its own; a plan is one entry each time it
 * changes. The bridge adds what the agent does not say back: the prompts it sends (the user's, a
 * peer's), the permission it was asked for and the answer.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { asText, type EntrySink } from "../agent/index.js";
import type { Entry } from "../protocol/conversation.js";
import type { AcpSession } from "./turns.js";

const TOOL_STATUS = {
  pending: "pending",
  in_progress: "running",
  completed: "completed",
  failed: "failed",
} as const;

/** The text of a tool call's content blocks (its diffs and terminals are not text). */
function contentText(content: acp.ToolCallContent[] | null | undefined): string | undefined {
  const texts = (content ?? []).flatMap((c) =>
    c.type === "content" && c.content.type === "text" ? [c.content.text] : [],
  );
  return texts.length ? texts.join("\n") : undefined;
}

/** A prompt's sender: roost's envelope begins a peer's item (`[roost message from …`), else it is the user's. */
const roleOf = (text: string) => (text.startsWith("[roost ") ? "peer" : "user");

export class AcpConversation {
  /** The message or thought being said, its chunks joined. */
  private said: { kind: "message" | "thinking"; text: string } | null = null;
  /** What each tool call last said (to send only what changed), by id. */
  private readonly tools = new Map<
    string,
    { name: string; status: string; title: string; input: string | undefined; output: string | undefined }
  >();
  private readonly diffs = new Set<string>();
  private plan = "";

  constructor(private readonly sink: EntrySink) {}

  /** One `session/update` of the agent's. */
  update(u: acp.SessionUpdate): void {
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const kind = u.sessionUpdate === "agent_message_chunk" ? "message" : "thinking";
        if (u.content.type !== "text") return;
        if (this.said?.kind !== kind) this.flush();
        this.said ??= { kind, text: "" };
        this.said.text += u.content.text;
        return;
      }
      case "tool_call":
      case "tool_call_update":
        this.flush();
        this.tool(u);
        return;
      case "plan": {
        const plan = u.entries.map((e) => ({ text: e.content, status: e.status }));
        const key = JSON.stringify(plan);
        if (key === this.plan) return;
        this.flush();
        this.plan = key;
        this.sink.add({ kind: "plan", plan });
        return;
      }
      default:
        return; // the user's own echo, usage, commands, modes: not the conversation's
    }
  }

  /** What was said so far is one entry (a turn ended, or something else began). */
  flush(): void {
    const said = this.said;
    this.said = null;
    if (said?.text.trim()) this.sink.add({ kind: said.kind, role: "agent", text: said.text.trim() });
  }

  /** The session, with each prompt an entry (the user's, or a peer's) and its turn's end a flush. */
  prompts(session: AcpSession): AcpSession {
    return {
      cancel: () => session.cancel(),
      command: (name, arg) => session.command(name, arg),
      queues: session.queues,
      prompt: async (text) => {
        this.flush();
        this.sink.add({ kind: "message", role: roleOf(text), text });
        try {
          return await session.prompt(text);
        } finally {
          this.flush();
        }
      },
    };
  }

  /** A permission the agent asks for, and (once given) the answer: an entry each. */
  asked(
    req: acp.RequestPermissionRequest,
    answer: Promise<acp.RequestPermissionResponse>,
  ): Promise<acp.RequestPermissionResponse> {
    this.flush();
    const title = req.toolCall.title?.trim();
    this.sink.add({
      kind: "ask",
      text: title ? `Allow: ${title}?` : "The agent asks for permission to go on",
      choices: req.options.map((o) => o.name),
      ...(req.toolCall.toolCallId ? { tool: this.toolOf(req.toolCall) } : {}),
    });
    return answer.then((r) => {
      const chosen = r.outcome.outcome === "selected" ? r.outcome.optionId : null;
      const option = req.options.find((o) => o.optionId === chosen);
      this.sink.add({ kind: "answer", role: "user", text: option ? option.name : "cancelled" });
      return r;
    });
  }

  private tool(u: acp.ToolCall | acp.ToolCallUpdate): void {
    const was = this.tools.get(u.toolCallId);
    const status = TOOL_STATUS[u.status ?? (was ? "in_progress" : "pending")];
    const title = u.title ?? was?.title ?? u.toolCallId;
    // An update says its kind or name only when they change: else they are the call's first.
    const name = (u as { name?: string | null }).name ?? u.kind ?? was?.name ?? "tool";
    const output = contentText(u.content) ?? asText(u.rawOutput) ?? was?.output;
    const given = asText(u.rawInput);
    const input = given === was?.input ? undefined : given;
    const changed = !was || was.status !== status || was.title !== title || was.output !== output || input;
    this.tools.set(u.toolCallId, { name, status, title, input: given ?? was?.input, output });
    if (changed)
      this.sink.add({
        kind: "tool",
        text: title,
        tool: {
          id: u.toolCallId,
          name,
          status,
          ...(input === undefined ? {} : { input }),
          ...(output === undefined || output === was?.output ? {} : { output }),
        },
      });
    for (const c of u.content ?? []) {
      if (c.type !== "diff") continue;
      const key = `${c.path}\0${c.newText}`;
      if (this.diffs.has(key)) continue;
      if (this.diffs.size >= 1000) this.diffs.clear(); // a bound: at worst a diff said twice
      this.diffs.add(key);
      this.sink.add({
        kind: "diff",
        diff: { path: c.path, new: c.newText, ...(c.oldText == null ? {} : { old: c.oldText }) },
      });
    }
  }

  /** A permission request's tool call, as the ask's. */
  private toolOf(call: acp.ToolCallUpdate): NonNullable<Entry["tool"]> {
    const input = asText(call.rawInput);
    return {
      id: call.toolCallId,
      name: call.kind ?? "tool",
      status: "pending",
      ...(input === undefined ? {} : { input }),
    };
  }
}
