/**
 * One job's row: what it is doing (its state in colour and words), its summary, its question
 * with the choices as buttons, what it runs, and the actions on it; in the dense view, all that
 * fits one line (row-line.ts). The row's text is redrawn on every push; its reply and rename forms
 * are kept, so that typing is never lost.
 */
import { failedText, op, type Row } from "./api.js";
import { BudgetForm } from "./budget-form.js";
import type { Ctx } from "./ctx.js";
import { h, KeptParts, replaceKeepingFocus, timeAgo } from "./dom.js";
import { overlapTag } from "./overlaps-view.js";
import { RenameForm } from "./rename-form.js";
import { ReplyForm } from "./reply-form.js";
import { type ActionsHost, RowActions } from "./row-actions.js";
import { detailsItems, metaItems } from "./row-details.js";
import { badgeShows, daemonTag, lineCells, nameCell, nameLink, sandboxTag, stateBadge } from "./row-line.js";
import { Choices, type ChoicesHost } from "./row-question.js";
import { foldToggle, NO_TREE, samePlace, type TreePlace, treeNotes } from "./row-tree.js";
import { displayName, isRunning, stateOf } from "./row-words.js";

export interface RowViewOptions {
  /** A job's page: every detail. */
  full?: boolean;
  /** The dense view: one line, no action bar (the selection's bar acts instead). */
  dense?: boolean;
  /** Called when the row should move by delta places (buttons and Alt+arrows). */
  move?: (id: string, delta: number) => void;
  /** Selects or clears the row (`range`: from the row clicked last); absent, it has no checkbox. */
  select?: (id: string, range: boolean) => void;
  /** Folds or unfolds the row's children (tree.ts); absent, it has no toggle. */
  fold?: (id: string) => void;
  /** An answer to it is going (`on`), or did not go: the list holds it in place (rows-hold.ts). */
  answering?: (id: string, on: boolean) => void;
}

/** A click on these is theirs, not the row's (which selects a dense row). */
const OWN_CLICKS = "a, button, input, select, textarea, label, form, .choices";

export class RowView implements ActionsHost, ChoicesHost {
  readonly el: HTMLLIElement;
  readonly move?: (id: string, delta: number) => void;
  private readonly main: HTMLDivElement;
  private readonly actions: RowActions;
  private readonly status: HTMLParagraphElement;
  private readonly choices: Choices;
  /**
   * What a click goes to (its fold toggle, its name's link, its choices), kept while it shows the
   * same (dom.ts), in elements kept too: a redraw puts new parts around them, never moves them (an
   * element taken out between a press and its release gets no click, put back or not).
   */
  private readonly kept = new KeptParts();
  /** The roomy card's first line; the dense line's cells of the name and of the choices. */
  private readonly head = h("div", { class: "row-head" });
  private readonly nameCell = h("span", { class: "cell-name" });
  private readonly choicesCell = h("span", { class: "cell-choices" });
  /** The card's line of details, and a job page's list of them (which hold links). */
  private readonly meta = h("ul", { class: "meta", "aria-label": "Details" });
  private readonly details = h("dl", { class: "details" });
  private readonly check: HTMLInputElement | null = null;
  private selected = false;
  /** Held in its place as answered (rows-hold.ts): marked so, its choices disabled. */
  private answered = false;
  private tree: TreePlace = NO_TREE;
  private replyForm: ReplyForm | null = null;
  private renameForm: RenameForm | null = null;
  private budgetForm: BudgetForm | null = null;
  /** The actions in flight: their buttons are disabled. */
  private readonly busy = new Set<string>();
  private statusTimer: number | undefined;
  row: Row;

  constructor(
    row: Row,
    private readonly ctx: Ctx,
    private readonly opts: RowViewOptions = {},
  ) {
    this.row = row;
    this.move = opts.move;
    this.main = h("div", { class: "row-main" });
    this.actions = new RowActions(this);
    this.status = h("p", { class: "row-status", role: "status", "aria-live": "polite" });
    this.choices = new Choices(ctx, this);
    const select = opts.select;
    if (select && !ctx.readOnly())
      this.check = h("input", {
        type: "checkbox",
        class: "select",
        "data-focus": "select",
        "aria-label": `Select ${row.id}`,
        onclick: (ev: Event) => select(this.row.id, (ev as MouseEvent).shiftKey),
      });
    this.el = h(
      "li",
      { class: "row", tabindex: "0", "data-id": row.id, "aria-labelledby": `name-${row.id} state-${row.id}` },
      this.main,
      ctx.readOnly() || opts.dense ? null : this.actions.el,
      this.status,
    );
    this.el.addEventListener("keydown", (ev) => this.onKey(ev));
    if (select && opts.dense && !ctx.readOnly())
      this.el.addEventListener("click", (ev) => {
        const target = ev.target as Element;
        // A held answered row takes no click: one meant for its choices selects nothing either.
        if (target.closest(OWN_CLICKS) || !window.getSelection()?.isCollapsed || this.answered) return;
        select(this.row.id, ev.shiftKey);
      });
    this.choices.sync(row);
    this.redraw();
  }

  update(row: Row): void {
    // A pushed row is a new object; the same one is unchanged (a render with nothing new for it).
    if (row === this.row) return;
    const changed = JSON.stringify(row) !== JSON.stringify(this.row);
    this.choices.sync(row);
    this.row = row;
    if (changed) this.redraw();
  }

  /** An answer to it is going (`on`), or did not go (the list holds it, or lets it go). */
  answering(on: boolean): void {
    this.opts.answering?.(this.row.id, on);
  }

  get held(): boolean {
    return this.answered;
  }

  /** Drawn as answered while the list holds it. */
  setAnswered(on: boolean): void {
    if (on === this.answered) return;
    this.answered = on;
    this.redraw();
  }

  setSelected(on: boolean): void {
    if (this.check) this.check.checked = on;
    if (on === this.selected) return;
    this.selected = on;
    this.el.classList.toggle("selected", on);
  }

  /** Its place in its tree (tree.ts): indented by its depth, its toggle and notes drawn. */
  setTree(place: TreePlace): void {
    if (samePlace(place, this.tree)) return;
    this.tree = place;
    if (place.depth) {
      this.el.style.setProperty("--depth", String(place.depth));
      this.el.setAttribute("aria-level", String(place.depth + 1));
    } else {
      this.el.style.removeProperty("--depth");
      this.el.removeAttribute("aria-level");
    }
    this.redraw();
  }

  /** Focuses the reply field (opening the form); false where there is no Reply (an ended job). */
  openReply(): boolean {
    if (this.ctx.readOnly() || !isRunning(this.row)) return false;
    this.replyForm ??= new ReplyForm(this.row, {
      asked: () => this.row.asked,
      answering: (on) => this.answering(on),
      setStatus: (text, kind) => this.setStatus(text, kind),
      setError: (err) => this.setError(err),
      close: () => this.toggleReply(),
    });
    if (!this.replyForm.el.isConnected) this.el.insertBefore(this.replyForm.el, this.status);
    this.replyForm.focus();
    this.renderActions();
    return true;
  }

  /** Puts `text` into the reply (its form opened) at the cursor; false where there is no Reply. */
  quote(text: string): boolean {
    if (!this.openReply()) return false;
    this.replyForm?.insert(text);
    return true;
  }

  /** Answers the question with its n-th choice (1-based), as a click on it would. */
  choose(n: number): void {
    this.choices.choose(n);
  }

  togglePin(): void {
    void this.act(
      "pin",
      { id: this.row.id, pinned: !this.row.pinned },
      this.row.pinned ? "Unpinned" : "Pinned",
    );
  }

  toggleReply(): void {
    if (this.replyForm?.el.isConnected) {
      this.replyForm.el.remove();
      this.renderActions();
      if (this.opts.dense) this.el.focus();
      else this.actions.focus("reply");
    } else this.openReply();
  }

  replyOpen(): boolean {
    return !!this.replyForm?.el.isConnected;
  }

  openRename(): void {
    this.renameForm ??= new RenameForm(this.row.id, {
      save: (name) => this.act("rename", { id: this.row.id, name }, `Renamed to ${name}`),
      close: () => {
        this.renameForm?.el.remove();
        this.actions.focus("rename");
      },
    });
    this.el.insertBefore(this.renameForm.el, this.status);
    this.renameForm.edit(displayName(this.row));
  }

  openBudget(): void {
    this.budgetForm ??= new BudgetForm(this.row.id, {
      done: (text) => this.setStatus(text, "ok"),
      close: () => {
        this.budgetForm?.el.remove();
        this.actions.focus("budget");
      },
    });
    this.el.insertBefore(this.budgetForm.el, this.status);
    this.budgetForm.edit(this.row);
  }

  isBusy(key: string): boolean {
    return this.busy.has(key);
  }

  /** Runs an op for this row, showing its result or its error on the row. */
  async act(name: string, args: Record<string, unknown>, done: string): Promise<boolean> {
    if (this.busy.has(name)) return false;
    this.busy.add(name);
    this.renderActions();
    this.setStatus("…", "busy");
    try {
      await op(name, args);
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

  setError(err: unknown): void {
    this.setStatus(failedText(err, "press again to retry (it will not be sent twice)"), "error");
  }

  /** Draws the row's text and its actions again. */
  redraw(): void {
    const row = this.row;
    const { word, tone, exit } = stateOf(row);
    const dense = !!this.opts.dense;
    const child = this.tree.depth ? " child" : "";
    this.el.className = `row${dense ? " dense" : ""}${child}${this.answered ? " answered" : ""} t-${tone}${word === "starting" ? " starting" : ""}${row.pinned ? " pinned" : ""}${this.selected ? " selected" : ""}${row.reachable === false ? " unreachable" : ""}`;
    this.el.title =
      row.reachable === false ? `${row.daemon} does not answer: the row as it was last seen` : "";
    const { children, descendants, folded } = this.tree;
    const toggle = this.kept.get("fold", [displayName(row), children, descendants, folded, dense], () =>
      foldToggle(row, this.tree, this.opts.fold, dense),
    );
    const name = this.kept.get("name", displayName(row), () => nameLink(row, dense));
    const notes = treeNotes(this.tree);
    if (dense) {
      const buttons = this.choices.buttons();
      if (buttons && this.choicesCell.firstChild !== buttons) this.choicesCell.replaceChildren(buttons);
      const choices = buttons ? this.choicesCell : null;
      replaceKeepingFocus(this.nameCell, nameCell(row, { toggle, notes }, name));
      replaceKeepingFocus(this.main, [
        this.check,
        lineCells(row, this.nameCell, choices, this.answered, this.kept),
      ]);
      return;
    }
    // A terminal's question is its screen's last line, which is its summary too: said once.
    const summary =
      row.summary && !(row.state === "blocked" && row.summary === row.question) ? row.summary : null;
    // The head's words are kept while they say the same, as the summary is (below).
    const answered = this.answered;
    replaceKeepingFocus(this.head, [
      this.check,
      this.kept.get("badge", badgeShows(row, answered), () => stateBadge(row, answered, false)),
      exit ? this.kept.get("exit", exit, () => h("span", { class: "muted exit" }, exit)) : null,
      toggle,
      name,
      daemonTag(row),
      row.pinned ? h("span", { class: "pin" }, "pinned") : null,
      sandboxTag(row),
      overlapTag(row),
      notes,
      this.kept.get("ident", [row.id, row.profile], () =>
        h("span", { class: "muted ident" }, row.id, h("span", { class: "profile" }, ` · ${row.profile}`)),
      ),
      h("span", { class: "spacer" }),
      timeAgo(row.updatedAt),
    ]);
    const meta = metaItems(row, this.kept);
    replaceKeepingFocus(this.meta, meta);
    if (this.opts.full) replaceKeepingFocus(this.details, detailsItems(row, this.kept));
    // Kept while they say the same, so that text selected in them (to copy) outlives a push.
    const said = (name: string, text: string | null | undefined) =>
      text ? this.kept.get(name, text, () => h("p", { class: name }, text)) : null;
    replaceKeepingFocus(this.main, [
      this.head,
      said("summary", summary),
      this.choices.render(),
      said("error", row.error),
      meta.length ? this.meta : null,
      this.opts.full ? this.details : null,
    ]);
    this.renderActions();
  }

  private renderActions(): void {
    if (!this.ctx.readOnly() && !this.opts.dense) this.actions.render();
  }

  private onKey(ev: KeyboardEvent): void {
    if (ev.target !== this.el) return;
    if (ev.altKey && (ev.key === "ArrowUp" || ev.key === "ArrowDown") && !this.ctx.readOnly()) {
      ev.preventDefault();
      this.move?.(this.row.id, ev.key === "ArrowUp" ? -1 : 1);
    }
  }
}
