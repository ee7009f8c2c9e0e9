/**
 * A blocked row's question, its choices as buttons (or, read-only, as text), and the concierge's
 * suggestion on a row that waits (`suggested`: one click answers with it). A choice is never
 * queued twice: each has its requestId, made once per question, so a double click or a retry sends
 * the same one; once answered, the choices stay disabled (the chosen one marked) until the agent
 * has taken the answer or asks something else.
 */
import { newRequestId, op, type Row } from "./api.js";
import { conflictText, isConflict } from "./asked.js";
import type { Ctx } from "./ctx.js";
import { h, KeptParts } from "./dom.js";

/** Where the choices live: their row, and its status line. */
export interface ChoicesHost {
  readonly row: Row;
  /** The choices' state changed: draw the row again. */
  redraw(): void;
  setStatus(text: string, kind: "ok" | "error" | "busy"): void;
  setError(err: unknown): void;
  /** An answer is going (`on`: the list holds the row in place), or did not go. */
  answering(on: boolean): void;
  /** Held in its place, answered: its choices stay disabled, even for a new question (rows-hold.ts). */
  readonly held: boolean;
}

export class Choices {
  /** The question the choices answer; the requestId of each choice, made once per question. */
  private key = "";
  private readonly ids = new Map<string, string>();
  private answered: string | null = null;
  /** The answer's reply seq: once the agent has taken it (acked), the choices are live again. */
  private answeredSeq = 0;
  private busy = false;
  /** What was drawn (render, buttons), kept while what it shows is the same (dom.ts). */
  private readonly drawn = new KeptParts();

  constructor(
    private readonly ctx: Ctx,
    private readonly host: ChoicesHost,
  ) {}

  /** Called with each row pushed, before it is drawn. */
  sync(row: Row): void {
    // The agent took the answer: what it asks now (the same words, maybe) is a new question.
    if (this.answered !== null && row.pending === 0 && row.lastSeq >= this.answeredSeq) this.reset();
    const q = row.state === "blocked" ? (row.question ?? "") : "";
    const key =
      q || row.choices || row.suggested
        ? `${q}\n${JSON.stringify(row.choices)}\n${row.state}\n${row.suggested?.at ?? ""}`
        : "";
    if (key !== this.key) {
      this.key = key;
      this.reset();
    }
  }

  /** Answers with the n-th choice (1-based), as a click on it would. */
  choose(n: number): void {
    const choice = this.host.row.choices?.[n - 1];
    if (choice !== undefined && this.host.row.state === "blocked")
      void this.answer(choice, this.host.row.asked);
  }

  /** The question and its choices (a roomy row, a job's page): the same element while they are. */
  render(): HTMLElement | null {
    return this.kept("question", () => this.question());
  }

  /** The choices alone, as buttons (or, read-only, as text), and the suggestion; null when there are none. */
  buttons(): HTMLElement | null {
    return this.kept("buttons", () => this.choiceButtons());
  }

  /**
   * What `make` draws, made again only when what it shows changed: a push to a working row (its
   * resources, its summary) leaves the buttons under the pointer where they are.
   */
  private kept(part: string, make: () => HTMLElement | null): HTMLElement | null {
    const row = this.host.row;
    const asked = [this.key, row.id, row.asked, row.suggested];
    return this.drawn.get(part, [asked, this.answered, this.busy, this.host.held, this.ctx.readOnly()], make);
  }

  private question(): HTMLElement | null {
    const row = this.host.row;
    if (row.state !== "blocked" || (!row.question && !row.choices?.length)) return this.suggestion();
    return h(
      "div",
      { class: "question" },
      row.question ? h("p", { class: "q-text" }, row.question) : null,
      this.choiceButtons(),
    );
  }

  /**
   * The concierge's suggestion (`suggested`, while the row waits): its answer as a button, why in
   * its title; read-only, as text. Null when there is none.
   */
  private suggestion(): HTMLElement | null {
    const s = this.host.row.suggested;
    if (!s) return null;
    // The dense view hides the lead (a ✦ says whose it is), so the question keeps its room; the
    // accessible name is always the whole sentence.
    const label = [h("span", { class: "suggested-lead" }, "Concierge suggests: "), h("q", {}, s.text)];
    const asked = this.host.row.asked; // what it asked as drawn: the answer goes to that or nowhere
    const name = `Concierge suggests: ${s.text}`;
    if (this.ctx.readOnly())
      return h("p", { class: "suggested muted small", title: s.why, "aria-label": name }, label);
    return h(
      "button",
      {
        type: "button",
        class: `suggested${this.answered === s.text ? " chosen" : ""}`,
        "aria-label": name,
        "data-focus": "suggested",
        title: s.why ? `${s.why}: answer with it` : "answer with it",
        disabled: this.answered !== null || this.busy || this.host.held,
        onclick: () => void this.answer(s.text, asked),
      },
      label,
    );
  }

  private choiceButtons(): HTMLElement | null {
    const row = this.host.row;
    if (row.state !== "blocked" || !row.choices?.length) return this.suggestion();
    const ro = this.ctx.readOnly();
    const asked = row.asked; // what it asked as drawn: the answer goes to that or nowhere
    const choices = row.choices.map((c, i) =>
      ro
        ? h("li", { class: "choice-ro" }, c)
        : h(
            "button",
            {
              type: "button",
              class: `choice${this.answered === c ? " chosen" : ""}`,
              "data-focus": `choice-${i}`,
              disabled: this.answered !== null || this.busy || this.host.held,
              "aria-keyshortcuts": i < 9 ? String(i + 1) : null,
              onclick: () => void this.answer(c, asked),
            },
            i < 9 ? h("kbd", { "aria-hidden": "true" }, String(i + 1)) : null,
            c,
          ),
    );
    return ro
      ? h("ul", { class: "choices", "aria-label": "Choices" }, choices)
      : h(
          "div",
          { class: "choices", role: "group", "aria-label": `Answer ${row.id}` },
          choices,
          this.suggestion(),
        );
  }

  private reset(): void {
    this.answered = null;
    this.ids.clear();
  }

  private async answer(choice: string, asked: number | undefined): Promise<void> {
    if (this.answered !== null || this.busy || this.host.held) return;
    let rid = this.ids.get(choice);
    if (!rid) {
      rid = newRequestId();
      this.ids.set(choice, rid);
    }
    const key = this.key;
    this.busy = true;
    this.host.answering(true);
    this.host.redraw();
    this.host.setStatus(`Answering “${choice}”…`, "busy");
    const id = this.host.row.id;
    try {
      const r = await op<{ seq?: number; duplicate?: boolean }>("reply", {
        id,
        text: choice,
        requestId: rid,
        ...(asked !== undefined ? { ifAsked: asked } : {}),
      });
      if (key === this.key) {
        this.answered = choice;
        this.answeredSeq = r.seq ?? this.host.row.lastSeq;
      }
      this.host.setStatus(r.duplicate ? `“${choice}” was already sent` : `Answered “${choice}”`, "ok");
    } catch (err) {
      this.host.answering(false); // not answered: the row shows what it is now
      if (isConflict(err)) {
        this.ids.delete(choice); // an answer to the new question is a new action
        this.host.setStatus(conflictText(id), "error");
      } else this.host.setError(err);
    } finally {
      this.busy = false;
      this.host.redraw();
    }
  }
}
