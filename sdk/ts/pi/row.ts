/**
 * What a pi job's row says, kept from pi's events: its state (working while pi runs, the tool under
 * way, blocked on a question, done or failed once pi settles), the model and thinking level, the
 * context window's use, and the usage summed over the job. Every change is one full report (the
 * client coalesces them, and sends a change of state at once).
 */
import fs from "node:fs";
import path from "node:path";
import type { AgentReport } from "../agent/index.js";
import type { PiContext, PiMessage, PiModel } from "./pi-api.js";
import { addUsage, noUsage, type UsageTotals } from "./usage.js";

/** What pi itself is doing; a question on the row (`asking`) stands above it. */
type State = "working" | "done" | "failed";

/** The first line of a message's text (what the row shows of it), or null when it has none. */
export function messageText(message: PiMessage): string | null {
  const content = message.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .filter(
              (c): c is { type: "text"; text: string } => c?.type === "text" && typeof c.text === "string",
            )
            .map((c) => c.text)
            .join("\n")
        : "";
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find(Boolean);
  return line ?? null;
}

/** A tool call as one line: `bash: npm test`, `read: src/a.ts`. */
export function toolLine(name: string, args: unknown): string {
  const a = (args ?? {}) as Record<string, unknown>;
  const main = a.command ?? a.path ?? a.file_path ?? a.pattern ?? a.question ?? a.text;
  return typeof main === "string" ? `${name}: ${main.split("\n")[0]}` : name;
}

export const modelName = (m: PiModel | undefined) => (m ? `${m.provider}/${m.id}` : null);

export class PiRow {
  private state: State = "working";
  private status: AgentReport["status"] = "waiting";
  private summary = "pi is starting";
  /** The question the row is blocked on, while it waits (parallel tools go on meanwhile). */
  private asking: { question: string; choices: string[] } | null = null;
  private error: string | null = null;
  private model: string | null = null;
  private thinking: string | null = null;
  private context: AgentReport["context"] = null;
  private usage: UsageTotals;
  private name: string | null = null;
  /** The tools under way (parallel calls), by call id, in the order they started. */
  private readonly tools = new Map<string, string>();

  constructor(
    private readonly send: (report: AgentReport) => void,
    /** Where the usage is kept across a restart of pi (the job's directory); null: memory only. */
    private readonly usageFile: string | null,
  ) {
    this.usage = this.readUsage();
  }

  /** pi is at work: a prompt or a turn started, a tool. A question on the row stays there. */
  working(summary?: string): void {
    this.state = "working";
    this.status = "busy";
    this.error = null;
    if (summary) this.summary = summary;
    this.flush();
  }

  toolStarted(id: string, name: string, args: unknown): void {
    this.tools.set(id, name);
    this.working(toolLine(name, args));
  }

  toolEnded(id: string): void {
    this.tools.delete(id);
    this.flush();
  }

  /** What the model said last, as the row's text. */
  said(message: PiMessage): void {
    const text = messageText(message);
    if (text) this.summary = text;
    this.usage = addUsage(this.usage, message.usage);
    this.writeUsage();
    this.flush();
  }

  /** A question waits for the user: the row is blocked on it until `unblocked`. */
  blocked(question: string, choices: string[]): void {
    this.asking = { question, choices };
    this.flush();
  }

  /** The question was answered (or dismissed): pi goes on with its work. */
  unblocked(): void {
    this.asking = null;
    this.working();
  }

  /** pi has settled: done (its turn is the user's), or failed with the error its model gave. */
  settled(error: string | null): void {
    this.tools.clear();
    this.state = error ? "failed" : "done";
    this.status = "idle";
    this.error = error;
    this.asking = null; // the run is over: no tool waits for an answer
    this.flush();
  }

  /** pi waits for a first task (nothing came for it), or for its user at its terminal. */
  ready(): void {
    this.summary = "ready for a task";
    this.settled(null);
  }

  /** Something worth a line on the row that changes nothing else (a refused /model). */
  note(summary: string): void {
    this.summary = summary;
    this.flush();
  }

  /** The model, thinking level and context window as pi has them now. */
  refresh(ctx: PiContext, thinking: string | null): void {
    this.model = modelName(ctx.model) ?? this.model;
    this.thinking = thinking;
    const u = ctx.getContextUsage();
    // Unknown right after a compaction: the row keeps no number rather than a wrong one.
    this.context =
      u && typeof u.tokens === "number"
        ? {
            tokens: u.tokens,
            window: u.contextWindow,
            percent: u.percent ?? (100 * u.tokens) / u.contextWindow,
          }
        : null;
    this.flush();
  }

  setName(name: string | null): void {
    this.name = name;
    this.flush();
  }

  private flush(): void {
    const tool = [...this.tools.values()].at(-1) ?? null;
    const asking = this.asking;
    this.send({
      state: asking ? "blocked" : this.state,
      status: asking ? "waiting" : this.status,
      waitingFor: asking ? "question" : null,
      summary: this.summary,
      question: asking?.question ?? null,
      choices: asking?.choices ?? [],
      tool: this.state === "working" && !asking ? tool : null,
      error: this.error,
      name: this.name,
      model: this.model,
      thinking: this.thinking,
      context: this.context,
      usage: this.usage.messages > 0 ? { ...this.usage } : null,
    });
  }

  private readUsage(): UsageTotals {
    if (!this.usageFile) return noUsage();
    try {
      const saved = JSON.parse(fs.readFileSync(this.usageFile, "utf8")) as UsageTotals;
      return typeof saved?.messages === "number" && typeof saved.cost?.total === "number" ? saved : noUsage();
    } catch {
      return noUsage();
    }
  }

  /** Kept in the job's directory, so that pi started again (respawn) goes on counting for the job. */
  private writeUsage(): void {
    if (!this.usageFile) return;
    try {
      const tmp = `${this.usageFile}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(this.usage));
      fs.renameSync(tmp, this.usageFile);
    } catch {
      // The row still says it; only a restart of pi would forget this message's share.
    }
  }
}

/** The usage file of a job's directory. */
export const usageFileIn = (dir: string | null) => (dir ? path.join(dir, "pi-usage.json") : null);
