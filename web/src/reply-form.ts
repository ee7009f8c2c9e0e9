/**
 * A row's reply form: a follow-up (taken when the agent is next free) or a steer (delivered now).
 * Enter sends, Shift+Enter is a new line, Esc closes. The same text sent again after a failure
 * keeps its requestId, so the daemon does not queue it twice.
 */
import { LIMITS } from "../../sdk/ts/protocol/limits.js";
import { ActionId, op, type Row } from "./api.js";
import { closeOnEscape, h } from "./dom.js";
import { displayName } from "./row-words.js";

export interface ReplyHost {
  setStatus(text: string, kind: "ok" | "error" | "busy"): void;
  setError(err: unknown): void;
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

  constructor(
    row: Row,
    private readonly host: ReplyHost,
  ) {
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
    try {
      const r = await op<{ seq?: number; duplicate?: boolean }>("reply", {
        id: this.id,
        text: body,
        mode: this.mode.value,
        requestId: this.requestId.get(),
      });
      this.requestId.done();
      this.text.value = "";
      this.host.setStatus(
        r.duplicate ? "Already sent (not queued twice)" : `Sent${r.seq ? ` (reply #${r.seq})` : ""}`,
        "ok",
      );
    } catch (err) {
      this.host.setError(err);
    } finally {
      this.send.disabled = false;
    }
  }
}
