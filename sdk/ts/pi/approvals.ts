/**
 * Approvals: the tools a profile names (`"approve": ["bash", "write"]`, given to pi as
 * `ROOST_APPROVE`) are held before they run and asked about through the row ("Run `rm -rf
 * build`?", yes / no / always). `always` approves that tool for the rest of pi's session; any other
 * answer than yes or always blocks the call, and the model is told what the user said.
 */
import type { PiContext, PiToolCallResult } from "./pi-api.js";
import type { Questions } from "./questions.js";

export const APPROVAL_CHOICES = ["yes", "no", "always"];

/** The tools to hold, from `ROOST_APPROVE` (names separated by commas or spaces; `*` for every tool). */
export function approvalList(env: NodeJS.ProcessEnv): Set<string> {
  return new Set(
    (env.ROOST_APPROVE ?? "")
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

const quote = (s: string) => `\`${s.length > 300 ? `${s.slice(0, 299)}…` : s}\``;

/** The question an approval asks: what the call would do, in a line. */
export function approvalQuestion(tool: string, input: Record<string, unknown>): string {
  const str = (k: string) => (typeof input[k] === "string" ? (input[k] as string) : null);
  if (tool === "bash" && str("command")) return `Run ${quote(str("command")!)}?`;
  if ((tool === "write" || tool === "edit") && str("path"))
    return `${tool === "write" ? "Write" : "Edit"} ${quote(str("path")!)}?`;
  const args = JSON.stringify(input);
  return `Run ${tool} ${quote(args)}?`;
}

export class Approvals {
  /** The tools the user answered `always` for. */
  private readonly always = new Set<string>();

  constructor(
    private readonly tools: Set<string>,
    private readonly questions: Questions,
  ) {}

  /** A `tool_call` handler: resolves once the call may go on, or blocks it with the user's answer. */
  async check(
    tool: string,
    input: Record<string, unknown>,
    ctx: PiContext,
    signal?: AbortSignal,
  ): Promise<PiToolCallResult | undefined> {
    if (!(this.tools.has(tool) || this.tools.has("*")) || this.always.has(tool)) return undefined;
    const answer = await this.questions.ask(approvalQuestion(tool, input), APPROVAL_CHOICES, ctx, signal);
    const word = answer?.trim().toLowerCase();
    if (word === "yes" || word === "y") return undefined;
    if (word === "always") {
      this.always.add(tool);
      return undefined;
    }
    if (answer === null)
      return { block: true, reason: "The user dismissed the approval: the call did not run." };
    if (word === "no" || word === "n")
      return { block: true, reason: "The user said no: the call did not run." };
    return { block: true, reason: `The user did not approve the call, and said: ${answer}` };
  }
}
