/**
 * The browser hub, put together: the live state, who the page speaks as, the frame, the routes,
 * attention and the shortcuts. Each is in its own file; this one only wires them and starts.
 */
import "./style.css";
import { ApiError, type ConciergeStatus, get, type Profile, type WhoAmI } from "./api.js";
import { watchConcierge, watchTurns } from "./attention.js";
import { BoardState } from "./board-state.js";
import type { Ctx } from "./ctx.js";
import { openDispatch } from "./dispatch.js";
import { tickTimes } from "./dom.js";
import { showFavicon } from "./favicon.js";
import { buildFrame } from "./frame.js";
import { Live } from "./live.js";
import { registerWorker } from "./notify.js";
import { Router } from "./router.js";
import { bindShortcuts } from "./shortcuts.js";
import { Triage } from "./triage.js";

showFavicon(false);
const live = new Live();
const ctx: Ctx = {
  live,
  board: new BoardState(live),
  who: null,
  profiles: [],
  triage: new Triage(),
  readOnly: () => ctx.who?.readOnly !== false,
  announce: (text) => frame.announce(text),
  openDispatch: () => openDispatch(ctx),
};
const frame = buildFrame(ctx);
const router = new Router(ctx, frame);
watchTurns(ctx);
watchConcierge(ctx);

let lastReadOnly: boolean | null = null;
async function loadWho(): Promise<void> {
  try {
    ctx.who = await get<WhoAmI>("whoami");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) live.connection = "unauthorized";
    frame.render();
    return;
  }
  if (!ctx.who.readOnly) {
    registerWorker(); // its notifications answer: a page that may act
    try {
      ctx.profiles = (await get<{ profiles: Profile[] }>("profiles")).profiles;
    } catch {
      // the dispatch form says so when opened
    }
  }
  if (lastReadOnly !== ctx.who.readOnly) {
    lastReadOnly = ctx.who.readOnly;
    router.route(); // the views draw their buttons (or not) for who the page is
  }
  frame.render();
}
// Again after a reconnection: the daemon may have come back with other tokens.
live.onConnect((again) => {
  if (again || !ctx.who) void loadWho();
  // The concierge's status (a need of its counts as a job that needs you); pushed after this.
  get<ConciergeStatus>("concierge?action=status").then(
    (s) => live.setConcierge(s),
    () => {},
  );
});
// A burst of pushes (500 jobs starting) draws the header once, and a steady stream of them (100
// agents reporting 4 times a second) at most every HEADER_MS: by a timer rather than a frame, so
// that a tab in the background still counts what needs you in its title.
const HEADER_MS = 100;
let headerQueued = false;
let headerDrawn = 0;
const renderHeader = () => {
  if (headerQueued) return;
  headerQueued = true;
  window.setTimeout(
    () => {
      headerQueued = false;
      headerDrawn = performance.now();
      frame.render();
    },
    Math.max(0, headerDrawn + HEADER_MS - performance.now()),
  );
};
live.subscribe(renderHeader);
ctx.board.subscribe(renderHeader);
bindShortcuts(ctx, () => router.view);

window.setInterval(() => {
  tickTimes();
  if (live.connection === "disconnected") frame.render();
}, 1000);
router.route();
// Who the page speaks as first, so that a read-only page never shows a button, nor an owner's a
// read-only flash; then the rows.
void loadWho().finally(() => live.start());
