/**
 * The questions a pi job asks its user (the model's `roost_ask`, an approval the profile asks for):
 * one at a time on the row (blocked, with the question and its choices), answered by whichever
 * comes first, a reply through roost or the same question in pi's own terminal. The reply that
 * answers is taken then and there: it never also reaches pi as a message.
 */
import type { PiContext } from "./pi-api.js";
import type { PiRow } from "./row.js";

interface Question {
  text: string;
  choices: string[];
  ctx: PiContext;
  /** Settles the question: an answer, or null when it was dismissed (in pi, or the tool aborted). */
  settle: (answer: string | null) => void;
  /** Dismisses the terminal's dialog once roost's reply has answered. */
  dialog: AbortController;
}

export class Questions {
  /** The one on the row first, the others waiting their turn (parallel tool calls may each ask). */
  private readonly queue: Question[] = [];

  constructor(private readonly row: PiRow) {}

  /**
   * Asks, and resolves with the answer (a choice, or any text a reply gave), or null when it was
   * dismissed: the user escaped pi's dialog, or `signal` (the tool's) aborted.
   */
  ask(text: string, choices: string[], ctx: PiContext, signal?: AbortSignal): Promise<string | null> {
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

  /** A reply of the user's: the answer to the question on the row, if there is one (true: taken). */
  answer(text: string): boolean {
    const q = this.queue[0];
    if (!q) return false;
    q.settle(text.trim());
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
        if (!q.dialog.signal.aborted) q.settle(answer ?? null);
      },
      () => {},
    );
  }
}
