/**
 * Replies and peer items into pi, each taken by pi before it is acked. A reply of the user's is a
 * pi user message, with pi's own delivery (`steer`: after the tool calls under way, before the
 * model's next call; `followUp` or none: once pi would stop); a peer item (a message, a handback,
 * a notice) is a custom message that keeps roost's envelope (a `steer` one, urgent, as a steer). A
 * reply that answers the question on the row, or is a command of roost's (`/model`, `/thinking`,
 * `/name`), is taken at once and reaches pi as nothing else.
 *
 * Everything is decided the moment it arrives (the client's `onArrive`), not in its turn: a steer
 * must not wait behind a follow-up that pi takes only at the end of its run. The client's handlers
 * then only wait, in order, for pi to take each one (`taken`), so that an ack covers only what pi
 * has. pi takes a message when it starts it (`message_start`): a user message is known by its text
 * (as pi itself matches its queues), an item by the seq in its details.
 */

import type { Reply } from "../agent/index.js";
import { Takers } from "../agent/takers.js";
import type { DeliverAs, PiAPI, PiContext, PiMessage } from "./pi-api.js";
import type { Questions } from "./questions.js";
import type { PiRow } from "./row.js";

/** The custom message type of roost's peer items in pi's session. */
export const ITEM_TYPE = "roost";

/** The thinking levels pi knows (a model may clamp them). */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];

interface Outgoing {
  seq: number;
  deliverAs: DeliverAs;
  /** Hands it to pi. */
  send: (deliverAs: DeliverAs) => void;
  /** Whether the message pi starts is this one. */
  is: (message: PiMessage) => boolean;
}

/** A user message's text, as pi matches it against its queues (its text blocks, joined). */
function fullText(message: PiMessage): string {
  const c = message.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c
    .filter((b): b is { type: "text"; text: string } => b?.type === "text")
    .map((b) => b.text)
    .join("");
}

export class Inbox {
  /** Handed to pi, not yet started by it, oldest first. */
  private readonly waiting: Outgoing[] = [];
  /**
   * Not yet handed to pi: one was handed to an idle pi and not yet started (until pi's run is
   * under way, a second would start a run of its own and be refused), or pi has no model.
   */
  private readonly held: Outgoing[] = [];
  private idleSend: Outgoing | null = null;
  /** Each arrived seq's "taken", resolved once pi took it (or at once, for an answer or a command). */
  private readonly takers = new Takers();

  constructor(
    private readonly pi: PiAPI,
    private readonly ctx: () => PiContext | null,
    private readonly questions: Questions,
    private readonly row: PiRow,
  ) {}

  /** A reply or an item has arrived: it goes to pi now (or answers, or is run as a command). */
  arrive(reply: Reply): void {
    this.takers.arrived(reply.seq);
    const deliverAs: DeliverAs = reply.mode === "steer" ? "steer" : "followUp";
    if (reply.kind !== undefined) {
      const details = { roostSeq: reply.seq, kind: reply.kind, from: reply.from, relation: reply.relation };
      this.push({
        seq: reply.seq,
        deliverAs,
        send: (d) =>
          this.pi.sendMessage(
            { customType: ITEM_TYPE, content: reply.text, display: true, details },
            { triggerTurn: true, deliverAs: d },
          ),
        is: (m) =>
          m.role === "custom" && (m.details as { roostSeq?: unknown } | undefined)?.roostSeq === reply.seq,
      });
      return;
    }
    if (this.questions.answer(reply.text, reply.answeredBy, reply.why) || this.command(reply.text)) {
      this.takers.took(reply.seq);
      return;
    }
    // The concierge's words in the user's place say so: the model knows who answered.
    const text =
      reply.answeredBy === "concierge"
        ? `[roost: the concierge answered in the user's place (${reply.why ?? "the user's policy"})]\n${reply.text}`
        : reply.text;
    this.push({
      seq: reply.seq,
      deliverAs,
      send: (d) => this.pi.sendUserMessage(text, { deliverAs: d }),
      is: (m) => m.role === "user" && fullText(m) === text,
    });
  }

  /** Resolves once pi has taken the reply or item `seq` (the client then records and acks it). */
  taken(seq: number): Promise<void> {
    // Forgotten once its handler has it (each seq's handler asks once, in order).
    return this.takers.taken(seq);
  }

  /** pi started a message: if it is one of ours, pi has taken it. */
  started(message: PiMessage): void {
    const i = this.waiting.findIndex((o) => o.is(message));
    if (i === -1) return;
    const [out] = this.waiting.splice(i, 1);
    this.takers.took(out!.seq);
    if (this.idleSend === out) {
      this.idleSend = null;
      this.flush(); // pi's run is under way now: the rest queue in it with their own delivery
    }
  }

  /**
   * Something came for pi to work on (a reply or an item, not an answer or a command): the row is
   * its run's from then on, even while pi, handed it, is not yet busy.
   */
  prompted = false;

  /** pi has a model again (or a new one): what waited for one goes. */
  modelChanged(): void {
    if (!this.idleSend) this.flush();
  }

  private push(out: Outgoing): void {
    this.prompted = true;
    if (this.idleSend || this.held.length) this.held.push(out);
    else this.hand(out);
  }

  private flush(): void {
    const held = this.held.splice(0);
    for (const [i, out] of held.entries()) {
      if (this.idleSend) {
        this.held.push(...held.slice(i));
        return;
      }
      this.hand(out);
    }
  }

  private hand(out: Outgoing): void {
    const ctx = this.ctx();
    if (ctx && !ctx.model) {
      // pi would refuse it in its terminal alone: the row says why, and it waits for a model.
      this.held.unshift(out);
      this.row.settled("pi has no model: choose one in pi, or reply /model provider/id");
      return;
    }
    if (!ctx || ctx.isIdle()) this.idleSend = out;
    this.waiting.push(out);
    out.send(out.deliverAs);
  }

  /** roost's commands for pi: `/model provider/id`, `/thinking level`, `/name text`. True when it was one. */
  private command(text: string): boolean {
    const m = /^\/(model|thinking|name)(?:\s+([\s\S]*))?$/.exec(text.trim());
    if (!m) return false;
    const [, command, rest = ""] = m;
    const arg = rest.trim();
    const ctx = this.ctx();
    if (command === "name") {
      if (!arg) return false;
      this.pi.setSessionName(arg);
      this.row.setName(arg);
      return true;
    }
    if (command === "thinking") {
      if (!THINKING_LEVELS.includes(arg)) {
        this.refuse(`/thinking: say one of ${THINKING_LEVELS.join(", ")}`, ctx);
        return true;
      }
      this.pi.setThinkingLevel(arg); // pi says the level it took (thinking_level_select)
      return true;
    }
    if (!ctx) return false;
    if (!arg) {
      this.refuse("/model: say which, as provider/id", ctx);
      return true;
    }
    const slash = arg.indexOf("/");
    const model =
      (slash > 0 ? ctx.modelRegistry.find(arg.slice(0, slash), arg.slice(slash + 1)) : undefined) ??
      ctx.modelRegistry.getAll().find((x) => x.id === arg || x.name === arg);
    if (!model) {
      this.refuse(`/model: pi has no model "${arg}"`, ctx);
      return true;
    }
    void this.pi.setModel(model).then(
      (ok) => {
        if (!ok) this.refuse(`/model: pi has no API key for ${model.provider}/${model.id}`, ctx);
      },
      (err: Error) => this.refuse(`/model: ${err.message}`, ctx),
    );
    return true;
  }

  private refuse(why: string, ctx: PiContext | null): void {
    this.row.note(why);
    ctx?.ui.notify(why, "warning");
  }
}
