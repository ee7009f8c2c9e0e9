/**
 * One job's row: what it is doing (state and status in colour and words), its summary, its
 * question with the choices as buttons, what it runs, and the actions on it. The row's text is
 * redrawn on every push; its reply and rename forms are kept, so that typing is never lost.
 */
import { ApiError, newRequestId, op, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { type Child, h, replaceKeepingFocus, timeAgo } from "./dom.js";

export const displayName = (row: Row) => row.name || row.id;

/** The words for a row's state: "blocked · waiting", "done", "exited 1". */
export function stateWords(row: Row): { label: string; cls: string } {
  if (row.life === "exited" || row.life === "stopped") {
    const how =
      row.life === "stopped" ? "stopped" : `exited${row.exitCode === null ? "" : ` ${row.exitCode}`}`;
    const failed =
      row.state === "failed" || (row.life === "exited" && row.exitCode !== 0 && row.exitCode !== null);
    return { label: how, cls: failed ? "failed" : "ended" };
  }
  if (row.life === "starting") return { label: "starting", cls: "starting" };
  const status = row.status && row.status !== "busy" ? ` · ${row.status}` : "";
  return { label: row.state + (row.state === "working" ? status : ""), cls: row.state };
}

export const needsAttention = (row: Row) =>
  row.state === "blocked" || row.state === "failed" || (row.life === "exited" && !!row.exitCode);

function contextWords(row: Row): string | null {
  const c = row.context;
  if (!c) return null;
  const pct = c.percent ?? (c.tokens && c.window ? (100 * c.tokens) / c.window : undefined);
  const tokens = c.tokens !== undefined ? `${Math.round(c.tokens / 1000)}k` : "";
  const window = c.window !== undefined ? `/${Math.round(c.window / 1000)}k` : "";
  if (pct === undefined && !tokens) return null;
  return `context ${pct !== undefined ? `${Math.round(pct)}%` : ""}${tokens ? ` (${tokens}${window})` : ""}`.trim();
}

export interface RowViewOptions {
  full?: boolean;
  /** Called when the row should move by delta places (buttons and Alt+arrows). */
  move?: (id: string, delta: number) => void;
}

export class RowView {
  readonly el: HTMLLIElement;
  private readonly main: HTMLDivElement;
  private readonly actions: HTMLDivElement;
  private readonly status: HTMLParagraphElement;
  private replyForm: HTMLFormElement | null = null;
  private renameForm: HTMLFormElement | null = null;
  private confirmingRemove = false;
  private busy = new Set<string>();
  /** The question the choices answer; the requestId of each choice, made once per question. */
  private questionKey = "";
  private choiceIds = new Map<string, string>();
  private answered: string | null = null;
  /** The answer's reply seq: once the agent has taken it (acked), the choices are live again. */
  private answeredSeq = 0;
  private replyRequestId: string | null = null;
  private statusTimer: number | undefined;
  row: Row;

  constructor(
    row: Row,
    private readonly ctx: Ctx,
    private readonly opts: RowViewOptions = {},
  ) {
    this.row = row;
    this.main = h("div", { class: "row-main" });
    this.actions = h("div", { class: "row-actions", role: "group", "aria-label": `Actions on ${row.id}` });
    this.status = h("p", { class: "row-status", role: "status", "aria-live": "polite" });
    this.el = h(
      "li",
      { class: "row", tabindex: "0", "data-id": row.id, "aria-labelledby": `name-${row.id} state-${row.id}` },
      this.main,
      ctx.readOnly() ? null : this.actions,
      this.status,
    );
    this.el.addEventListener("keydown", (ev) => this.onKey(ev));
    this.render();
  }

  update(row: Row): void {
    const changed = JSON.stringify(row) !== JSON.stringify(this.row);
    // The agent took the answer: what it asks now (the same words, maybe) is a new question.
    if (this.answered !== null && row.pending === 0 && row.lastSeq >= this.answeredSeq) {
      this.answered = null;
      this.choiceIds.clear();
    }
    this.row = row;
    if (changed) this.render();
  }

  /** Focuses the reply field (opening the form). */
  openReply(): void {
    if (this.ctx.readOnly()) return;
    if (!this.replyForm) this.replyForm = this.makeReplyForm();
    if (!this.replyForm.isConnected) this.el.insertBefore(this.replyForm, this.status);
    this.replyForm.querySelector("textarea")?.focus();
    this.renderActions();
  }

  /** Answers the question with its n-th choice (1-based), as a click on it would. */
  choose(n: number): void {
    const choice = this.row.choices?.[n - 1];
    if (choice !== undefined && this.row.state === "blocked") void this.answer(choice);
  }

  togglePin(): void {
    void this.act(
      "pin",
      { id: this.row.id, pinned: !this.row.pinned },
      this.row.pinned ? "Unpinned" : "Pinned",
    );
  }

  private onKey(ev: KeyboardEvent): void {
    if (ev.target !== this.el) return;
    if (ev.altKey && (ev.key === "ArrowUp" || ev.key === "ArrowDown") && !this.ctx.readOnly()) {
      ev.preventDefault();
      this.opts.move?.(this.row.id, ev.key === "ArrowUp" ? -1 : 1);
    }
  }

  private render(): void {
    const row = this.row;
    const { label, cls } = stateWords(row);
    this.el.className = `row s-${cls}${row.pinned ? " pinned" : ""}`;
    const q = row.state === "blocked" ? (row.question ?? "") : "";
    const key = q || row.choices ? `${q}\n${JSON.stringify(row.choices)}\n${row.state}` : "";
    if (key !== this.questionKey) {
      this.questionKey = key;
      this.choiceIds.clear();
      this.answered = null;
    }
    replaceKeepingFocus(this.main, [
      h(
        "div",
        { class: "row-head" },
        h("span", { class: `badge b-${cls}`, id: `state-${row.id}` }, label),
        h("a", { class: "name", id: `name-${row.id}`, href: `#/jobs/${row.id}` }, displayName(row)),
        row.pinned ? h("span", { class: "pin" }, "pinned") : null,
        h("span", { class: "muted ident" }, row.id, h("span", { class: "profile" }, ` · ${row.profile}`)),
        h("span", { class: "spacer" }),
        timeAgo(row.updatedAt),
      ),
      row.summary ? h("p", { class: "summary" }, row.summary) : null,
      this.renderQuestion(),
      row.error ? h("p", { class: "error" }, row.error) : null,
      this.renderMeta(),
      this.opts.full ? this.renderDetails() : null,
    ]);
    this.renderActions();
  }

  private renderQuestion(): Child {
    const row = this.row;
    if (row.state !== "blocked" || (!row.question && !row.choices?.length)) return null;
    const ro = this.ctx.readOnly();
    const choices = (row.choices ?? []).map((c, i) =>
      ro
        ? h("li", { class: "choice-ro" }, c)
        : h(
            "button",
            {
              type: "button",
              class: `choice${this.answered === c ? " chosen" : ""}`,
              "data-focus": `choice-${i}`,
              disabled: this.answered !== null || this.busy.has("answer"),
              "aria-keyshortcuts": i < 9 ? String(i + 1) : null,
              onclick: () => void this.answer(c),
            },
            i < 9 ? h("kbd", { "aria-hidden": "true" }, String(i + 1)) : null,
            c,
          ),
    );
    return h(
      "div",
      { class: "question" },
      row.question ? h("p", { class: "q-text" }, row.question) : null,
      choices.length
        ? ro
          ? h("ul", { class: "choices", "aria-label": "Choices" }, choices)
          : h("div", { class: "choices", role: "group", "aria-label": `Answer ${row.id}` }, choices)
        : null,
    );
  }

  private renderMeta(): Child {
    const row = this.row;
    const items: Child[] = [];
    if (row.tool && row.state === "working") items.push(h("li", { class: "tool" }, "⚙ ", row.tool));
    if (row.model) items.push(h("li", null, row.model, row.thinking ? ` · ${row.thinking}` : ""));
    const ctxWords = contextWords(row);
    if (ctxWords) {
      const pct = row.context?.percent;
      items.push(
        h(
          "li",
          { class: `ctx${pct !== undefined && pct >= 80 ? " warn" : ""}` },
          ctxWords,
          pct !== undefined
            ? h("meter", { min: "0", max: "100", value: String(Math.round(pct)), "aria-hidden": "true" })
            : null,
        ),
      );
    }
    if (row.pending > 0)
      items.push(
        h("li", { class: "pending" }, `${row.pending} pending repl${row.pending === 1 ? "y" : "ies"}`),
      );
    if (row.kind === "protocol" && row.life === "running" && !row.connected)
      items.push(h("li", { class: "warn" }, "agent not connected"));
    if (row.suggested) items.push(h("li", { class: "muted" }, `suggested: ${row.suggested.text}`));
    for (const link of row.prLinks ?? [])
      items.push(h("li", null, h("a", { href: link, target: "_blank", rel: "noreferrer noopener" }, "PR")));
    return items.length ? h("ul", { class: "meta", "aria-label": "Details" }, items) : null;
  }

  private renderDetails(): Child {
    const row = this.row;
    const pairs: [string, Child][] = [
      ["Job", row.id],
      ["Profile", `${row.profile} (${row.kind}${row.role ? `, ${row.role}` : ""})`],
      [
        "Process",
        `${row.life}${row.pid ? `, pid ${row.pid}` : ""}${row.exitCode !== null ? `, exit ${row.exitCode}` : ""}`,
      ],
      ["Working directory", h("code", null, row.cwd)],
      [
        "Agent",
        row.agent
          ? `${row.agent.name} ${row.agent.version}`
          : row.kind === "protocol"
            ? "not connected yet"
            : "—",
      ],
      ["Pending replies", String(row.pending)],
      ["Replies sent", String(row.lastSeq)],
      ["Started", timeAgo(row.startedAt) ?? "—"],
      ["Ended", timeAgo(row.endedAt) ?? "—"],
      ["Changed", timeAgo(row.updatedAt)],
    ];
    if (row.waitingFor) pairs.push(["Waiting for", row.waitingFor]);
    if (row.capabilities.length) pairs.push(["Capabilities", row.capabilities.join(", ")]);
    if (row.parent) pairs.push(["Parent", h("a", { href: `#/jobs/${row.parent}` }, row.parent)]);
    if (row.usage) pairs.push(["Usage", h("code", null, JSON.stringify(row.usage))]);
    return h(
      "dl",
      { class: "details" },
      pairs.flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)]),
    );
  }

  private renderActions(): void {
    if (this.ctx.readOnly()) return;
    const row = this.row;
    const running = row.life === "running" || row.life === "starting";
    const btn = (key: string, label: string, onclick: () => void, extra: Record<string, string> = {}) =>
      h(
        "button",
        { type: "button", class: "act", "data-focus": key, disabled: this.busy.has(key), onclick, ...extra },
        label,
      );
    const children: Child[] = [];
    if (this.confirmingRemove) {
      children.push(
        h(
          "span",
          { class: "confirm" },
          `Remove ${displayName(row)}${running ? " (it is still running)" : ""}?`,
        ),
        btn("rm-yes", "Yes, remove", () => void this.act("rm", { id: row.id }, "Removed"), {
          class: "act danger",
        }),
        btn("rm-no", "Cancel", () => {
          this.confirmingRemove = false;
          this.renderActions();
          (this.actions.querySelector('[data-focus="rm"]') as HTMLElement | null)?.focus();
        }),
      );
    } else {
      if (running)
        children.push(
          btn("reply", this.replyForm?.isConnected ? "Hide reply" : "Reply", () => this.toggleReply(), {
            "aria-keyshortcuts": "r",
            "aria-expanded": String(!!this.replyForm?.isConnected),
          }),
        );
      children.push(
        btn("pin", row.pinned ? "Unpin" : "Pin", () => this.togglePin(), {
          "aria-pressed": String(row.pinned),
        }),
      );
      children.push(btn("rename", "Rename", () => this.openRename()));
      if (running)
        children.push(btn("stop", "Stop", () => void this.act("stop", { id: row.id }, "Stopping")));
      else
        children.push(btn("respawn", "Respawn", () => void this.act("respawn", { id: row.id }, "Respawned")));
      children.push(
        btn("rm", "Remove…", () => {
          this.confirmingRemove = true;
          this.renderActions();
          (this.actions.querySelector('[data-focus="rm-no"]') as HTMLElement | null)?.focus();
        }),
      );
      if (this.opts.move) {
        children.push(
          h("span", { class: "spacer" }),
          btn("up", "↑", () => this.opts.move?.(row.id, -1), {
            "aria-label": "Move up",
            title: "Move up (Alt+↑)",
          }),
          btn("down", "↓", () => this.opts.move?.(row.id, 1), {
            "aria-label": "Move down",
            title: "Move down (Alt+↓)",
          }),
        );
      }
    }
    replaceKeepingFocus(this.actions, children);
  }

  private toggleReply(): void {
    if (this.replyForm?.isConnected) {
      this.replyForm.remove();
      this.renderActions();
      (this.actions.querySelector('[data-focus="reply"]') as HTMLElement | null)?.focus();
    } else this.openReply();
  }

  private makeReplyForm(): HTMLFormElement {
    const id = this.row.id;
    const text = h("textarea", {
      name: "text",
      rows: "2",
      required: true,
      maxlength: "65536",
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
      h("label", { class: "sr-only", for: `reply-${id}` }, `Reply to ${displayName(this.row)}`),
      text,
      h("div", { class: "reply-bar" }, mode, send),
    );
    // A new text is a new action; the same text sent again (a retry) keeps its requestId.
    text.addEventListener("input", () => {
      this.replyRequestId = null;
    });
    mode.addEventListener("change", () => {
      this.replyRequestId = null;
    });
    text.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        form.requestSubmit();
      } else if (ev.key === "Escape") {
        ev.preventDefault();
        this.toggleReply();
      }
    });
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const body = text.value;
      if (!body.trim() || send.disabled) return;
      this.replyRequestId ??= newRequestId();
      send.disabled = true;
      this.setStatus("Sending…", "busy");
      try {
        const r = await op<{ seq?: number; duplicate?: boolean }>("reply", {
          id,
          text: body,
          mode: mode.value,
          requestId: this.replyRequestId,
        });
        this.replyRequestId = null;
        text.value = "";
        this.setStatus(
          r.duplicate ? "Already sent (not queued twice)" : `Sent${r.seq ? ` (reply #${r.seq})` : ""}`,
          "ok",
        );
      } catch (err) {
        this.setError(err);
      } finally {
        send.disabled = false;
      }
    });
    return form;
  }

  private openRename(): void {
    if (!this.renameForm) {
      const input = h("input", {
        name: "name",
        maxlength: "100",
        required: true,
        "aria-label": `New name for ${this.row.id}`,
      });
      const form = h(
        "form",
        { class: "rename-form" },
        input,
        h("button", { type: "submit", class: "primary" }, "Save"),
        h("button", { type: "button", onclick: () => this.closeRename() }, "Cancel"),
      );
      input.addEventListener("keydown", (ev) => {
        if (ev.key === "Escape") {
          ev.preventDefault();
          this.closeRename();
        }
      });
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const name = input.value.trim();
        if (!name) return;
        if (await this.act("rename", { id: this.row.id, name }, `Renamed to ${name}`)) this.closeRename();
      });
      this.renameForm = form;
    }
    const input = this.renameForm.querySelector("input")!;
    input.value = displayName(this.row);
    this.el.insertBefore(this.renameForm, this.status);
    input.select();
    input.focus();
  }

  private closeRename(): void {
    this.renameForm?.remove();
    (this.actions.querySelector('[data-focus="rename"]') as HTMLElement | null)?.focus();
  }

  private async answer(choice: string): Promise<void> {
    if (this.answered !== null || this.busy.has("answer")) return;
    let rid = this.choiceIds.get(choice);
    if (!rid) {
      rid = newRequestId();
      this.choiceIds.set(choice, rid);
    }
    const key = this.questionKey;
    this.busy.add("answer");
    this.render();
    this.setStatus(`Answering “${choice}”…`, "busy");
    try {
      const r = await op<{ seq?: number; duplicate?: boolean }>("reply", {
        id: this.row.id,
        text: choice,
        requestId: rid,
      });
      if (key === this.questionKey) {
        this.answered = choice;
        this.answeredSeq = r.seq ?? this.row.lastSeq;
      }
      this.setStatus(r.duplicate ? `“${choice}” was already sent` : `Answered “${choice}”`, "ok");
    } catch (err) {
      this.setError(err);
    } finally {
      this.busy.delete("answer");
      this.render();
    }
  }

  /** Runs an op for this row, showing its result or its error on the row. */
  private async act(name: string, args: Record<string, unknown>, done: string): Promise<boolean> {
    if (this.busy.has(name)) return false;
    this.busy.add(name);
    this.renderActions();
    this.setStatus("…", "busy");
    try {
      await op(name, args);
      if (name === "rm") this.confirmingRemove = false;
      this.setStatus(done, "ok");
      return true;
    } catch (err) {
      this.setError(err);
      return false;
    } finally {
      this.busy.delete(name);
      this.renderActions();
    }
  }

  setStatus(text: string, kind: "ok" | "error" | "busy"): void {
    window.clearTimeout(this.statusTimer);
    this.status.textContent = text;
    this.status.dataset.kind = kind;
    // A success fades after a while; an error stays until the next action.
    if (kind === "ok")
      this.statusTimer = window.setTimeout(() => {
        if (this.status.dataset.kind === "ok") this.status.textContent = "";
      }, 8000);
  }

  private setError(err: unknown): void {
    const e = err instanceof ApiError ? err : null;
    const why = e
      ? `${e.message}${e.retryable ? " — press again to retry (it will not be sent twice)" : ""}`
      : String(err);
    this.setStatus(`Failed: ${why}`, "error");
  }
}
