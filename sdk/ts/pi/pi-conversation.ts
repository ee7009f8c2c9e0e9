/**
 * A pi job's conversation (docs/protocol.md, "The conversation"; docs/pi.md): pi's events as
 * roost's entries. The prompts pi takes (the user's, a peer's item with its envelope), each of its
 * model's messages (its thinking and its words), each tool call when it starts (its input) and when
 * it ends (its result, failed or not), and a question asked on the row (roost_ask, an approval) with
 * its answer.
 */
import { asText, type EntrySink } from "../agent/index.js";
import type { PiMessage } from "./pi-api.js";
import { toolLine } from "./row.js";

/** The text of pi's content: a string, or its text blocks joined. */
function textOf(content: unknown, type = "text", field = "text"): string {
  if (typeof content === "string") return type === "text" ? content : "";
  if (!Array.isArray(content)) return "";
  return content
    .filter((c) => c?.type === type && typeof c[field] === "string")
    .map((c) => c[field] as string)
    .join("\n");
}

/** A prompt's sender: roost's envelope begins a peer's item (`[roost message from …`). */
const roleOf = (text: string) => (text.startsWith("[roost ") ? "peer" : "user");

export class PiConversation {
  constructor(private readonly sink: EntrySink) {}

  /** A message pi finished: a prompt it took, or its model's answer. */
  messageEnded(m: PiMessage): void {
    if (m.role === "user" || m.role === "custom") {
      // A custom message is roost's only when it is roost's own kind (an item); pi's others are not the conversation's.
      if (m.role === "custom" && !m.customType?.startsWith("roost")) return;
      const text = textOf(m.content).trim();
      if (text) this.sink.add({ kind: "message", role: roleOf(text), text });
      return;
    }
    if (m.role !== "assistant") return;
    const thought = textOf(m.content, "thinking", "thinking").trim();
    if (thought) this.sink.add({ kind: "thinking", role: "agent", text: thought });
    const said = textOf(m.content).trim();
    if (said) this.sink.add({ kind: "message", role: "agent", text: said });
    else if (m.stopReason === "error" && m.errorMessage)
      this.sink.add({ kind: "message", role: "agent", text: `error: ${m.errorMessage}` });
  }

  toolStarted(id: string, name: string, args: unknown): void {
    const input = asText(args);
    this.sink.add({
      kind: "tool",
      text: toolLine(name, args),
      tool: { id, name, status: "running", ...(input === undefined ? {} : { input }) },
    });
  }

  toolEnded(id: string, name: string, result: unknown, failed: boolean): void {
    const r = result as { content?: unknown } | null | undefined;
    const output = (r && "content" in r ? textOf(r.content) : asText(result))?.trimEnd() || undefined;
    this.sink.add({
      kind: "tool",
      tool: {
        id,
        name,
        status: failed ? "failed" : "completed",
        ...(output === undefined ? {} : { output }),
      },
    });
  }

  /** A question on the row, and its answer once given (none: dismissed). */
  asked(text: string, choices: string[], answer: Promise<{ text: string; by?: string } | null>): void {
    this.sink.add({ kind: "ask", text, ...(choices.length ? { choices } : {}) });
    void answer.then((a) => {
      const by = a?.by === "concierge" ? " (the concierge, in your place)" : "";
      this.sink.add({ kind: "answer", role: "user", text: a ? `${a.text}${by}` : "dismissed" });
    });
  }
}
