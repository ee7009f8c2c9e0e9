/** The rows view (`#/`): every job, live; pinned first, then the user's order (drag, or Alt+↑/↓). */
import { op } from "./api.js";
import type { Ctx } from "./ctx.js";
import { h } from "./dom.js";
import { RowView } from "./row.js";

export interface View {
  el: HTMLElement;
  dispose(): void;
  /** The row the keyboard acts on. */
  current?(): RowView | null;
  /** j / k. */
  step?(delta: number): void;
}

export function rowsView(ctx: Ctx): View {
  const views = new Map<string, RowView>();
  const list = h("ol", { class: "rows", "aria-label": "Jobs" });
  const empty = h(
    "div",
    { class: "empty" },
    h("p", null, "No jobs yet."),
    ctx.readOnly()
      ? null
      : h(
          "p",
          null,
          h(
            "button",
            { type: "button", class: "primary", onclick: () => ctx.openDispatch() },
            "Dispatch a job",
          ),
          " or press ",
          h("kbd", null, "d"),
          ".",
        ),
  );
  const el = h("section", { class: "view rows-view", "aria-labelledby": "rows-title" }, [
    h("h1", { id: "rows-title", class: "sr-only" }, "Jobs"),
    list,
    empty,
  ]);
  let lastFocused: string | null = null;
  let dragging: string | null = null;

  const move = (id: string, delta: number) => {
    const ids = ctx.live.sorted().map((r) => r.id);
    const from = ids.indexOf(id);
    const to = Math.max(0, Math.min(ids.length - 1, from + delta));
    if (from < 0 || from === to) return;
    ids.splice(from, 1);
    ids.splice(to, 0, id);
    void reorder(ids, id);
  };

  const reorder = async (ids: string[], moved: string) => {
    // Shown at once; the daemon's pushes confirm it (or put it back).
    ids.forEach((id, i) => {
      const r = ctx.live.rows.get(id);
      if (r) ctx.live.rows.set(id, { ...r, order: i });
    });
    render();
    views.get(moved)?.el.focus();
    try {
      await op("reorder", { ids });
      ctx.announce(`Moved ${moved} to place ${ids.indexOf(moved) + 1}`);
    } catch (err) {
      views.get(moved)?.setStatus(`Could not move: ${(err as Error).message}`, "error");
    }
  };

  const render = () => {
    const rows = ctx.live.sorted();
    const seen = new Set<string>();
    const active = document.activeElement as HTMLElement | null;
    let prev: Element | null = null;
    for (const row of rows) {
      seen.add(row.id);
      let v = views.get(row.id);
      if (!v) {
        v = new RowView(row, ctx, { move });
        views.set(row.id, v);
        wireDrag(v);
        v.el.addEventListener("focusin", () => {
          lastFocused = row.id;
        });
      } else v.update(row);
      const want: Element | null = prev ? prev.nextElementSibling : list.firstElementChild;
      if (want !== v.el) list.insertBefore(v.el, want);
      prev = v.el;
    }
    for (const [id, v] of views)
      if (!seen.has(id)) {
        v.el.remove();
        views.delete(id);
      }
    if (active && active !== document.activeElement && el.contains(active))
      active.focus({ preventScroll: true });
    empty.hidden = rows.length > 0;
    list.hidden = rows.length === 0;
  };

  const wireDrag = (v: RowView) => {
    if (ctx.readOnly()) return;
    const grip = h("span", {
      class: "grip",
      draggable: "true",
      title: "Drag to reorder (or Alt+↑/↓)",
      "aria-hidden": "true",
    });
    grip.textContent = "⠿";
    v.el.prepend(grip);
    grip.addEventListener("dragstart", (ev) => {
      dragging = v.row.id;
      ev.dataTransfer?.setData("text/plain", v.row.id);
      if (ev.dataTransfer) ev.dataTransfer.effectAllowed = "move";
      ev.dataTransfer?.setDragImage(v.el, 20, 20);
      v.el.classList.add("dragging");
    });
    grip.addEventListener("dragend", () => {
      dragging = null;
      v.el.classList.remove("dragging");
      for (const o of list.querySelectorAll(".drop-before, .drop-after"))
        o.classList.remove("drop-before", "drop-after");
    });
    v.el.addEventListener("dragover", (ev) => {
      if (!dragging || dragging === v.row.id) return;
      ev.preventDefault();
      const box = v.el.getBoundingClientRect();
      const after = ev.clientY > box.top + box.height / 2;
      v.el.classList.toggle("drop-after", after);
      v.el.classList.toggle("drop-before", !after);
    });
    v.el.addEventListener("dragleave", () => v.el.classList.remove("drop-before", "drop-after"));
    v.el.addEventListener("drop", (ev) => {
      if (!dragging || dragging === v.row.id) return;
      ev.preventDefault();
      const after = v.el.classList.contains("drop-after");
      v.el.classList.remove("drop-before", "drop-after");
      const ids = ctx.live
        .sorted()
        .map((r) => r.id)
        .filter((id) => id !== dragging);
      ids.splice(ids.indexOf(v.row.id) + (after ? 1 : 0), 0, dragging);
      void reorder(ids, dragging);
    });
  };

  render();
  const off = ctx.live.subscribe(render);

  const current = () => {
    const active = document.activeElement;
    for (const v of views.values()) if (active && v.el.contains(active)) return v;
    return (lastFocused && views.get(lastFocused)) || null;
  };
  return {
    el,
    dispose: off,
    current,
    step(delta) {
      const order = ctx.live.sorted().map((r) => r.id);
      if (!order.length) return;
      const cur = current();
      const i = cur ? order.indexOf(cur.row.id) : -1;
      const next =
        i < 0 ? (delta > 0 ? 0 : order.length - 1) : Math.max(0, Math.min(order.length - 1, i + delta));
      const v = views.get(order[next]!);
      v?.el.focus();
      v?.el.scrollIntoView({ block: "nearest" });
    },
  };
}
