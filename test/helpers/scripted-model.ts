/**
 * A scripted model: one local server that speaks the wire of each model API the agents use,
 * streamed as server-sent events, and answers each request from a script. No test reaches any
 * network: every agent is pointed at 127.0.0.1.
 *
 * The dialects, each in its own file, by the request's path:
 * - OpenAI chat completions (`POST /v1/chat/completions`: pi), model-chat.ts;
 * - Anthropic Messages (`POST /v1/messages`: Claude Code, claude-agent-acp), model-anthropic.ts;
 * - OpenAI Responses (`POST /v1/responses`: Codex, codex-acp), model-responses.ts;
 * - Gemini (`POST /v1beta/models/M:streamGenerateContent?alt=sse`: Gemini CLI), model-gemini.ts.
 *
 * Each job has its own script (a queue of answers), so that several jobs share one server: a
 * request's key is the tag its task starts with, `[alice] ...`, or else the model's id. Every
 * request is kept, so that a test can see what the agent sent (a tool's result, a steer). What a
 * CLI asks on its own besides its turn (a title for the session, a check of who speaks next) is
 * an aside: answered by the dialect, kept apart (`asides`), never taking a step of the script.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { anthropic } from "./model-anthropic.js";
import { chat } from "./model-chat.js";
import { gemini } from "./model-gemini.js";
import { responses } from "./model-responses.js";
import { answerOverWebSockets } from "./model-responses-ws.js";
import type { Answer, Dialect, ModelRequest, Step, Wire } from "./model-wire.js";

export { SCRIPTED_COST, type ScriptedModelEntry, writePiAgentDir } from "./model-chat.js";
export type { Answer, Dialect, ModelRequest, Step, ToolCall } from "./model-wire.js";
export { textOf } from "./model-wire.js";

export interface ScriptedModel {
  /** The base URL pi is pointed at (`http://127.0.0.1:PORT/v1`). */
  readonly url: string;
  /** The server's origin (`http://127.0.0.1:PORT`): Claude Code's and Gemini CLI's base URL. */
  readonly origin: string;
  /** Every request of a turn, in arrival order. */
  readonly requests: ModelRequest[];
  /** What the CLIs asked on their own (title, next speaker, routing), by why, in arrival order. */
  readonly asides: { dialect: Dialect | "none"; why: string; url: string }[];
  /** Adds steps to a key's script (answered in order, one per request). */
  script(key: string, ...steps: Step[]): void;
  /** The requests under one key. */
  requestsFor(key: string): ModelRequest[];
  close(): Promise<void>;
}

/** What an unscripted request gets: a plain answer, so that the agent settles and the test can see it. */
const UNSCRIPTED: Answer = { text: "(the script has nothing more)" };

const WIRES: Wire[] = [chat, anthropic, responses, gemini];

/** A request's key: the first of its texts (its user messages' parts, in order) to start with `[tag]`, else the model's id. */
function keyOf(model: string, texts: string[]): string {
  for (const t of texts) {
    const tag = /^\s*\[([^\]\s]+)\]/.exec(t)?.[1];
    if (tag) return tag;
  }
  return model;
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const scripts = new Map<string, Step[]>();
  const requests: ModelRequest[] = [];
  const asides: ScriptedModel["asides"] = [];
  let calls = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      void answer(req.method ?? "GET", req.url ?? "", body, res).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
    });
  });

  async function answer(method: string, url: string, body: string, res: http.ServerResponse): Promise<void> {
    const wire = WIRES.find((w) => w.handles(method, url));
    if (!wire) {
      // Kept, so that a test whose CLI asked for what no wire answers can see what it was.
      if (method !== "HEAD") asides.push({ dialect: "none", why: `no such endpoint: ${method}`, url });
      // Claude Code checks that its base URL answers (`HEAD /`) before it asks.
      res.writeHead(method === "HEAD" ? 200 : 404, { "content-type": "application/json" });
      res.end(
        method === "HEAD" ? undefined : JSON.stringify({ error: { message: `no such endpoint: ${url}` } }),
      );
      return;
    }
    const parsed = wire.parse(url, JSON.parse(body || "{}") as Record<string, unknown>);
    if ("aside" in parsed) {
      asides.push({ dialect: wire.dialect, why: parsed.aside, url });
      parsed.answer(res);
      return;
    }
    const { keyText, ...rest } = parsed.request;
    const request: ModelRequest = { key: keyOf(rest.model, keyText), ...rest };
    requests.push(request);
    const step = scripts.get(request.key)?.shift() ?? UNSCRIPTED;
    const a = typeof step === "function" ? await step(request) : step;
    if (a.delayMs) await new Promise((r) => setTimeout(r, a.delayMs));
    if (a.hold) await a.hold;
    if (a.error !== undefined) return wire.error(res, a);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    wire.stream(res, a, request, ++calls);
  }

  // Codex's own OpenAI provider asks over a WebSocket first: the Responses wire's events there.
  const sockets = answerOverWebSockets(server, (body, res) => answer("POST", "/v1/responses", body, res));

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    asides,
    script(key, ...steps) {
      const list = scripts.get(key) ?? [];
      list.push(...steps);
      scripts.set(key, list);
    },
    requestsFor: (key) => requests.filter((r) => r.key === key),
    close: () =>
      new Promise<void>((resolve) => {
        sockets.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
