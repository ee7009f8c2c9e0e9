/**
 * A job's conversation on its page (protocol.md, "The conversation"): the agent's messages, its
 * thinking (folded), its tool calls (one each, its input and result folded under it, its status
 * kept up to date as it goes on), its plans, the diffs it made, the permissions it asked for and
 * the answers, and the prompts it was given. Read once (`GET /api/conversation`: the newest), then
 * only what came after the last one shown, each time a `conversation` push says the job's grew, and
 * after a reconnection: no polling. Shown once the job has one, or its agent says it sends one.
 */
import type { KeptEntry } from "../../sdk/ts/protocol/conversation.js";
import { foldedTool } from "../../sdk/ts/protocol/entries.js";
import { type DiffLine, lineDiff } from "../../sdk/ts/protocol/line-diff.js";
import { get, type Row } from "./api.js";
import type { Ctx } from "./ctx.js";
import { append, type Child, h } from "./dom.js";

type Conversation = { entries: KeptEntry[]; last: number; more: boolean };

/** Entries kept on the page at most: the oldest go first (all of them stay in `roost log`). */
const KEPT = 2000;
/** A diff of more lines than this is shown folded. */
const OPEN_DIFF_LINES = 40;

const WHO = { user: "You", agent: "Agent", peer: "Another session" } as const;
const PLAN_MARK = { pending: "○", in_progress: "▸", completed: "✓" } as const;
const clock = (at: number) => new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

export class ConversationView {
  readonly el: HTMLElement;
  private readonly list = h("ol", { class: "job-conversation", "aria-labelledby": "conversation-title" });
  private readonly note = h("p", { class: "muted small", role: "status" });
  private last = 0;
  /** Each tool call's item, by its id: a later entry of the call updates it in place. */
  private readonly tools = new Map<string, { li: HTMLElement; entry: KeptEntry }>();
  private loading = false;
  private again = false;
  private disposed = false;
  private readonly offs: (() => void)[];

  constructor(
    ctx: Ctx,
    private readonly id: string,
  ) {
    this.el = h(
      "section",
      { class: "conversation-section", "aria-labelledby": "conversation-title", hidden: true },
      h("h2", { id: "conversation-title" }, "Conversation"),
      this.list,
      this.note,
    );
    this.offs = [
      ctx.live.onConversation((job, last) => {
        if (job === id && last > this.last) void this.fetch();
      }),
      ctx.live.onConnect((again) => {
        if (again) void this.fetch();
      }),
    ];
    void this.fetch();
  }

  /** The job's row: an agent that says it sends its conversation has the section, empty or not. */
  update(row: Row): void {
    if (row.capabilities.includes("transcript")) this.el.hidden = false;
    if (this.last === 0 && !this.el.hidden) this.note.textContent = "Nothing said yet.";
  }

  dispose(): void {
    this.disposed = true;
    for (const off of this.offs) off();
  }

  /** What came after the last entry shown (all of it, a page at a time); one fetch at a time. */
  private async fetch(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    try {
      for (let more = true; (more || this.again) && !this.disposed; ) {
        this.again = false;
        const after = this.last ? `&after=${this.last}` : "";
        const r = await get<Conversation>(`conversation?id=${encodeURIComponent(this.id)}${after}&limit=500`);
        if (this.disposed) return;
        this.show(r.entries);
        more = r.more;
      }
    } catch (err) {
      this.note.textContent = `Could not load the conversation: ${(err as Error).message}`;
    } finally {
      this.loading = false;
    }
  }

  private show(entries: KeptEntry[]): void {
    const fresh = entries.filter((e) => e.n > this.last);
    if (fresh.length === 0) return;
    // Kept at the bottom while the reader is there; left where it is when they scrolled up.
    const atEnd = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    for (const e of fresh) {
      this.last = e.n;
      const id = e.kind === "tool" ? e.tool?.id : undefined;
      const known = id === undefined ? undefined : this.tools.get(id);
      if (known) {
        known.entry = foldedTool(known.entry, e);
        const li = this.item(known.entry, known.li);
        known.li.replaceWith(li);
        known.li = li;
        continue;
      }
      const li = this.item(e);
      if (id !== undefined) this.tools.set(id, { li, entry: e });
      this.list.append(li);
    }
    while (this.list.children.length > KEPT) this.list.firstElementChild?.remove();
    this.el.hidden = false;
    this.note.textContent = "";
    if (atEnd) this.list.scrollTop = this.list.scrollHeight;
  }

  /** One entry's item (a tool call's drawn again keeps whether its reader opened it). */
  private item(e: KeptEntry, was?: HTMLElement): HTMLElement {
    const time = h(
      "time",
      { class: "conv-time", datetime: new Date(e.at).toISOString(), title: new Date(e.at).toLocaleString() },
      clock(e.at),
    );
    const li = h("li", { class: `conv conv-${e.kind}${e.role ? ` by-${e.role}` : ""}`, "data-n": e.n });
    const text = (s: string | undefined) => h("div", { class: "conv-text" }, s ?? "");
    const put = (...children: Child[]) => append(li, children);
    switch (e.kind) {
      case "message":
        put(
          h("div", { class: "conv-head" }, h("span", { class: "conv-who" }, WHO[e.role ?? "agent"]), time),
          text(e.text),
        );
        break;
      case "thinking":
        put(h("details", null, h("summary", null, "Thinking ", time), text(e.text)));
        break;
      case "tool": {
        const t = e.tool!;
        const open = was?.querySelector("details")?.open ?? false;
        li.classList.add(`tool-${t.status}`);
        put(
          h(
            "details",
            { open },
            h(
              "summary",
              null,
              h("span", { class: "conv-tool-name" }, t.name),
              h("span", { class: "conv-tool-title" }, e.text || t.name),
              h("span", { class: `conv-status s-${t.status}` }, t.status),
              time,
            ),
            t.input ? h("div", { class: "conv-io" }, h("h3", null, "Input"), h("pre", null, t.input)) : null,
            t.output
              ? h("div", { class: "conv-io" }, h("h3", null, "Result"), h("pre", null, t.output))
              : null,
            !t.input && !t.output ? h("p", { class: "muted small" }, "No input or result said.") : null,
          ),
        );
        break;
      }
      case "plan":
        put(
          h("div", { class: "conv-head" }, h("span", { class: "conv-who" }, "Plan"), time),
          h(
            "ol",
            { class: "conv-plan" },
            (e.plan ?? []).map((s) =>
              h(
                "li",
                { class: `step-${s.status}` },
                h("span", { class: "mark", "aria-label": s.status }, PLAN_MARK[s.status]),
                " ",
                s.text,
              ),
            ),
          ),
        );
        break;
      case "diff": {
        const d = e.diff!;
        const lines = lineDiff(d.old ?? "", d.new);
        const added = lines.filter((l) => l.op === "+").length;
        const removed = lines.filter((l) => l.op === "-").length;
        put(
          h(
            "details",
            { open: lines.length <= OPEN_DIFF_LINES },
            h(
              "summary",
              null,
              h("span", { class: "conv-path" }, d.path),
              d.old === undefined ? h("span", { class: "muted small" }, " (new file)") : null,
              h(
                "span",
                { class: "conv-stat" },
                h("span", { class: "add" }, ` +${added}`),
                h("span", { class: "del" }, ` −${removed}`),
              ),
              time,
            ),
            h("pre", { class: "conv-diff-lines" }, lines.map(diffLine)),
          ),
        );
        break;
      }
      case "ask":
        put(
          h("div", { class: "conv-head" }, h("span", { class: "conv-who" }, "Asks"), time),
          text(e.text),
          e.choices?.length
            ? h(
                "ul",
                { class: "conv-choices" },
                e.choices.map((c) => h("li", null, c)),
              )
            : null,
        );
        break;
      case "answer":
        put(
          h("div", { class: "conv-head" }, h("span", { class: "conv-who" }, "You answered"), time),
          text(e.text),
        );
        break;
    }
    return li;
  }
}

const diffLine = (l: DiffLine) =>
  h("span", { class: l.op === "+" ? "add" : l.op === "-" ? "del" : "ctx" }, `${l.op} ${l.text}\n`);
