/**
 * The tokens an ACP agent says a turn took, wherever it puts them in the prompt's answer: ACP's
 * `usage` (claude-agent-acp: inputTokens, outputTokens, totalTokens, cached and thought tokens),
 * or Gemini CLI's `_meta.quota.token_count` (input_tokens, output_tokens). The row's `usage` sums
 * them over the job's turns, with the cost where the agent says one (`usage_update`).
 */
import type * as acp from "@agentclientprotocol/sdk";

/** One turn's tokens. */
export interface Tokens {
  input: number;
  output: number;
  total: number;
  cacheRead: number;
  cacheWrite: number;
  thought: number;
}

/** A turn's end as the turns see it: its stop reason, and its tokens where the agent says them. */
export interface TurnAnswer {
  stop: acp.StopReason;
  tokens: Tokens | null;
}

/** The row's `usage`: the job's turns' tokens summed, and its cost (the agent's own figure). */
export interface UsageTotals {
  turns: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  thought: number;
  totalTokens: number;
  cost?: { total: number; currency: string };
}

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The tokens in a prompt's answer; null when it says none. */
export function tokensOf(answer: unknown): Tokens | null {
  if (!isObject(answer)) return null;
  const usage = answer.usage;
  if (isObject(usage)) {
    const input = count(usage.inputTokens);
    const output = count(usage.outputTokens);
    return {
      input,
      output,
      total: count(usage.totalTokens) || input + output,
      cacheRead: count(usage.cachedReadTokens),
      cacheWrite: count(usage.cachedWriteTokens),
      thought: count(usage.thoughtTokens),
    };
  }
  const meta = answer._meta;
  const quota = isObject(meta) && isObject(meta.quota) ? meta.quota : null;
  const tokens = quota && isObject(quota.token_count) ? quota.token_count : null;
  if (!tokens) return null;
  const input = count(tokens.input_tokens);
  const output = count(tokens.output_tokens);
  return { input, output, total: input + output, cacheRead: 0, cacheWrite: 0, thought: 0 };
}

/** The totals with one turn's tokens added. */
export function addTokens(totals: UsageTotals | null, t: Tokens): UsageTotals {
  const was = totals ?? {
    turns: 0,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    thought: 0,
    totalTokens: 0,
  };
  return {
    ...was,
    turns: was.turns + 1,
    input: was.input + t.input,
    output: was.output + t.output,
    cacheRead: was.cacheRead + t.cacheRead,
    cacheWrite: was.cacheWrite + t.cacheWrite,
    thought: was.thought + t.thought,
    totalTokens: was.totalTokens + t.total,
  };
}

/** The totals with the agent's cost figure (claude-agent-acp's: the session's cost so far). */
export function withCost(totals: UsageTotals | null, cost: { total: number; currency: string }): UsageTotals {
  const was = totals ?? {
    turns: 0,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    thought: 0,
    totalTokens: 0,
  };
  return { ...was, cost };
}
