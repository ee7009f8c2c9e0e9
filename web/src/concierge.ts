/**
 * The concierge's panel (`#/concierge`; docs/protocol.md, "The concierge"): on or off and how it
 * stands; the conversation (what you asked it, what it said; a `need` raised at the top until you
 * answer); its policy, each switch saying in words what it allows; its last answer in your place
 * with an undo; the standing orders (add, remove, when next, how often applied). Loaded with
 * `concierge {status}`, `events` about its job and `concierge-order {list}`, then live: `concierge`
 * pushes and feed entries (live.ts).
 */
import { LIMITS } from "../../sdk/ts/protocol/limits.js";
import { dueIn } from "../../sdk/ts/protocol/time-words.js";
import { type ConciergeStatus, type FeedEntry, failedText, get, op, type StandingOrder } from "./api.js";
import type { Ctx } from "./ctx.js";
import { append, h, Shown, timeAgo } from "./dom.js";
import type { View } from "./view.js";

const ANSWERS = [
  ["never", "Never", "It suggests an answer on each waiting session; you answer."],
  [
    "routine",
    "Routine ones",
    "It answers the questions it judges routine (its judgement, not the asking agent's); it suggests the rest.",
  ],
  ["always", "Always", "It answers any question it can; you can undo its last answer."],
] as const;

/** What the conversation shows: your words to it, and what it told you. */
const spoken = (e: FeedEntry, id: string | null) =>
  id !== null &&
  e.id === id &&
  ((e.kind === "reply" && e.who === "user") ||
    (e.kind === "concierge" && (e.why === "info" || e.why === "need" || e.why === "answer")));

export function conciergeView(ctx: Ctx): View {
  return new ConciergeView(ctx);
}

class ConciergeView implements View {
  readonly el = h("section", { class: "view concierge-view", "aria-labelledby": "concierge-title" });
  private status: ConciergeStatus | null = null;
  private readonly state = h("p", { class: "concierge-state", role: "status", "aria-live": "polite" });
  private readonly switchButton = h(
    "button",
    { type: "button", class: "primary", "data-action": "switch" },
    "…",
  );
  private readonly need = h("div", { class: "concierge-need", role: "alert", hidden: true });
  private readonly talk = h("ol", {
    class: "conversation",
    "aria-label": "Conversation",
    "aria-live": "polite",
  });
  private readonly said: FeedEntry[] = [];
  private readonly policy = h("fieldset", { class: "concierge-policy" });
  private readonly answered = h("div", { class: "concierge-answered" });
  private readonly orderList = h("ul", { class: "orders", "aria-label": "Standing orders" });
  private orders: StandingOrder[] = [];
  /**
   * What the policy, the last answer and the orders show, as last drawn: each drawn again only
   * when that changed, not on every status push (a radio or Undo pressed across one keeps its click).
   */
  private readonly drawn = { policy: new Shown(), answered: new Shown(), orders: new Shown() };
  private readonly actStatus = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
  private readonly offs: (() => void)[];

  constructor(private readonly ctx: Ctx) {
    const ro = ctx.readOnly();
    this.switchButton.addEventListener("click", () =>
      this.act(() => op("concierge", { action: this.status?.on ? "off" : "on" })),
    );
    append(this.el, [
      h(
        "div",
        { class: "view-head" },
        h("h1", { id: "concierge-title" }, "Concierge"),
        h("span", { class: "muted small" }, "the hub's own agent: it reads what the sessions do"),
        ro ? null : this.switchButton,
      ),
      this.state,
      this.actStatus,
      this.need,
      h("h2", { id: "talk-title" }, "Conversation"),
      this.talk,
      ro ? null : this.askForm(),
      h("h2", {}, "What it may do"),
      this.policy,
      this.answered,
      h("h2", { id: "orders-title" }, "Standing orders"),
      this.orderList,
      ro ? null : this.orderForm(),
    ]);
    this.offs = [
      ctx.live.onConcierge((s) => {
        const had = this.status?.orders;
        this.show(s);
        if (s.orders !== had) void this.loadOrders();
      }),
      ctx.live.onFeed((e) => {
        if (e.kind === "concierge" && e.why?.startsWith("order")) void this.loadOrders();
        if (!spoken(e, this.status?.id ?? null) || this.said.some((s) => s.cursor === e.cursor)) return;
        this.said.push(e);
        this.renderTalk();
      }),
      ctx.live.onConnect((again) => {
        if (again) void this.load();
      }),
    ];
    void this.load();
  }

  dispose(): void {
    for (const off of this.offs) off();
  }

  /**
   * The page loaded whole, then drawn at once: the conversation, above the policy and Undo, drawn
   * after them would move them under a pointer already on its way to a button.
   */
  private async load(): Promise<void> {
    try {
      const before = this.status;
      const s = await get<ConciergeStatus>("concierge?action=status");
      const [talk, orders] = await Promise.all([this.fetchTalk(s.id), this.fetchOrders()]);
      // A push that came meanwhile is newer than what was fetched: it stays.
      if (this.status === before) this.show(s, true);
      this.showTalk(s.id, talk);
      this.showOrders(orders);
    } catch (err) {
      this.state.textContent = `Could not load the concierge: ${(err as Error).message}`;
    }
  }

  private async fetchTalk(id: string | null): Promise<FeedEntry[]> {
    if (!id) return [];
    const { events } = await get<{ events: FeedEntry[] }>(`events?id=${encodeURIComponent(id)}&limit=200`);
    return events.filter((e) => spoken(e, id));
  }

  /** The conversation shown whole, in place of what was shown (an entry pushed meanwhile is kept once). */
  private showTalk(id: string | null, loaded: FeedEntry[]): void {
    const last = loaded.at(-1)?.cursor ?? 0;
    const since = this.said.filter((e) => e.cursor > last && e.id === id);
    this.said.splice(0, this.said.length, ...loaded, ...since);
    this.renderTalk();
  }

  private async loadTalk(): Promise<void> {
    const id = this.status?.id ?? null;
    this.showTalk(id, await this.fetchTalk(id));
  }

  private async fetchOrders(): Promise<StandingOrder[]> {
    return (await get<{ orders: StandingOrder[] }>("concierge-order?action=list")).orders;
  }

  private showOrders(orders: StandingOrder[]): void {
    this.orders = orders;
    this.renderOrders();
  }

  private async loadOrders(): Promise<void> {
    this.showOrders(await this.fetchOrders());
  }

  /** `loading`: the whole page is being loaded (its conversation with it). */
  private show(s: ConciergeStatus, loading = false): void {
    const newJob = !loading && s.id !== this.status?.id;
    this.status = s;
    this.state.textContent = s.on
      ? `On: ${s.id} is ${s.state}.`
      : s.id
        ? `Off (${s.id} is ${s.state}).`
        : "Off: turn it on to have it read what the sessions do.";
    this.switchButton.textContent = s.on ? "Turn off" : "Turn on";
    this.need.hidden = !s.need;
    this.need.replaceChildren(...(s.need ? [h("strong", {}, "It needs you: "), s.need.text] : []));
    this.renderPolicy();
    this.renderAnswered();
    if (newJob) void this.loadTalk();
  }

  private renderTalk(): void {
    const items = this.said.map((e) =>
      h(
        "li",
        { class: `said by-${e.who === "user" ? "you" : "it"} why-${e.why ?? "ask"}` },
        h(
          "span",
          { class: "who" },
          e.who === "user" ? "You" : e.why === "need" ? "It needs you" : "Concierge",
        ),
        h("span", { class: "text" }, e.text),
        timeAgo(e.at),
      ),
    );
    this.talk.replaceChildren(
      ...(items.length ? items : [h("li", { class: "muted" }, "Nothing said yet: ask it something.")]),
    );
  }

  private askForm(): HTMLFormElement {
    const text = h("textarea", {
      name: "text",
      rows: "2",
      required: true,
      maxlength: String(LIMITS.text),
      placeholder: "What needs me? Answer j4 for me…",
      "aria-labelledby": "talk-title",
    });
    const form = h(
      "form",
      { class: "ask-form" },
      text,
      h("button", { type: "submit", class: "primary" }, "Ask"),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.act(async () => {
        await op("concierge-ask", { text: text.value });
        text.value = "";
      });
    });
    return form;
  }

  private renderPolicy(): void {
    const p = this.status?.policy;
    const ro = this.ctx.readOnly();
    if (!p || !this.drawn.policy.changed([p, ro])) return;
    this.policy.replaceChildren(
      h("legend", {}, "May it answer sessions' questions in your place?"),
      ...ANSWERS.map(([value, label, words]) =>
        h(
          "label",
          { class: "choice-line" },
          h("input", {
            type: "radio",
            name: "answer",
            value,
            checked: p.answer === value,
            disabled: ro,
            onchange: () => void this.act(() => op("concierge", { action: "answer", answer: value })),
          }),
          h("strong", {}, label),
          h("span", { class: "muted" }, ` — ${words}`),
        ),
      ),
      h(
        "label",
        { class: "choice-line" },
        h("input", {
          type: "checkbox",
          name: "act",
          checked: p.act,
          disabled: ro,
          onchange: (ev: Event) =>
            void this.act(() =>
              op("concierge", { action: "act", act: (ev.target as HTMLInputElement).checked }),
            ),
        }),
        h("strong", {}, "It may stop, respawn and dispatch sessions"),
        h(
          "span",
          { class: "muted" },
          p.act ? " — it may, when it judges it right." : " — it tells you instead.",
        ),
      ),
    );
  }

  private renderAnswered(): void {
    const a = this.status?.answered;
    if (!this.drawn.answered.changed([a ?? null, this.ctx.readOnly()])) return;
    if (!a) {
      this.answered.replaceChildren(h("p", { class: "muted" }, "It has not answered anyone in your place."));
      return;
    }
    this.answered.replaceChildren();
    append(this.answered, [
      h(
        "p",
        { class: "last-answer" },
        "Its last answer: ",
        h("q", {}, a.text),
        " to ",
        h("a", { href: `#/jobs/${encodeURIComponent(a.id)}` }, `${a.name} (${a.id})`),
        a.question ? [", who asked ", h("q", {}, a.question)] : null,
        " ",
        timeAgo(a.at),
        a.undone ? h("span", { class: "badge b-ended" }, "undone") : null,
      ),
      a.why ? h("p", { class: "muted small" }, `Why: ${a.why}`) : null,
      this.ctx.readOnly() || a.undone
        ? null
        : h(
            "button",
            {
              type: "button",
              class: "danger",
              "data-action": "undo",
              onclick: () => void this.act(() => op("concierge", { action: "undo" })),
            },
            "Undo this answer",
          ),
    ]);
  }

  private renderOrders(): void {
    const ro = this.ctx.readOnly();
    if (!this.drawn.orders.changed([this.orders, ro])) return;
    this.orderList.replaceChildren(
      ...(this.orders.length
        ? this.orders.map((o) =>
            h(
              "li",
              { class: "order", "data-id": String(o.id) },
              h("span", { class: "text" }, `#${o.id} ${o.text}`),
              h(
                "span",
                { class: "muted small" },
                ` · by ${o.by === "user" ? "you" : "the concierge"}`,
                o.words ? ` · ${o.words}` : "",
                o.nextAt ? ` · next ${dueIn(o.nextAt, Date.now(), " ")}` : "",
                ` · applied ${o.count}×`,
              ),
              ro
                ? null
                : h(
                    "button",
                    {
                      type: "button",
                      class: "small",
                      "data-action": "rm",
                      "aria-label": `Remove order #${o.id}`,
                      onclick: () =>
                        void this.act(async () => {
                          await op("concierge-order", { action: "rm", id: o.id });
                          await this.loadOrders();
                        }),
                    },
                    "Remove",
                  ),
            ),
          )
        : [h("li", { class: "muted" }, "None: add what it should keep doing.")]),
    );
  }

  private orderForm(): HTMLFormElement {
    const text = h("input", {
      name: "text",
      required: true,
      maxlength: String(LIMITS.orderText),
      placeholder: "Tell me when CI fails",
      "aria-label": "The order",
    });
    const when = h("input", {
      name: "when",
      maxlength: String(LIMITS.scheduleWhen),
      placeholder: "when (optional): every 30m, daily 18:00",
      "aria-label": "When",
    });
    const form = h(
      "form",
      { class: "order-form" },
      text,
      when,
      h("button", { type: "submit" }, "Add the order"),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.act(async () => {
        await op("concierge-order", {
          action: "add",
          text: text.value,
          ...(when.value.trim() ? { when: when.value.trim() } : {}),
        });
        text.value = "";
        when.value = "";
        await this.loadOrders();
      });
    });
    return form;
  }

  private async act(run: () => Promise<unknown>): Promise<void> {
    this.actStatus.dataset.kind = "busy";
    this.actStatus.textContent = "…";
    try {
      await run();
      this.actStatus.textContent = "";
    } catch (err) {
      this.actStatus.dataset.kind = "error";
      this.actStatus.textContent = failedText(err, "try again");
      // A radio or box the user changed shows the policy as it still is.
      this.drawn.policy.forget();
      this.renderPolicy();
    }
  }
}
