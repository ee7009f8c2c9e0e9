/**
 * Codex's hooks (its config's `hooks`, given as `-c` overrides of the job's run): what each event's
 * input says, as roost's `hook` op says it; and its legacy `notify` program's JSON (an argument,
 * not stdin), for a profile that sets `notify` to `roost hook codex notify`.
 */
import fs from "node:fs";
import { LIMITS } from "../../../sdk/ts/protocol/limits.js";
import { clipped, type HookInput, type HookSaid, str, toolSaid } from "./said.js";

export function codexSaid(event: string, input: HookInput): HookSaid | null {
  switch (event) {
    case "SessionStart":
      return {
        event: "session",
        session: str(input.session_id),
        resumed: input.source === "resume",
        model: clipped(str(input.model), LIMITS.model),
      };
    case "UserPromptSubmit":
      return { event: "prompt", summary: clipped(str(input.prompt), LIMITS.summary) };
    case "PreToolUse":
      return { event: "tool", ...toolSaid(input) };
    case "PostToolUse":
      return { event: "tool-done" };
    case "PermissionRequest": {
      const said = toolSaid(input);
      return { event: "ask", ...said, question: `Codex needs your permission to use ${said.tool}` };
    }
    case "Stop":
      return {
        event: "turn-end",
        summary: clipped(str(input.last_assistant_message), LIMITS.summary),
        ...codexUsage(str(input.transcript_path)),
      };
    case "notify":
      if (input.type !== "agent-turn-complete") return null;
      return { event: "turn-end", summary: clipped(str(input["last-assistant-message"]), LIMITS.summary) };
    default:
      return null;
  }
}

/** A rollout past this is not read (a hook must be quick). */
const MAX_BYTES = 32 * 1024 * 1024;

/** The session's tokens and its context, from the last `token_count` of Codex's rollout file. */
export function codexUsage(file: string | undefined): Pick<HookSaid, "usage" | "context"> {
  let text: string;
  try {
    if (!file || fs.statSync(file).size > MAX_BYTES) return {};
    text = fs.readFileSync(file, "utf8");
  } catch {
    return {};
  }
  const at = text.lastIndexOf('"token_count"');
  if (at < 0) return {};
  const line = text.slice(
    text.lastIndexOf("\n", at) + 1,
    (text.indexOf("\n", at) + 1 || text.length + 1) - 1,
  );
  try {
    const info = JSON.parse(line)?.payload?.info;
    const total = info?.total_token_usage;
    const last = info?.last_token_usage;
    if (!total) return {};
    const n = (v: unknown) => (typeof v === "number" ? v : 0);
    const cacheRead = n(total.cached_input_tokens);
    const window = n(info.model_context_window);
    const used = n(last?.total_tokens);
    return {
      usage: {
        input: n(total.input_tokens) - cacheRead,
        output: n(total.output_tokens),
        cacheRead,
        cacheWrite: 0,
        totalTokens: n(total.total_tokens),
        messages: 0,
      },
      ...(used > 0
        ? {
            context: {
              tokens: used,
              ...(window > 0 ? { window, percent: Math.round((used / window) * 100) } : {}),
            },
          }
        : {}),
    };
  } catch {
    return {};
  }
}
