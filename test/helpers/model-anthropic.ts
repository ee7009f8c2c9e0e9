/**
 * The Anthropic Messages wire of the scripted model (scripted-model.ts), which Claude Code and
 * claude-agent-acp speak: `POST /v1/messages` streamed (message_start, content_block_start /
 * delta / stop for text and tool_use blocks, message_delta with the stop reason and usage,
 * message_stop). Claude Code is pointed at it with `ANTHROPIC_BASE_URL` (the server's origin).
 *
 * A request without tools is Claude Code asking on its own (a title for the session, whether a
 * prompt starts a new topic): an aside, answered with a short text.
 */
import type http from "node:http";
import { type Answer, type ModelRequest, piecesOf, sse, textOf, usageOf, type Wire } from "./model-wire.js";

interface Block {
  type: string;
  text?: string;
  content?: unknown;
  [k: string]: unknown;
}

const blocksOf = (content: unknown): Block[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];

function write(res: http.ServerResponse, a: Answer, model: string, n: number): void {
  const usage = usageOf(a);
  const send = (type: string, data: Record<string, unknown>) => res.write(sse({ type, ...data }, type));
  send("message_start", {
    message: {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.prompt,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  });
  let index = 0;
  if (a.thinking) {
    send("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const thinking of piecesOf(a.thinking))
      send("content_block_delta", { index, delta: { type: "thinking_delta", thinking } });
    send("content_block_delta", { index, delta: { type: "signature_delta", signature: `scripted-${n}` } });
    send("content_block_stop", { index });
    index++;
  }
  if (a.text || !a.tools?.length) {
    send("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const text of piecesOf(a.text))
      send("content_block_delta", { index, delta: { type: "text_delta", text } });
    send("content_block_stop", { index });
    index++;
  }
  for (const [i, t] of (a.tools ?? []).entries()) {
    send("content_block_start", {
      index,
      content_block: { type: "tool_use", id: `toolu_${n}_${i}`, name: t.name, input: {} },
    });
    send("content_block_delta", {
      index,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(t.args) },
    });
    send("content_block_stop", { index });
    index++;
  }
  send("message_delta", {
    delta: { stop_reason: a.tools?.length ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: usage.completion },
  });
  send("message_stop", {});
  res.end();
}

export const anthropic: Wire = {
  dialect: "anthropic",
  handles: (method, url) => method === "POST" && /^\/v1\/messages(\?|$)/.test(url),
  parse(_url, body) {
    const model = String(body.model);
    const messages = (body.messages ?? []) as ModelRequest["messages"];
    const tools = ((body.tools ?? []) as { name: string }[]).map((t) => t.name);
    if (tools.length === 0) {
      return {
        aside: "no tools (a title, a topic)",
        answer: (res) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          write(res, { text: "{}" }, model, 0);
        },
      };
    }
    const blocks = messages.flatMap((m) => blocksOf(m.content).map((b) => ({ role: m.role, b })));
    return {
      request: {
        dialect: "anthropic",
        model,
        messages,
        tools,
        text: blocks
          .map(({ b }) => (b.type === "tool_result" ? textOf(blocksOf(b.content)) : (b.text ?? "")))
          .join("\n"),
        toolResults: blocks
          .filter(({ b }) => b.type === "tool_result")
          .map(({ b }) => textOf(blocksOf(b.content))),
        body,
        keyText: blocks
          .filter(({ role, b }) => role === "user" && b.type === "text")
          .map(({ b }) => b.text ?? ""),
      },
    };
  },
  stream: (res, a, req, n) => write(res, a, req.model, n),
  error(res, a) {
    res.writeHead(a.status ?? 400, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: a.error } }));
  },
};
