/**
 * Hash routing: `#/` the rows, `#/jobs/<id>` a job's page, `#/events[?job=<id>]` the feed,
 * `#/board[?task=<id>]` the task board, `#/schedules` the schedules, `#/queue` the merge queue, `#/spend` what the agents spent, `#/concierge` the concierge. Hash routes, so the
 * daemon needs no fallback and the page works under any path prefix.
 */
import { boardView } from "./board.js";
import { conciergeView } from "./concierge.js";
import type { Ctx } from "./ctx.js";
import type { Frame, Nav } from "./frame.js";
import { eventsView, jobView } from "./pages.js";
import { queueView } from "./queue-view.js";
import { rowsView } from "./rows.js";
import { schedulesView } from "./schedules.js";
import { spendView } from "./spend-view.js";
import type { View } from "./view.js";

export class Router {
  /** The view shown (the keyboard acts on its rows). */
  view: View | null = null;

  constructor(
    private readonly ctx: Ctx,
    private readonly frame: Frame,
  ) {
    window.addEventListener("hashchange", () => {
      this.route();
      frame.main.focus({ preventScroll: true });
      window.scrollTo(0, 0);
    });
  }

  /** Shows the view the address names (again: after who the page is changed, say). */
  route(): void {
    const hash = location.hash || "#/";
    this.view?.dispose();
    document.title = "roost";
    const job = /^#\/jobs\/([^/?]+)/.exec(hash);
    let nav: Nav = "jobs";
    if (job) this.view = jobView(this.ctx, decodeURIComponent(job[1]!));
    else if (hash.startsWith("#/events")) {
      const q = new URLSearchParams(hash.split("?")[1] ?? "");
      this.view = eventsView(this.ctx, q.get("job"));
      document.title = "roost: events";
      nav = "events";
    } else if (hash.startsWith("#/board")) {
      const task = Number(new URLSearchParams(hash.split("?")[1] ?? "").get("task"));
      this.view = boardView(this.ctx, Number.isInteger(task) && task > 0 ? task : null);
      document.title = "roost: board";
      nav = "board";
    } else if (hash.startsWith("#/concierge")) {
      this.view = conciergeView(this.ctx);
      document.title = "roost: concierge";
      nav = "concierge";
    } else if (hash.startsWith("#/schedules")) {
      this.view = schedulesView(this.ctx);
      document.title = "roost: schedules";
      nav = "schedules";
    } else if (hash.startsWith("#/queue")) {
      this.view = queueView(this.ctx);
      document.title = "roost: merge queue";
      nav = "queue";
    } else if (hash.startsWith("#/spend")) {
      this.view = spendView(this.ctx);
      document.title = "roost: spend";
      nav = "spend";
    } else this.view = rowsView(this.ctx);
    this.frame.main.replaceChildren(this.view.el);
    this.frame.markNav(nav);
    this.frame.render();
  }
}
