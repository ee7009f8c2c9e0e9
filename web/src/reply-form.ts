/**
 * A row's reply form: a follow-up (taken when the agent is next free) or a steer (delivered now).
 * Enter sends, Shift+Enter is a new line, Esc closes. The same text sent again after a failure
 * keeps its requestId, so the daemon does not queue it twice. It goes to what the row asked when
 * the form was opened or the message begun (`ifAsked`): should the row ask something else by the
 * time it is sent, it is refused, nothing sent, and the row says so.
 */
import { LIMITS } from "../../sdk/ts/protocol/limits.js";
import { ActionId, op, type Row } from "./api.js";
import { conflictText, isConflict } from "./asked.js";
import { closeOnEscape, h } from "./dom.js";
import { displayName } from "./row-words.js";

export interface ReplyHost {
  setStatus(text: string, kind: "ok" | "error" | "busy"): void;
  setError(err: unknown): void;
  /** The row's `asked` as drawn now. */
  asked(): number | undefined;
  /** A reply is going (`on`: the list holds the row in place), or did not go. */
  answering(on: boolean): void;
  /** Esc in the field: close the form. */
  close(): void;
}

export class ReplyForm {
  readonly el: HTMLFormElement;
  private readonly text: HTMLTextAreaElement;
  private readonly mode = h(
    "select",
    { name: "mode", "aria-label": "How the reply is delivered" },
    h("option", { value: "followUp" }, "follow-up"),
    h("option", { value: "steer" }, "steer (now)"),
  );
  private readonly send = h("button", { type: "submit", class: "primary" }, "Send");
  private readonly requestId: ActionId;
  private readonly id: string;
  /** What the row asked when this message was begun: the reply goes to that (`ifAsked`). */
  private asked: number | undefined;

  constructor(
    row: Row,
    private readonly host: ReplyHost,
  ) {
    this.asked = row.asked;
    const id = row.id;
    this.id = id;
    this.text = h("textarea", {
      name: "text",
      rows: "2",
      required: true,
      maxlength: String(LIMITS.text),
      id: `reply-${id}`,
      placeholder: "Reply… (Enter sends, Shift+Enter a new line)",
    });
    this.el = h(
      "form",
      { class: "reply-form", "aria-label": `Reply to ${id}` },
      h("label", { class: "sr-only", for: `reply-${id}` }, `Reply to ${displayName(row)}`),
      this.text,
      h("div", { class: "reply-bar" }, this.mode, this.send),
    );
    this.requestId = new ActionId(this.el);
    this.el.addEventListener("input", () => {
      this.asked ??= host.asked();
    });
    this.text.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        this.el.requestSubmit();
      }
    });
    closeOnEscape(this.text, () => host.close());
    this.el.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const body = this.text.value;
      if (body.trim() && !this.send.disabled) void this.sendReply(body);
    });
  }

  focus(): void {
    this.asked ??= this.host.asked();
    this.text.focus();
  }

  /** `text` at the cursor (a quoted line of a diff), the cursor after it. */
  insert(text: string): void {
    this.text.setRangeText(text, this.text.selectionStart, this.text.selectionEnd, "end");
    this.text.dispatchEvent(new Event("input", { bubbles: true })); // a new action: a new requestId
    this.text.focus();
  }

  private async sendReply(body: string): Promise<void> {
    this.send.disabled = true;
    this.host.setStatus("Sending…", "busy");
    const asked = this.asked ?? this.host.asked();
    this.host.answering(true);
    try {
      const r = await op<{ seq?: number; duplicate?: boolean }>("reply", {
        id: this.id,
        text: body,
        mode: this.mode.value,
        requestId: this.requestId.get(),
        ...(asked !== undefined ? { ifAsked: asked } : {}),
      });
      this.requestId.done();
      this.asked = undefined; // answered: the next message goes to what the row asks when it is begun
      this.text.value = "";
      this.host.setStatus(
        r.duplicate ? "Already sent (not queued twice)" : `Sent${r.seq ? ` (reply #${r.seq})` : ""}`,
        "ok",
      );
    } catch (err) {
      this.host.answering(false);
      if (isConflict(err)) {
        // The row is drawn again as it is now: sent again, it goes to what the row asks then.
        this.asked = undefined;
        this.requestId.done();
        this.host.setStatus(conflictText(this.id), "error");
      } else this.host.setError(err);
    } finally {
      this.send.disabled = false;
    }
  }
}
