/** Reordering the rows by dragging a row's grip onto another row, above or below its middle. */
import { h } from "./dom.js";
import type { RowView } from "./row.js";

export interface RowDragHooks {
  /** `moved` was dropped on the row `over`, in its upper half or (`after`) its lower. */
  drop(moved: string, over: string, after: boolean): void;
}

export class RowDrag {
  /** The id of the row being dragged; null between drags. */
  private dragging: string | null = null;

  constructor(
    private readonly list: HTMLElement,
    private readonly hooks: RowDragHooks,
  ) {}

  /** The row being dragged: the list keeps it drawn, wherever the drag takes the scroll. */
  get dragged(): string | null {
    return this.dragging;
  }

  /** Gives a row its grip to drag it by, and makes it a place to drop the others. */
  wire(v: RowView): void {
    this.addGrip(v);
    this.takeDrops(v);
  }

  private addGrip(v: RowView): void {
    const grip = h("span", {
      class: "grip",
      draggable: "true",
      title: "Drag to reorder (or Alt+↑/↓)",
      "aria-hidden": "true",
    });
    grip.textContent = "⠿";
    v.el.prepend(grip);
    grip.addEventListener("dragstart", (ev) => {
      this.dragging = v.row.id;
      ev.dataTransfer?.setData("text/plain", v.row.id);
      if (ev.dataTransfer) ev.dataTransfer.effectAllowed = "move";
      ev.dataTransfer?.setDragImage(v.el, 20, 20);
      v.el.classList.add("dragging");
    });
    grip.addEventListener("dragend", () => {
      this.dragging = null;
      v.el.classList.remove("dragging");
      for (const o of this.list.querySelectorAll(".drop-before, .drop-after"))
        o.classList.remove("drop-before", "drop-after");
    });
  }

  /** While another row is dragged over this one: where it would land (a line above or below). */
  private takeDrops(v: RowView): void {
    v.el.addEventListener("dragover", (ev) => {
      if (!this.dragging || this.dragging === v.row.id) return;
      ev.preventDefault();
      const box = v.el.getBoundingClientRect();
      const after = ev.clientY > box.top + box.height / 2;
      v.el.classList.toggle("drop-after", after);
      v.el.classList.toggle("drop-before", !after);
    });
    v.el.addEventListener("dragleave", () => v.el.classList.remove("drop-before", "drop-after"));
    v.el.addEventListener("drop", (ev) => {
      const dragged = this.dragging;
      if (!dragged || dragged === v.row.id) return;
      ev.preventDefault();
      const after = v.el.classList.contains("drop-after");
      v.el.classList.remove("drop-before", "drop-after");
      this.hooks.drop(dragged, v.row.id, after);
    });
  }
}
