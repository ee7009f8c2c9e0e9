/**
 * Claude Code's hooks (its settings' `hooks`, given with `--settings`): what each event's input
 * says, as roost's `hook` op says it. Captured inputs: test/fixtures/hooks/claude/.
 */
import { LIMITS } from "../../../sdk/ts/protocol/limits.js";
import { clipped, type HookInput, type HookSaid, str, toolSaid } from "./said.js";
import { claudeUsage } from "./usage.js";

export function claudeSaid(event: string, input: HookInput): HookSaid | null {
  switch (event) {
    case "SessionStart":
      // `compact` and `clear` begin no new conversation of the job's, but say its session all the same.
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
    case "PostToolUseFailure":
      return { event: "tool-done" };
    case "PermissionRequest": {
      const said = toolSaid(input);
      return { event: "ask", ...said, question: `Claude needs your permission to use ${said.tool}` };
    }
    case "Notification":
      if (input.notification_type === "permission_prompt")
        return { event: "ask", question: clipped(str(input.message), LIMITS.question) };
      // Waiting for the user a while (a turn ended without its Stop: interrupted).
      if (input.notification_type === "idle_prompt") return { event: "turn-end" };
      return null;
    case "Stop":
      return {
        event: "turn-end",
        summary: clipped(str(input.last_assistant_message), LIMITS.summary),
        ...claudeUsage(str(input.transcript_path)),
      };
    case "SessionEnd":
      return { event: "session-end" };
    default:
      return null;
  }
}
