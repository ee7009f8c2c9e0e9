/**
 * Gemini CLI's hooks (its settings' `hooks`, given in the system defaults file of the job's own):
 * what each event's input says, as roost's `hook` op says it.
 */
import { LIMITS } from "../../../sdk/ts/protocol/limits.js";
import { clipped, type HookInput, type HookSaid, str, toolSaid } from "./said.js";

export function geminiSaid(event: string, input: HookInput): HookSaid | null {
  switch (event) {
    case "SessionStart":
      return { event: "session", session: str(input.session_id), resumed: input.source === "resume" };
    case "BeforeAgent":
      return { event: "prompt", summary: clipped(str(input.prompt), LIMITS.summary) };
    case "BeforeTool":
      return { event: "tool", ...toolSaid(input) };
    case "AfterTool":
      return { event: "tool-done" };
    case "Notification":
      if (input.notification_type !== "ToolPermission") return null;
      return { event: "ask", question: clipped(str(input.message), LIMITS.question) };
    case "AfterAgent":
      return { event: "turn-end", summary: clipped(str(input.prompt_response), LIMITS.summary) };
    case "SessionEnd":
      return { event: "session-end" };
    default:
      return null;
  }
}
