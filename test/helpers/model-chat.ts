/**
 * The OpenAI chat completions wire of the scripted model (scripted-model.ts), which pi speaks
 * (`"api": "openai-completions"`), and a pi agent directory (`PI_CODING_AGENT_DIR`) whose
 * models.json points pi at it. pi runs with `PI_OFFLINE=1` against 127.0.0.1.
 */
import fs from "node:fs";
import path from "node:path";
import { type ModelRequest, piecesOf, sse, textOf, usageOf, type Wire } from "./model-wire.js";

type ChatMessage = ModelRequest["messages"][number];

export const chat: Wire = {
  dialect: "chat",
  handles: (method, url) => method === "POST" && url.endsWith("/chat/completions"),
  parse(_url, body) {
    const messages = (body.messages ?? []) as ChatMessage[];
    const tools = (body.tools ?? []) as { function: { name: string } }[];
    const first = messages.find((m) => m.role === "user");
    return {
      request: {
        dialect: "chat",
        model: String(body.model),
        messages,
        tools: tools.map((t) => t.function.name),
        text: messages.map((m) => textOf(m.content)).join("\n"),
        toolResults: messages.filter((m) => m.role === "tool").map((m) => textOf(m.content)),
        body,
        // pi's task is its first user message: a later one (a reply, a digest) never keys it.
        keyText: first ? [textOf(first.content)] : [],
      },
    };
  },
  stream(res, a, req, n) {
    const id = `chatcmpl-${n}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      sse({
        id,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model: req.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    res.write(chunk({ role: "assistant", content: "" }));
    for (const piece of piecesOf(a.text)) res.write(chunk({ content: piece }));
    (a.tools ?? []).forEach((t, index) => {
      res.write(
        chunk({
          tool_calls: [
            {
              index,
              id: `call_${n}_${index}`,
              type: "function",
              function: { name: t.name, arguments: JSON.stringify(t.args) },
            },
          ],
        }),
      );
    });
    res.write(chunk({}, a.tools?.length ? "tool_calls" : "stop"));
    const usage = usageOf(a);
    res.write(
      sse({
        id,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model: req.model,
        choices: [],
        usage: {
          prompt_tokens: usage.prompt,
          completion_tokens: usage.completion,
          total_tokens: usage.prompt + usage.completion,
        },
      }),
    );
    res.end("data: [DONE]\n\n");
  },
  error(res, a) {
    res.writeHead(a.status ?? 400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: a.error, type: "invalid_request_error" } }));
  },
};

/** A model of the scripted provider, as models.json lists it. */
export interface ScriptedModelEntry {
  id: string;
  contextWindow?: number;
  reasoning?: boolean;
}

/** Cost per million tokens of every scripted model: 1000 prompt and 100 completion tokens cost $0.0045. */
export const SCRIPTED_COST = { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 };

/**
 * A pi agent directory for the scripted server: models.json with the `scripted` provider (its
 * models as given), settings that make the first of them pi's model, keep pi quiet at start and
 * make an error end a run at once (no retry). Returns the directory.
 */
export function writePiAgentDir(dir: string, url: string, models: ScriptedModelEntry[]): string {
  fs.mkdirSync(dir, { recursive: true });
  const providers = {
    scripted: {
      baseUrl: url,
      api: "openai-completions",
      apiKey: "scripted-key",
      compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
      models: models.map((m) => ({
        id: m.id,
        name: m.id,
        reasoning: m.reasoning ?? false,
        input: ["text"],
        contextWindow: m.contextWindow ?? 100000,
        maxTokens: 4096,
        cost: SCRIPTED_COST,
      })),
    },
  };
  fs.writeFileSync(path.join(dir, "models.json"), JSON.stringify({ providers }, null, 2));
  fs.writeFileSync(
    path.join(dir, "settings.json"),
    JSON.stringify(
      {
        defaultProvider: "scripted",
        defaultModel: models[0]?.id,
        quietStartup: true,
        retry: { enabled: false },
      },
      null,
      2,
    ),
  );
  return dir;
}
