/**
 * What an ACP job's row says, kept from the agent's `session/update` notifications and the turns
 * the bridge runs: working while a prompt turn runs, the tool call under way, the plan's current
 * step, blocked on a permission request, and once the turn ends done with the agent's last message
 * (failed when the agent refused or the prompt was refused). Every change is one full report (the
 * agent client coalesces them, and sends a change of state at once).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentReport } from "../agent/index.js";
import { addTokens, type Tokens, type UsageTotals, withCost } from "./usage.js";

/** What the agent itself is doing; a permission request on the row (`asking`) stands above it. */
type State = "working" | "done" | "failed";

/** A text content block's text (the others: images, resources, have none the row can show). */
const textOf = (content: acp.ContentBlock): string => (content.type === "text" ? content.text : "");

/** A message as the row shows it: its text on one line (the agent client clips it to the limit). */
export const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim();

/** An ACP error as the row says it: its message, and the details a generic one carries in its data. */
export function errorText(err: unknown): string {
  const e = err as { message?: unknown; data?: unknown };
  const message = typeof e?.message === "string" && e.message ? e.message : String(err);
  const data = e?.data as { details?: unknown; message?: unknown } | null | undefined;
  const details =
    typeof data?.details === "string"
      ? data.details
      : typeof data?.message === "string"
        ? data.message
        : null;
  return details && !message.includes(details) ? `${message}: ${details}` : message;
}

/** An error the agent answered (JSON-RPC's, with its code), not the connection's end (the agent gone). */
export const answered = (err: unknown): boolean => typeof (err as { code?: unknown })?.code === "number";

/** The current step of a plan: the first in progress, else the first pending; with its place. */
export function planStep(entries: acp.PlanEntry[]): string | null {
  const i =
    entries.findIndex((e) => e.status === "in_progress") === -1
      ? entries.findIndex((e) => e.status === "pending")
      : entries.findIndex((e) => e.status === "in_progress");
  return i === -1 ? null : `plan ${i + 1}/${entries.length}: ${oneLine(entries[i]!.content)}`;
}

/** The session's model, where the agent offers one as a config option of category `model`. */
export function modelOf(options: acp.SessionConfigOption[] | null | undefined): string | null {
  const option = options?.find((o) => o.category === "model" && o.type === "select");
  if (!option || option.type !== "select") return null;
  const flat = option.options.flatMap((o) => ("group" in o ? o.options : [o]));
  return flat.find((o) => o.value === option.currentValue)?.name ?? option.currentValue;
}

export class AcpRow {
  private state: State = "working";
  private status: AgentReport["status"] = "waiting";
  private summary: string;
  private asking: { question: string; choices: string[] } | null = null;
  private error: string | null = null;
  private name: string | null = null;
  private model: string | null = null;
  private context: AgentReport["context"] = null;
  private usage: UsageTotals | null = null;
  /** The tool calls under way, by id, in the order they started (their titles). */
  private readonly tools = new Map<string, string>();
  private plan: string | null = null;
  /** The agent's message of this turn so far (its chunks joined); a tool call starts a new one. */
  private message = "";
  private messageDone = false;
  /** Until the session is made: the row says the agent is starting. */
  private starting = true;

  constructor(
    private readonly send: (report: AgentReport) => void,
    /** The agent's name, as the row says it is starting. */
    agentName: string,
  ) {
    this.summary = `${agentName} is starting`;
  }

  /** The agent is up, its session made, with nothing to do yet. */
  ready(): void {
    this.starting = false;
    this.summary = "ready for a task";
    this.settle("done", null);
  }

  /** A prompt turn starts: the row is working until it ends (no longer "starting", if it said so). */
  turnStarted(): void {
    if (this.starting) this.summary = "working";
    this.starting = false;
    this.state = "working";
    this.status = "busy";
    this.error = null;
    this.plan = null;
    this.message = "";
    this.messageDone = false;
    this.flush();
  }

  /** The turn ended with the agent's stop reason: done with its last message, or failed. */
  turnEnded(stop: acp.StopReason, tokens: Tokens | null = null): void {
    if (tokens) this.usage = addTokens(this.usage, tokens);
    const said = oneLine(this.message);
    if (stop === "refusal") {
      this.summary = said || "the agent refused";
      this.settle("failed", "the agent refused to go on with this prompt");
      return;
    }
    const why = {
      end_turn: "done",
      cancelled: "cancelled",
      max_tokens: "stopped: the agent reached its token limit",
      max_turn_requests: "stopped: the agent reached its limit of requests in a turn",
    }[stop];
    this.summary = stop === "end_turn" ? said || why : said ? `${why}; ${said}` : why;
    this.settle("done", null);
  }

  /**
   * A turn handed over to a steer has ended (its answer comes when the agent takes the steer): its
   * tokens count with the job's, and what the agent says next is a message of its own. (What it
   * said of the steered turn before this answer came stays joined to the last message: the
   * agent's updates carry no turn.)
   */
  handedOver(tokens: Tokens | null): void {
    this.messageDone = true;
    if (tokens) this.usage = addTokens(this.usage, tokens);
    this.flush();
  }

  /** The prompt was refused, or the agent's answer to it was an error. */
  turnFailed(error: string): void {
    this.settle("failed", error);
  }

  /** The agent ended, and with it the job: failed, with why (its summary too, if it never started). */
  ended(reason: string): void {
    if (this.starting) this.summary = "the agent ended before its session was made";
    this.asking = null;
    this.settle("failed", reason);
  }

  /** A permission request waits for the user: the row is blocked on it until `unblocked`. */
  blocked(question: string, choices: string[]): void {
    this.asking = { question, choices };
    this.flush();
  }

  unblocked(): void {
    this.asking = null;
    this.flush();
  }

  /**
   * A tool call the user allowed runs now: on the row until its update says it ended, if the agent
   * did not announce it itself (Gemini CLI announces a call it asks about in the request alone).
   */
  allowed(call: acp.ToolCallUpdate): void {
    if (this.tools.has(call.toolCallId)) return;
    const title = call.title ? oneLine(call.title) : "";
    if (title) this.tools.set(call.toolCallId, title);
  }

  /** Something worth a line on the row that changes nothing else (a refused /model). */
  note(summary: string): void {
    this.summary = summary;
    this.flush();
  }

  /** The model, as the session's config options say it now. */
  setModel(model: string | null): void {
    if (model === this.model) return;
    this.model = model;
    this.flush();
  }

  /** One `session/update` of the agent's, on the row. */
  update(u: acp.SessionUpdate): void {
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
        if (this.messageDone) this.message = "";
        this.messageDone = false;
        this.message += textOf(u.content);
        // While the turn runs, what the agent says is the row's text unless a tool or a step is.
        if (!this.tools.size && oneLine(this.message)) this.summary = oneLine(this.message);
        break;
      case "tool_call":
        this.messageDone = true;
        if (u.status !== "completed" && u.status !== "failed") this.tools.set(u.toolCallId, oneLine(u.title));
        this.summary = oneLine(u.title);
        break;
      case "tool_call_update":
        this.messageDone = true;
        if (u.status === "completed" || u.status === "failed") this.tools.delete(u.toolCallId);
        else if (u.title && this.tools.has(u.toolCallId)) this.tools.set(u.toolCallId, oneLine(u.title));
        else if (u.title || u.status === "in_progress")
          this.tools.set(u.toolCallId, oneLine(u.title ?? this.tools.get(u.toolCallId) ?? u.toolCallId));
        break;
      case "plan":
        this.plan = planStep(u.entries);
        if (this.plan && !this.tools.size) this.summary = this.plan;
        break;
      case "usage_update":
        this.context = {
          tokens: u.used,
          window: u.size,
          percent: u.size > 0 ? (100 * u.used) / u.size : 0,
        };
        if (u.cost) this.usage = withCost(this.usage, { total: u.cost.amount, currency: u.cost.currency });
        break;
      case "session_info_update":
        if (u.title) this.name = oneLine(u.title);
        break;
      case "config_option_update":
        this.model = modelOf(u.configOptions) ?? this.model;
        break;
      default:
        return; // thoughts, the user's own echo, commands, modes: nothing the row shows
    }
    this.flush();
  }

  private settle(state: State, error: string | null): void {
    this.tools.clear();
    this.plan = null;
    this.state = state;
    this.status = "idle";
    this.error = error;
    this.flush();
  }

  private flush(): void {
    const tool = [...this.tools.values()].at(-1) ?? null;
    const asking = this.asking;
    const working = this.state === "working";
    this.send({
      state: asking ? "blocked" : this.state,
      status: asking ? "waiting" : this.status,
      waitingFor: asking ? "question" : null,
      summary: working && tool ? tool : this.summary,
      question: asking?.question ?? null,
      choices: asking?.choices ?? [],
      tool: working && !asking ? tool : null,
      error: this.error,
      name: this.name,
      model: this.model,
      context: this.context,
      usage: this.usage ? { ...this.usage } : null,
    });
  }
}
