/**
 * A job's conversation, from the agent's side (docs/protocol.md, "The conversation"): entries
 * added as they happen, each fitted to the protocol's limits, sent in order in batches
 * (`conversation-append`), one call at a time. Each batch has a request id, so a batch lost to a
 * restart of roost is sent again once it is back and kept once. An agent that sends them says the
 * `transcript` capability in its hello (TRANSCRIPT). Node builtins only.
 */
import { randomUUID } from "node:crypto";
import type { Entry } from "../protocol/conversation.js";
import { LIMITS } from "../protocol/limits.js";
import { truncate } from "./report-fit.js";

/** The capability (hello's) of an agent that sends its conversation. */
export const TRANSCRIPT = "transcript";

/** How long entries wait for others to go with them in one call. */
const BATCH_MS = 50;

/** An entry within the limits: its texts cut ("…" at the cut), its lists to their count. */
export function fitEntry(entry: Entry): Entry {
  const e: Entry = { ...entry };
  const cap = (s: string | undefined, max: number) => (s === undefined ? s : truncate(s, max));
  e.text = cap(e.text, LIMITS.entryText);
  if (e.tool)
    e.tool = {
      ...e.tool,
      id: truncate(e.tool.id, LIMITS.entryName),
      name: truncate(e.tool.name, LIMITS.entryName),
      input: cap(e.tool.input, LIMITS.entryText),
      output: cap(e.tool.output, LIMITS.entryText),
    };
  if (e.plan)
    e.plan = e.plan
      .slice(0, LIMITS.planSteps)
      .map((s) => ({ ...s, text: truncate(s.text, LIMITS.planStep) }));
  if (e.diff)
    e.diff = {
      path: truncate(e.diff.path, 1000),
      new: truncate(e.diff.new, LIMITS.entryText),
      ...(e.diff.old === undefined ? {} : { old: truncate(e.diff.old, LIMITS.entryText) }),
    };
  if (e.choices) e.choices = e.choices.slice(0, LIMITS.choices).map((c) => truncate(c, LIMITS.choice));
  for (const key of Object.keys(e) as (keyof Entry)[]) if (e[key] === undefined) delete e[key];
  return e;
}

/** Where entries go: a ConversationSender, or a test's list. */
export interface EntrySink {
  add(entry: Entry): void;
}

/** A value as text: a string as it is, anything else as JSON (none: undefined). */
export function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

type Call = (op: string, args: Record<string, unknown>) => Promise<unknown>;

export class ConversationSender implements EntrySink {
  private readonly queue: Entry[] = [];
  private sending: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    /** The agent client's `call` (it waits for the connection, and rides out a restart). */
    private readonly call: Call,
    private readonly job: () => { id: string; token: string },
    private readonly log: (message: string) => void = () => {},
  ) {}

  /** One thing said or done, now (its `at` taken now unless given). */
  add(entry: Entry): void {
    if (this.stopped) return;
    this.queue.push(fitEntry({ ...entry, at: entry.at ?? Date.now() }));
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, BATCH_MS);
  }

  /** Sends what waits; resolves once all of it is answered (or given up). */
  async flush(): Promise<void> {
    while (this.sending) await this.sending;
    if (this.queue.length === 0) return;
    this.sending = this.sendAll().finally(() => {
      this.sending = null;
    });
    await this.sending;
  }

  private async sendAll(): Promise<void> {
    while (this.queue.length && !this.stopped) {
      const entries = this.queue.splice(0, LIMITS.entriesPerCall);
      const { id, token } = this.job();
      try {
        await this.call("conversation-append", { id, token, entries, requestId: `c-${randomUUID()}` });
      } catch (err) {
        const code = (err as { code?: string }).code;
        // The job has ended (or roost no longer knows it): nothing more will be taken.
        if (code === "unauthorized" || code === "not_found") this.stopped = true;
        this.log(`${entries.length} conversation entries not kept: ${(err as Error).message}`);
      }
    }
    if (this.stopped) this.queue.length = 0;
  }
}
