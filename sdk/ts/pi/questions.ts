/**
 * The questions a pi job asks its user (the model's `roost_ask`, an approval the profile asks for):
 * one at a time on the row (blocked, with the question and its choices), answered by whichever
 * comes first, a reply through roost or the same question in pi's own terminal. The reply that
 * answers is taken then and there: it never also reaches pi as a message.
 */
import type { PiContext } from "./pi-api.js";
import type { PiConversation } from "./pi-conversation.js";
import type { PiRow } from "./row.js";

/** An answer, and who gave it: the user (through roost or in pi), or the concierge in their place (why). */
export interface Answer {
  text: string;
  by: "user" | "concierge";
  why?: string;
}

/** What the model is told of an answer: who gave it (the concierge with its reason), and what. */
export const answerText = (a: Answer): string =>
  a.by === "concierge"
    ? `The concierge answered in the user's place (${a.why ?? "the user's policy"}): ${a.text}`
    : `The user answered: ${a.text}`;

interface Question {
  text: string;
  choices: string[];
  ctx: PiContext;
  /** Settles the question: an answer, or null when it was dismissed (in pi, or the tool aborted). */
  settle: (answer: Answer | null) => void;
  /** Dismisses the terminal's dialog once roost's reply has answered. */
  dialog: AbortController;
}

export class Questions {
  /** The one on the row first, the others waiting their turn (parallel tool calls may each ask). */
  private readonly queue: Question[] = [];

  constructor(
    private readonly row: PiRow,
    /** The job's conversation, which says each question and its answer (pi-conversation.ts). */
    private readonly conversation: PiConversation | null = null,
  ) {}

  /**
   * Asks, and resolves with the answer (a choice, or any text a reply gave), or null when it was
   * dismissed: the user escaped pi's dialog, or `signal` (the tool's) aborted.
   */
  ask(text: string, choices: string[], ctx: PiContext, signal?: AbortSignal): Promise<string | null> {
    return this.answerOf(text, choices, ctx, signal).then((a) => a?.text ?? null);
  }

  /** As `ask`, with who answered. */
  answerOf(text: string, choices: string[], ctx: PiContext, signal?: AbortSignal): Promise<Answer | null> {
    const answer = this.asking(text, choices, ctx, signal);
    this.conversation?.asked(text, choices, answer);
    return answer;
  }

  private asking(
    text: string,
    choices: string[],
    ctx: PiContext,
    signal?: AbortSignal,
  ): Promise<Answer | null> {
    return new Promise((resolve) => {
      const q: Question = {
        text,
        choices,
        ctx,
        dialog: new AbortController(),
        settle: (answer) => {
          const i = this.queue.indexOf(q);
          if (i === -1) return; // settled already
          this.queue.splice(i, 1);
          q.dialog.abort();
          signal?.removeEventListener("abort", onAbort);
          resolve(answer);
          if (i === 0) this.showNext();
        },
      };
      const onAbort = () => q.settle(null);
      if (signal?.aborted) return resolve(null);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(q);
      if (this.queue.length === 1) this.show(q);
    });
  }

  /**
   * A reply through roost (the user's, or the concierge's in their place): the answer to the
   * question on the row, if there is one (true: taken).
   */
  answer(text: string, by: Answer["by"] = "user", why?: string): boolean {
    const q = this.queue[0];
    if (!q) return false;
    q.settle({ text: text.trim(), by, ...(why === undefined ? {} : { why }) });
    return true;
  }

  get pending(): boolean {
    return this.queue.length > 0;
  }

  private showNext(): void {
    const next = this.queue[0];
    if (next) this.show(next);
    else this.row.unblocked();
  }

  /** On the row, and in pi's terminal when it has one (so `roost attach` can answer it too). */
  private show(q: Question): void {
    this.row.blocked(q.text, q.choices);
    if (!q.ctx.hasUI) return;
    const opts = { signal: q.dialog.signal };
    const dialog = q.choices.length
      ? q.ctx.ui.select(q.text, q.choices, opts)
      : q.ctx.ui.input(q.text, undefined, opts);
    dialog.then(
      // Dismissed by roost's answer (aborted): that answer stands. Escaped by the user: dismissed.
      (answer) => {
        if (!q.dialog.signal.aborted) q.settle(answer == null ? null : { text: answer, by: "user" });
      },
      () => {},
    );
  }
}
