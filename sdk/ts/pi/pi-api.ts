/**
 * The part of pi's extension API that roost's extension uses: what pi 0.74 and the current 1.x
 * share (`pi.on`, `registerTool`, `sendUserMessage`/`sendMessage` with `deliverAs`, `setModel`,
 * `setThinkingLevel`, the context's `getContextUsage`, `isIdle`, `ui.select`/`input`). Declared
 * here, structurally, rather than imported from pi: the extension is loaded by whichever pi the user
 * runs, and needs none of pi's code at build time or at run time (test/unit/pi/api.test.ts checks that
 * pi 0.74.2's own types fit these).
 */

/** A model as pi knows it. */
export interface PiModel {
  provider: string;
  id: string;
  name?: string;
  contextWindow?: number;
}

/** pi's context usage: tokens may be unknown (null) right after a compaction. */
export interface PiContextUsage {
  tokens: number | null;
  contextWindow: number;
  percent: number | null;
}

/** A dialog's options: a signal dismisses it (roost's reply answered first). */
export interface PiDialogOptions {
  signal?: AbortSignal;
}

/** What every event handler and tool gets. */
export interface PiContext {
  ui: {
    select(title: string, options: string[], opts?: PiDialogOptions): Promise<string | undefined>;
    input(title: string, placeholder?: string, opts?: PiDialogOptions): Promise<string | undefined>;
    notify(message: string, type?: "info" | "warning" | "error"): void;
  };
  /** False in print and JSON modes: no dialog can be shown. */
  hasUI: boolean;
  cwd: string;
  sessionManager: { getSessionId(): string };
  modelRegistry: { find(provider: string, id: string): PiModel | undefined; getAll(): PiModel[] };
  model: PiModel | undefined;
  isIdle(): boolean;
  /** The run under way's abort signal (a held tool call gives up when pi is interrupted). */
  signal: AbortSignal | undefined;
  getContextUsage(): PiContextUsage | undefined;
}

/** A message in pi's events: a user's, an assistant's (with usage), a tool result, a custom one. */
export interface PiMessage {
  role: string;
  content?: unknown;
  /** A custom message's data (roost's items carry their seq in it). */
  details?: unknown;
  customType?: string;
  stopReason?: string;
  errorMessage?: string;
  usage?: PiUsage;
}

/** The usage an assistant message carries: tokens, and their cost in dollars. */
export interface PiUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/** The events the extension listens to, with the fields it reads. */
export interface PiEvents {
  session_start: { reason?: string };
  before_agent_start: { prompt: string };
  session_shutdown: { reason?: string };
  agent_start: object;
  agent_end: { messages: PiMessage[] };
  turn_start: object;
  turn_end: { message: PiMessage };
  message_start: { message: PiMessage };
  message_end: { message: PiMessage };
  tool_execution_start: { toolCallId: string; toolName: string; args: unknown };
  tool_execution_end: { toolCallId: string; toolName: string; isError: boolean; result?: unknown };
  tool_call: { toolCallId: string; toolName: string; input: Record<string, unknown> };
  model_select: { model: PiModel };
  thinking_level_select: { level: string };
}

/** What a `tool_call` handler may answer: block the call, saying why. */
export interface PiToolCallResult {
  block?: boolean;
  reason?: string;
}

/** A tool's result, as the model reads it. */
export interface PiToolResult {
  content: { type: "text"; text: string }[];
  details: unknown;
}

/** A tool the model can call; its parameters are plain JSON Schema (both versions validate it so). */
export interface PiTool {
  name: string;
  label: string;
  description: string;
  promptSnippet?: string;
  parameters: Record<string, unknown>;
  execute(
    toolCallId: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onUpdate: unknown,
    ctx: PiContext,
  ): Promise<PiToolResult>;
}

export type DeliverAs = "steer" | "followUp";

/** The `pi` an extension's factory is given. */
export interface PiAPI {
  on<E extends keyof PiEvents>(event: E, handler: (event: PiEvents[E], ctx: PiContext) => unknown): void;
  registerTool(tool: PiTool): void;
  sendUserMessage(content: string, options?: { deliverAs?: DeliverAs }): void;
  sendMessage(
    message: { customType: string; content: string; display: boolean; details?: unknown },
    options?: { triggerTurn?: boolean; deliverAs?: DeliverAs },
  ): void;
  setModel(model: PiModel): Promise<boolean>;
  getThinkingLevel(): string;
  setThinkingLevel(level: string): void;
  setSessionName(name: string): void;
  getSessionName(): string | undefined;
  /** The tools offered to the model (the concierge's follow its policy); a change takes effect at the next run. */
  getActiveTools(): string[];
  setActiveTools(names: string[]): void;
}
