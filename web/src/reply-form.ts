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

  constructor(row: Row, host: ReplyHost) {
    const id = row.id;
    const text = h("textarea", {
      name: "text",
      rows: "2",
      required: true,
      maxlength: String(LIMITS.text),
      id: `reply-${id}`,
      placeholder: "Reply… (Enter sends, Shift+Enter a new line)",
    });
    const mode = h(
      "select",
      { name: "mode", "aria-label": "How the reply is delivered" },
      h("option", { value: "followUp" }, "follow-up"),
      h("option", { value: "steer" }, "steer (now)"),
    );
    const send = h("button", { type: "submit", class: "primary" }, "Send");
    const form = h(
      "form",
      { class: "reply-form", "aria-label": `Reply to ${id}` },
      h("label", { class: "sr-only", for: `reply-${id}` }, `Reply to ${displayName(row)}`),
      text,
      h("div", { class: "reply-bar" }, mode, send),
    );
    const requestId = new ActionId(form);
    text.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        form.requestSubmit();
      }
    });
    closeOnEscape(text, () => host.close());
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const body = text.value;
      if (!body.trim() || send.disabled) return;
      send.disabled = true;
      host.setStatus("Sending…", "busy");
      try {
        const r = await op<{ seq?: number; duplicate?: boolean }>("reply", {
          id,
          text: body,
          mode: mode.value,
          requestId: requestId.get(),
        });
        requestId.done();
        text.value = "";
        host.setStatus(
          r.duplicate ? "Already sent (not queued twice)" : `Sent${r.seq ? ` (reply #${r.seq})` : ""}`,
          "ok",
        );
      } catch (err) {
        host.setError(err);
      } finally {
        send.disabled = false;
      }
    });
    this.el = form;
    this.text = text;
  }

  focus(): void {
    this.text.focus();
  }
}
