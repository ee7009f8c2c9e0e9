/** A view of the hub (the jobs, a job, the schedules, the board, the concierge): what the router and the keyboard ask of it. */
import type { RowView } from "./row.js";

export interface View {
  el: HTMLElement;
  dispose(): void;
  /** The row the keyboard acts on. */
  current?(): RowView | null;
  /** j / k, ↓ / ↑. */
  step?(delta: number): void;
  /** x: selects the current row, or clears it. */
  toggleSelected?(): void;
  /** → / ←: unfolds the current row's children, or folds them (from a child: to its parent). */
  fold?(open: boolean): void;
  /** /: the filter's text field. */
  focusSearch?(): void;
  /** Enter on a row: handled here (the preview pane's answer), or false: the job's page opens. */
  enter?(): boolean;
  /** Esc: clears the selection; false when there was none. */
  clearSelection?(): boolean;
}
