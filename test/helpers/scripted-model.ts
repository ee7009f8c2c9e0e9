/**
 * A scripted model for pi: a local OpenAI-compatible server (chat completions, streamed as
 * server-sent events) that answers each request from a script, and a pi agent directory
 * (`PI_CODING_AGENT_DIR`) whose models.json points pi at it. No test reaches any network: pi runs
 * with `PI_OFFLINE=1` against 127.0.0.1.
 *
 * Each job has its own script (a queue of answers), so that several pi jobs share one server: a
 * request's key is the tag its first user message (the job's task) starts with, `[alice] ...`, or
 * else the model's id. Every request is kept, so that a test can see what pi sent (a steer placed
 * after a tool's result, before the next call).
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/** One tool call of an answer: its name and its arguments (sent as JSON). */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** What the model answers to one request. */
export interface Answer {
  /** Text, streamed in a few pieces (before the tool calls, when there are some). */
  text?: string;
  /** Tool calls: the answer's finish reason is then `tool_calls`. */
  tools?: ToolCall[];
  /** An HTTP error instead (status 400 unless given): pi's turn ends in an error with this message. */
  error?: string;
  status?: number;
  /** Waits this long before answering (a slow model). */
  delayMs?: number;
  /** Waits for this before answering (a model held until the test lets it go). */
  hold?: Promise<unknown>;
  /** The usage the answer reports (default 1000 prompt tokens, 100 completion tokens). */
  usage?: { prompt: number; completion: number };
}

/** A request as pi sent it: its key (the task's tag, or the model id), the model id and the chat messages. */
export interface ModelRequest {
  key: string;
  model: string;
  messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools: string[];
}

/** An answer, or a function of the request that gives one (it sees what pi sent). */
export type Step = Answer | ((req: ModelRequest) => Answer | Promise<Answer>);

export interface ScriptedModel {
  /** The base URL pi is pointed at (`http://127.0.0.1:PORT/v1`). */
  readonly url: string;
  /** Every request, in arrival order. */
  readonly requests: ModelRequest[];
  /** Adds steps to a key's script (answered in order, one per request). */
  script(key: string, ...steps: Step[]): void;
  /** The requests under one key. */
  requestsFor(key: string): ModelRequest[];
  close(): Promise<void>;
}

/** What an unscripted request gets: a plain answer, so that pi settles and the test can see it. */
const UNSCRIPTED: Answer = { text: "(the script has nothing more)" };

/** A message's text (a string, or its text parts joined). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p) => p?.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("");
}

/** A request's key: the `[tag]` its first user message starts with, else the model's id. */
function keyOf(model: string, messages: ModelRequest["messages"]): string {
  const first = messages.find((m) => m.role === "user");
  return /^\[([^\]\s]+)\]/.exec(first ? textOf(first.content) : "")?.[1] ?? model;
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const scripts = new Map<string, Step[]>();
  const requests: ModelRequest[] = [];
  let calls = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      void answer(req.url ?? "", body, res).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
    });
  });

  async function answer(url: string, body: string, res: http.ServerResponse): Promise<void> {
    if (!url.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no such endpoint: ${url}` } }));
      return;
    }
    const parsed = JSON.parse(body) as {
      model: string;
      messages: ModelRequest["messages"];
      tools?: { function: { name: string } }[];
    };
    const request: ModelRequest = {
      key: keyOf(parsed.model, parsed.messages),
      model: parsed.model,
      messages: parsed.messages,
      tools: (parsed.tools ?? []).map((t) => t.function.name),
    };
    requests.push(request);
    const step = scripts.get(request.key)?.shift() ?? UNSCRIPTED;
    const a = typeof step === "function" ? await step(request) : step;
    if (a.delayMs) await new Promise((r) => setTimeout(r, a.delayMs));
    if (a.hold) await a.hold;
    if (a.error !== undefined) {
      res.writeHead(a.status ?? 400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: a.error, type: "invalid_request_error" } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const id = `chatcmpl-${++calls}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model: parsed.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`;
    res.write(chunk({ role: "assistant", content: "" }));
    // The text in a few pieces, as a model streams it.
    for (const piece of (a.text ?? "").match(/[\s\S]{1,40}/g) ?? []) res.write(chunk({ content: piece }));
    (a.tools ?? []).forEach((t, index) => {
      res.write(
        chunk({
          tool_calls: [
            {
              index,
              id: `call_${calls}_${index}`,
              type: "function",
              function: { name: t.name, arguments: JSON.stringify(t.args) },
            },
          ],
        }),
      );
    });
    res.write(chunk({}, a.tools?.length ? "tool_calls" : "stop"));
    const usage = a.usage ?? { prompt: 1000, completion: 100 };
    res.write(
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model: parsed.model,
        choices: [],
        usage: {
          prompt_tokens: usage.prompt,
          completion_tokens: usage.completion,
          total_tokens: usage.prompt + usage.completion,
        },
      })}\n\n`,
    );
    res.end("data: [DONE]\n\n");
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script(key, ...steps) {
      const list = scripts.get(key) ?? [];
      list.push(...steps);
      scripts.set(key, list);
    },
    requestsFor: (key) => requests.filter((r) => r.key === key),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

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
