/**
 * The merge queue's tab count: how many entries are queued or under way, shown only while there
 * are any (an empty queue says nothing), said whole to a screen reader ("Merge queue: 2 to land").
 */
import type { Ctx } from "./ctx.js";
import { queueStore } from "./queue-store.js";

export function followQueueCount(ctx: Ctx, count: HTMLElement): void {
  const store = queueStore(ctx);
  const show = () => {
    const n = store.waiting();
    const words = n ? `${n} to land` : "";
    count.hidden = !words;
    if (count.textContent !== words) count.textContent = words;
    count.parentElement?.setAttribute("aria-label", words ? `Merge queue: ${words}` : "Merge queue");
  };
  store.subscribe(show);
  show();
}
