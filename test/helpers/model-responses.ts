/**
 * The OpenAI Responses wire of the scripted model (scripted-model.ts), which Codex and codex-acp
 * speak (`wire_api = "responses"`): `POST /v1/responses` streamed (response.created, an output
 * item per message and function call with its deltas, response.completed with the usage). Codex
 * is pointed at it by a model provider in its config.toml (real-agents.ts, `codexHome`).
 */
import type http from "node:http";
import { type Answer, type ModelRequest, piecesOf, sse, textOf, usageOf, type Wire } from "./model-wire.js";

interface Item {
  type?: string;
  role?: string;
  content?: unknown;
  output?: unknown;
  [k: string]: unknown;
}

/** A function call's output: a string, or content parts. */
const outputText = (output: unknown) => (typeof output === "string" ? output : textOf(output));

function write(res: http.ServerResponse, a: Answer, model: string, n: number): void {
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(sse({ type, sequence_number: seq++, ...data }, type));
  const response = { id: `resp_${n}`, object: "response", created_at: Math.floor(Date.now() / 1000), model };
  send("response.created", { response: { ...response, status: "in_progress", output: [] } });
  const output: Record<string, unknown>[] = [];
  if (a.thinking) {
    const id = `rs_${n}`;
    const output_index = output.length;
    const where = { item_id: id, output_index, summary_index: 0 };
    send("response.output_item.added", { output_index, item: { id, type: "reasoning", summary: [] } });
    send("response.reasoning_summary_part.added", { ...where, part: { type: "summary_text", text: "" } });
    for (const delta of piecesOf(a.thinking))
      send("response.reasoning_summary_text.delta", { ...where, delta });
    const part = { type: "summary_text", text: a.thinking };
    send("response.reasoning_summary_text.done", { ...where, text: a.thinking });
    send("response.reasoning_summary_part.done", { ...where, part });
    const item = { id, type: "reasoning", summary: [part], encrypted_content: null };
    send("response.output_item.done", { output_index, item });
    output.push(item);
  }
  if (a.text || !a.tools?.length) {
    const id = `msg_${n}`;
    const output_index = output.length;
    const text = a.text ?? "";
    send("response.output_item.added", {
      output_index,
      item: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
    });
    const part = { type: "output_text", text: "", annotations: [] };
    send("response.content_part.added", { item_id: id, output_index, content_index: 0, part });
    for (const delta of piecesOf(text))
      send("response.output_text.delta", { item_id: id, output_index, content_index: 0, delta });
    send("response.output_text.done", { item_id: id, output_index, content_index: 0, text });
    send("response.content_part.done", {
      item_id: id,
      output_index,
      content_index: 0,
      part: { ...part, text },
    });
    const item = {
      id,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ ...part, text }],
    };
    send("response.output_item.done", { output_index, item });
    output.push(item);
  }
  for (const [i, t] of (a.tools ?? []).entries()) {
    const id = `fc_${n}_${i}`;
    const output_index = output.length;
    const args = JSON.stringify(t.args);
    const call = {
      id,
      type: "function_call",
      call_id: `call_${n}_${i}`,
      name: t.name,
      ...(t.namespace ? { namespace: t.namespace } : {}),
    };
    send("response.output_item.added", {
      output_index,
      item: { ...call, arguments: "", status: "in_progress" },
    });
    send("response.function_call_arguments.delta", { item_id: id, output_index, delta: args });
    send("response.function_call_arguments.done", { item_id: id, output_index, arguments: args });
    const item = { ...call, arguments: args, status: "completed" };
    send("response.output_item.done", { output_index, item });
    output.push(item);
  }
  const usage = usageOf(a);
  send("response.completed", {
    response: {
      ...response,
      status: "completed",
      output,
      usage: {
        input_tokens: usage.prompt,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.completion,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.prompt + usage.completion,
      },
    },
  });
  res.end();
}

/** What a warm-up (`generate: false`: Codex readying a connection) gets: a response with no output. */
function warmUp(res: http.ServerResponse, model: string): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const response = {
    id: "resp_warm_up",
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model,
  };
  res.write(sse({ type: "response.created", response: { ...response, status: "in_progress", output: [] } }));
  const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  res.end(
    sse({ type: "response.completed", response: { ...response, status: "completed", output: [], usage } }),
  );
}

export const responses: Wire = {
  dialect: "responses",
  handles: (method, url) => method === "POST" && /^\/v1\/responses(\?|$)/.test(url),
  parse(_url, body) {
    if (body.generate === false)
      return { aside: "warm-up", answer: (res) => warmUp(res, String(body.model)) };
    const input = (
      typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input ?? [])
    ) as Item[];
    const tools = ((body.tools ?? []) as { name?: string; type: string }[]).map((t) => t.name ?? t.type);
    const results = input.filter(
      (i) => i.type === "function_call_output" || i.type === "custom_tool_call_output",
    );
    return {
      request: {
        dialect: "responses",
        model: String(body.model),
        messages: input as ModelRequest["messages"],
        tools,
        text: input
          .map((i) => (i.output !== undefined ? outputText(i.output) : textOf(i.content)))
          .join("\n"),
        toolResults: results.map((i) => outputText(i.output)),
        body,
        keyText: input
          .filter((i) => i.role === "user")
          .flatMap((i) => {
            const c = i.content;
            return typeof c === "string" ? [c] : Array.isArray(c) ? c.map((p) => String(p?.text ?? "")) : [];
          }),
      },
    };
  },
  stream: (res, a, req, n) => write(res, a, req.model, n),
  error(res, a) {
    res.writeHead(a.status ?? 400, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ error: { message: a.error, type: "invalid_request_error", code: null, param: null } }),
    );
  },
};
