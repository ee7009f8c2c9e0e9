/**
 * The schedules that need the user (docs/protocol.md, "A run's end": three skips in a row), for the
 * Schedules tab's badge: loaded with `schedules`, then followed by the `schedule` pushes, and
 * loaded again after a reconnection.
 */
import { get, type Schedule } from "./api.js";
import type { Ctx } from "./ctx.js";

export function followScheduleNeeds(ctx: Ctx, show: (count: number) => void): void {
  const needing = new Set<string>();
  const put = (s: Schedule) => (s.needsYou ? needing.add(s.id) : needing.delete(s.id));
  const load = async () => {
    try {
      const { schedules } = await get<{ schedules: Schedule[] }>("schedules");
      needing.clear();
      for (const s of schedules) put(s);
      show(needing.size);
    } catch {
      // The badge waits for the next push or reconnection; the Schedules page says any error.
    }
  };
  ctx.live.onSchedule((e) => {
    if (e.schedule) put(e.schedule);
    else needing.delete(e.id);
    show(needing.size);
  });
  ctx.live.onConnect((again) => {
    if (again) void load();
  });
  void load();
}
