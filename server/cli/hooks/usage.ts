/**
 * A terminal agent's usage, read from the transcript its hook names: Claude Code's (a JSON line an
 * entry; each assistant message's `usage`, the entries of one message sharing its id) summed over
 * the session, priced where roost knows the model's price (else tokens alone); and the context the
 * last message used.
 */
import fs from "node:fs";
import type { HookSaid } from "./said.js";

/** A transcript past this is not read (a hook must be quick): the row keeps its usage from before. */
const MAX_BYTES = 32 * 1024 * 1024;

/** Dollars per million tokens: input, output, cache write (5 minutes), cache read. By the model's id. */
const PRICES: readonly [RegExp, [number, number, number, number]][] = [
  [/opus-4-[5-9]/, [5, 25, 6.25, 0.5]],
  [/opus-4|opus-3/, [15, 75, 18.75, 1.5]],
  [/sonnet/, [3, 15, 3.75, 0.3]],
  [/haiku-4|haiku-[5-9]/, [1, 5, 1.25, 0.1]],
  [/haiku-3-5/, [0.8, 4, 1, 0.08]],
];

interface MessageUsage {
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The transcript's text, or null (none, too long, unreadable: a hook never fails for it). */
function readBounded(file: string | undefined): string | null {
  if (!file) return null;
  try {
    if (fs.statSync(file).size > MAX_BYTES) return null;
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** Each assistant message's usage, by its id (a message streamed as several entries counts once: its last). */
export function claudeMessages(text: string): MessageUsage[] {
  const byId = new Map<string, MessageUsage>();
  for (const line of text.split("\n")) {
    if (!line.includes('"assistant"')) continue;
    let entry: {
      type?: unknown;
      message?: { id?: unknown; model?: unknown; usage?: Record<string, unknown> };
    };
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a line being written
    }
    const m = entry.message;
    if (entry.type !== "assistant" || !m?.usage || m.model === "<synthetic>") continue;
    byId.set(typeof m.id === "string" ? m.id : `#${byId.size}`, {
      model: typeof m.model === "string" ? m.model : "",
      input: num(m.usage.input_tokens),
      output: num(m.usage.output_tokens),
      cacheRead: num(m.usage.cache_read_input_tokens),
      cacheWrite: num(m.usage.cache_creation_input_tokens),
    });
  }
  return [...byId.values()];
}

/** The price of one message, in dollars; null for a model roost has no price for. */
function priceOf(m: MessageUsage): number | null {
  const price = PRICES.find(([pattern]) => pattern.test(m.model))?.[1];
  if (!price) return null;
  const [input, output, write, read] = price;
  return (m.input * input + m.output * output + m.cacheWrite * write + m.cacheRead * read) / 1e6;
}

/** The session's usage and the context its last message used, from Claude Code's transcript. */
export function claudeUsage(file: string | undefined): Pick<HookSaid, "usage" | "context"> {
  const text = readBounded(file);
  if (text === null) return {};
  const messages = claudeMessages(text);
  const last = messages.at(-1);
  if (!last) return {};
  const sum = (k: keyof Omit<MessageUsage, "model">) => messages.reduce((n, m) => n + m[k], 0);
  const prices = messages.map(priceOf);
  const cost = prices.every((p) => p !== null)
    ? {
        total: Math.round(prices.reduce((n: number, p) => n + (p ?? 0), 0) * 1e8) / 1e8,
        currency: "USD" as const,
      }
    : undefined;
  const [input, output, cacheRead, cacheWrite] = [
    sum("input"),
    sum("output"),
    sum("cacheRead"),
    sum("cacheWrite"),
  ];
  return {
    usage: {
      input,
      output,
      cacheRead,
      cacheWrite,
      totalTokens: input + output + cacheRead + cacheWrite,
      messages: messages.length,
      ...(cost ? { cost } : {}),
    },
    context: { tokens: last.input + last.cacheRead + last.cacheWrite + last.output },
  };
}
