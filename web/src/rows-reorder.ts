/**
 * Your own order, sent (rows.ts): a row put beside another, shown at once, then `reorder` with
 * every job's id in the new order; the daemon's pushes confirm it (or put it back).
 */
import { op } from "./api.js";
import type { Ctx } from "./ctx.js";
import type { RowView } from "./row.js";
import { orderWith } from "./rows-order.js";

export async function reorder(
  ctx: Ctx,
  moved: string,
  beside: string,
  after: boolean,
  list: { render(): void; view(id: string): RowView | undefined },
): Promise<void> {
  const ids = orderWith(
    ctx.live.sorted().map((r) => r.id),
    moved,
    beside,
    after,
  );
  ids.forEach((id, i) => {
    const r = ctx.live.rows.get(id);
    if (r) ctx.live.rows.set(id, { ...r, order: i });
  });
  list.render();
  list.view(moved)?.el.focus();
  try {
    await op("reorder", { ids });
    ctx.announce(`Moved ${moved} to place ${ids.indexOf(moved) + 1}`);
  } catch (err) {
    list.view(moved)?.setStatus(`Could not move: ${(err as Error).message}`, "error");
  }
}
