/**
 * What the scripted model's wires share (scripted-model.ts): an answer, a request as the agent
 * sent it, what a wire does, and the small pieces of a stream.
 */
import type http from "node:http";

/** One tool call of an answer: its name and its arguments (sent as JSON). */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  /** The namespace of the tool, where the wire has them (Codex's MCP tools: `mcp__roost`). */
  namespace?: string;
}

/** What the model answers to one request. */
export interface Answer {
  /** Text, streamed in a few pieces (before the tool calls, when there are some). */
  text?: string;
  /**
   * The model's thinking, streamed before the text: Anthropic's thinking block, Gemini's thought
   * part, a Responses reasoning item's summary (not on pi's chat wire).
   */
  thinking?: string;
  /** Tool calls: the answer then ends for the tools to run (each dialect says it its way). */
  tools?: ToolCall[];
  /** An HTTP error instead (status 400 unless given): the agent's turn ends in an error with this message. */
  error?: string;
  status?: number;
  /** Waits this long before answering (a slow model). */
  delayMs?: number;
  /** Waits for this before answering (a model held until the test lets it go). */
  hold?: Promise<unknown>;
  /** The usage the answer reports (default 1000 prompt tokens, 100 completion tokens). */
  usage?: { prompt: number; completion: number };
}

export type Dialect = "chat" | "anthropic" | "responses" | "gemini";

/**
 * A request as the agent sent it: its key (the task's tag, or the model id), its dialect, the
 * model id, the dialect's own messages (chat and Anthropic `messages`, Responses `input`, Gemini
 * `contents`), the names of the tools it offered, and its whole body.
 */
export interface ModelRequest {
  key: string;
  dialect: Dialect;
  model: string;
  messages: {
    role: string;
    content: unknown;
    tool_calls?: unknown[];
    tool_call_id?: string;
    [k: string]: unknown;
  }[];
  tools: string[];
  /** The text of every message, the tools' results included, joined: what a test looks for in it. */
  text: string;
  /** The tools' results the agent sent back, in order (their text). */
  toolResults: string[];
  body: Record<string, unknown>;
}

/** An answer, or a function of the request that gives one (it sees what the agent sent). */
export type Step = Answer | ((req: ModelRequest) => Answer | Promise<Answer>);

/** What a dialect made of a request: the request, or an aside it answers itself, or not its path. */
export type Parsed =
  | { request: Omit<ModelRequest, "key"> & { keyText: string[] } }
  | { aside: string; answer: (res: http.ServerResponse) => void };

/** One wire: which requests are its, what they ask, how an answer is streamed and an error said. */
export interface Wire {
  dialect: Dialect;
  handles(method: string, url: string): boolean;
  parse(url: string, body: Record<string, unknown>): Parsed;
  stream(res: http.ServerResponse, a: Answer, req: ModelRequest, n: number): void;
  error(res: http.ServerResponse, a: Answer): void;
}

/** A message's text (a string, or its text parts joined). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p) => typeof p?.text === "string" && (p.type === undefined || /text/.test(p.type)))
    .map((p) => p.text as string)
    .join("");
}

/** The usage an answer reports. */
export const usageOf = (a: Answer) => a.usage ?? { prompt: 1000, completion: 100 };

/** Text in a few pieces, as a model streams it. */
export const piecesOf = (text: string | undefined) => (text ?? "").match(/[\s\S]{1,40}/g) ?? [];

/** One server-sent event (named when the wire names its events). */
export const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
