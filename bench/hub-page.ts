/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The hub benchmark's part in the page (bench/scenarios/hub.ts): `installProbe` is given to
 * `addInitScript`, so that it runs in each new document before the hub's own script. It is sent
 * to the page as its source text: it uses nothing from outside its own body.
 *
 * What it times, on the page's clock (`performance.now()`, 0 at the navigation's start):
 * - the first render: when the rows list first says it holds `rows` rows (its rows' `aria-setsize`:
 *   the DOM holds only the window of them on screen and a margin, web/src/rows-window.ts) and the
 *   rows drawn reach the screen's bottom (a MutationObserver's callback, right after the draw that
 *   put them there), and the end of the frame that shows them;
 * - each push: its WebSocket message's arrival (a listener of the page's WebSocket, added before
 *   the hub's own), the draw that puts its value in its row's element, and the end of that frame;
 *   the report's send time is in the value itself (`t=`, on the wall clock);
 * - each keystroke: its `keydown` event's own time stamp (when the browser made the event) to the
 *   end of the frame after it;
 * - the hub's own draws of the rows (its `roost:rows` user-timing measures) and the long tasks.
 *
 * "The end of a frame": a message posted from a requestAnimationFrame callback is handled after
 * that frame's style, layout and paint, once the main thread is free again.
 */

/** A push seen painted: times on the page's clock, `sent` on the wall clock (ms since the epoch). */
export interface PushSample {
  agent: number;
  k: number;
  sent: number;
  arrived: number | null;
  drawn: number;
  painted: number;
}

export interface ProbeTake {
  pushes: PushSample[];
  /** Values drawn whose arrival was not seen (they came before `start`). */
  unmatched: number;
  /** A value of an agent skipped in the page: a later one was drawn first (coalesced). */
  skipped: number;
  keys: number[];
  /** The hub's draws of the rows (`roost:rows`), in ms. */
  draws: number[];
  longTasks: number[];
  /** `performance.timeOrigin`, for the wall clock. */
  timeOrigin: number;
}

/** What the page's `window.__hub` holds. */
export interface Probe {
  firstRender: { drawn: number; painted: number } | null;
  /** Starts collecting pushes, keystrokes and draws (and forgets those before). */
  start(): void;
  /** What was collected since `start` or the last `take`; collecting goes on afresh. */
  take(): ProbeTake;
  /** Stops collecting and forgets what it held (the page's heap is measured without it). */
  stop(): void;
  /** Resolves once `n` keystrokes are painted. */
  keysPainted(n: number): Promise<void>;
  elements(): number;
}

export function installProbe(opts: { rows: number }): void {
  const now = () => performance.now();
  /** Calls `fn` with the time at the end of the next frame. */
  const afterFrame = (fn: (at: number) => void) =>
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => fn(now());
      ch.port2.postMessage(0);
    });
  const VALUE = /hub a=(\d+) k=(\d+) t=(\d+(?:\.\d+)?)/;
  const VALUES = /hub a=(\d+) k=(\d+) t=/g;

  let on = false;
  let arrivals = new Map<string, number>();
  let pushes: PushSample[] = [];
  let unmatched = 0;
  let skipped = 0;
  let keys: number[] = [];
  let draws: number[] = [];
  let longTasks: number[] = [];
  const lastK = new Map<number, number>();
  let waiting: PushSample[] = [];
  let keyWaiters: { n: number; resolve: () => void }[] = [];

  const probe: Probe = {
    firstRender: null,
    start() {
      on = true;
      arrivals = new Map();
      probe.take();
    },
    take() {
      const taken = {
        pushes,
        unmatched,
        skipped,
        keys,
        draws,
        longTasks,
        timeOrigin: performance.timeOrigin,
      };
      pushes = [];
      unmatched = 0;
      skipped = 0;
      keys = [];
      draws = [];
      longTasks = [];
      return taken;
    },
    stop() {
      on = false;
      probe.take();
      arrivals = new Map();
      waiting = [];
    },
    keysPainted(n) {
      if (keys.length >= n) return Promise.resolve();
      return new Promise((resolve) => keyWaiters.push({ n, resolve }));
    },
    elements: () => document.getElementsByTagName("*").length,
  };
  (window as unknown as { __hub: Probe }).__hub = probe;

  // Each message's arrival, before the hub's own listener (added after the socket is made) runs.
  const Native = window.WebSocket;
  class TimedSocket extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener("message", (ev: MessageEvent) => {
        if (!on) return;
        const at = now();
        const text = String(ev.data);
        for (const m of text.matchAll(VALUES)) arrivals.set(`${m[1]}:${m[2]}`, at);
      });
    }
  }
  window.WebSocket = TimedSocket;

  // The first render: the list saying it holds every row, its first screen drawn; then each value
  // drawn in its row.
  let list: Element | null = null;
  const screenDrawn = (el: Element) => {
    const rows = el.querySelectorAll(":scope > li.row");
    const last = rows[rows.length - 1];
    if (last?.getAttribute("aria-setsize") !== String(opts.rows)) return false;
    return rows.length >= opts.rows || last.getBoundingClientRect().bottom >= innerHeight;
  };
  const seen = (row: Element, drawn: number) => {
    const m = VALUE.exec(row.textContent ?? "");
    if (!m) return;
    const agent = Number(m[1]);
    const k = Number(m[2]);
    const last = lastK.get(agent) ?? -1;
    if (k <= last) return;
    lastK.set(agent, k);
    if (last >= 0 && k > last + 1) skipped += k - last - 1;
    const key = `${agent}:${k}`;
    const arrived = arrivals.get(key) ?? null;
    // Values before this one will not be drawn now: their arrivals are forgotten.
    for (let j = last + 1; j <= k; j++) arrivals.delete(`${agent}:${j}`);
    if (arrived === null) {
      unmatched++;
      return;
    }
    const sample = { agent, k, sent: Number(m[3]), arrived, drawn, painted: 0 };
    if (waiting.length === 0)
      afterFrame((at) => {
        for (const s of waiting) {
          s.painted = at;
          pushes.push(s);
        }
        waiting = [];
      });
    waiting.push(sample);
  };
  new MutationObserver((records) => {
    const drawn = now();
    // The view is made again once the page knows who it speaks as: the list with it.
    if (!list?.isConnected) list = document.querySelector("ol.rows");
    if (!list) return;
    if (!probe.firstRender && screenDrawn(list)) {
      probe.firstRender = { drawn, painted: 0 };
      const first = probe.firstRender;
      afterFrame((at) => {
        first.painted = at;
      });
    }
    if (!on) return;
    const rows = new Set<Element>();
    for (const r of records) {
      const row = (r.target as Element).closest?.("ol.rows > li.row");
      if (row) rows.add(row);
      for (const added of r.addedNodes)
        if (added instanceof Element && added.matches("ol.rows > li.row")) rows.add(added);
    }
    for (const row of rows) seen(row, drawn);
  }).observe(document, { childList: true, subtree: true });

  window.addEventListener(
    "keydown",
    (ev) => {
      if (!on) return;
      const start = ev.timeStamp;
      afterFrame((at) => {
        keys.push(at - start);
        const ready = keyWaiters.filter((w) => keys.length >= w.n);
        keyWaiters = keyWaiters.filter((w) => keys.length < w.n);
        for (const w of ready) w.resolve();
      });
    },
    true,
  );

  new PerformanceObserver((entries) => {
    if (!on) return;
    for (const e of entries.getEntries()) {
      if (e.entryType === "measure" && e.name === "roost:rows") draws.push(e.duration);
      else if (e.entryType === "longtask") longTasks.push(e.duration);
    }
  }).observe({ entryTypes: ["measure", "longtask"] });
}
