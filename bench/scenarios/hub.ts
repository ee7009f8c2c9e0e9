/**
 * The hub at a thousand rows: the real hub page (web/src, as built into dist) in Debian's chromium
 * (headless, the browser tests' launch: test/helpers/chromium.ts), on a daemon holding 1,000 rows,
 * 100 of them working and reporting every 250 ms. The page times itself (bench/hub-page.ts); CDP
 * gives its heap and its main thread's busy time.
 *
 * The rows: 900 ended jobs written into the store before the daemon starts (as the `start`
 * scenario fills it: done, every 7th failed, ended a minute or two ago, so that none is folded
 * away yet), and 100 jobs of the inert protocol profile, each spoken for on a raw socket by the
 * benchmark (as in `many-agents`), each report changing its row's summary to
 * `hub a=AGENT k=SEQ t=SEND_TIME …` (the send time on the wall clock).
 *
 * Each round, on a fresh browser context: the login link, then the hub loaded again (the
 * measured load: a returning visit); the list of 1,000 rows painted (its first screen: the DOM holds
 * the window of rows on screen and a margin, web/src/rows-window.ts); KEYS keystrokes in the filter
 * box (the pushes going on); the page scrolled to the busy rows; the heap after a GC; pushes timed
 * for PUSH_S (those of the busy rows drawn: on screen and in the window's margin); the heap after a GC again then,
 * and HEAP_AFTER_S after the first (the probe's samples let go of before each). A subscriber of the benchmark's own (`ws`, on the same clock as the senders)
 * times report sent → push received, the socket's share.
 */
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Browser, BrowserContext, BrowserServer, CDPSession, Page } from "playwright-core";
import WebSocket from "ws";
import { Store } from "../../server/store/store.js";
import { connectChromium, launchChromiumServer } from "../../test/helpers/chromium.js";
import { endedJob } from "../../test/helpers/ended-jobs.js";
import { BenchAgent } from "../agent.js";
import { type Figure, info, underTarget, withRounds } from "../figures.js";
import { BenchDaemon, childPids, dispatchJobs, isAlive, sleep, track } from "../harness.js";
import { installProbe, type Probe } from "../hub-page.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { cpuMs, median, percentile, round } from "../stats.js";

const WORKING = 100;
const ENDED = 900;
const ROWS = WORKING + ENDED;
const REPORT_EVERY_MS = 250;
const ROUNDS = Number(process.env.BENCH_HUB_ROUNDS) || 2;
const PUSH_S = Number(process.env.BENCH_HUB_PUSH_S) || 25;
const HEAP_AFTER_S = Number(process.env.BENCH_HUB_HEAP_S) || 60;
const KEYS = 50;
/** Typed into the filter box and taken out again, one key at a time, until KEYS keys are pressed. */
const WORDS = ["agent 12", "hub a=3", "exited", "j9", "pi"];
const FRAME_MS = 16;
const FIRST_RENDER_MS = 1000;
const S = "hub";

/** 900 ended jobs, through the store's own code, ended in the last two minutes (not folded yet). */
function fill(dbFile: string): void {
  const store = new Store(dbFile);
  const now = Date.now();
  try {
    store.batch(() => {
      for (let i = 1; i <= ENDED; i++) {
        const task = `fix the flaky test in test/daemon/bridge/limits.test.ts and explain the cause (${i})`;
        // endedJob's job ends 50 s after `t`: these ended 60–150 s ago.
        const t = now - 110_000 - (ENDED - i) * 100;
        store.createJob((num) => endedJob(`j${num}`, i, task, t), null);
      }
    });
  } finally {
    store.close();
  }
}

/** An agent's report: its summary carries its value and its send time. */
function report(agent: BenchAgent, k: number): object {
  const t = performance.timeOrigin + performance.now();
  return {
    state: "working",
    status: "busy",
    summary: `hub a=${agent.n} k=${k} t=${t.toFixed(3)} reading server/core/jobs/agents.ts`,
    tool: k % 2 === 0 ? "read" : "bash",
    model: "claude-sonnet-4",
    thinking: "medium",
    context: { tokens: 40000 + k * 100, window: 200000, percent: 20 },
  };
}

/** Every REPORT_EVERY_MS from a random phase; returns the stop. */
function reportEvery(agent: BenchAgent): () => void {
  let k = 1;
  let timer: NodeJS.Timeout = setTimeout(() => {
    void agent.report(report(agent, k++));
    timer = setInterval(() => void agent.report(report(agent, k++)), REPORT_EVERY_MS);
  }, Math.random() * REPORT_EVERY_MS);
  return () => clearTimeout(timer);
}

/** A subscriber of the benchmark's own: report sent → push received, on the senders' clock. */
class SocketSide {
  latencies: number[] = [];
  measuring = false;
  private readonly seen = new Set<string>();
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => {
      if (!this.measuring) return;
      const at = performance.timeOrigin + performance.now();
      for (const m of data.toString().matchAll(/hub a=(\d+) k=(\d+) t=(\d+(?:\.\d+)?)/g)) {
        const key = `${m[1]}:${m[2]}`;
        if (this.seen.has(key)) continue;
        this.seen.add(key);
        this.latencies.push(at - Number(m[3]));
      }
    });
  }

  static open(url: string, token: string): Promise<SocketSide> {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    return new Promise((resolve, reject) => {
      ws.once("message", () => resolve(new SocketSide(ws)));
      ws.once("error", reject);
    });
  }

  take(): number[] {
    const l = this.latencies;
    this.latencies = [];
    this.seen.clear();
    return l;
  }

  close(): void {
    this.ws.close();
  }
}

/** The page's CDP metrics (Performance.getMetrics), by name. */
async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics: list } = await cdp.send("Performance.getMetrics");
  return Object.fromEntries(list.map((m) => [m.name, m.value]));
}

async function heapMiB(cdp: CDPSession): Promise<number> {
  await cdp.send("HeapProfiler.collectGarbage");
  return round((await metrics(cdp)).JSHeapUsedSize! / 2 ** 20, 2);
}

/** chromium's CPU time, every process of it (the browser, its renderers, the GPU and utility ones). */
function chromiumCpuMs(pid: number): number {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...childPids(all[i]!));
  return all.reduce((sum, p) => {
    try {
      return sum + cpuMs(p);
    } catch {
      return sum; // gone meanwhile
    }
  }, 0);
}

const stats = (v: number[]) => ({
  n: v.length,
  p50: round(median(v), 2),
  p99: round(percentile(v, 99), 2),
  max: round(v.length ? Math.max(...v) : Number.NaN, 2),
});

interface Round {
  coldLoadMs: number;
  firstRenderMs: number;
  firstDrawnMs: number;
  elements: number;
  heapStartMiB: number;
  heapMidMiB: number;
  heapMidS: number;
  heapEndMiB: number;
  heapAfterS: number;
  pageCpuShare: number;
  chromiumCpuShare: number;
  pushToPaint: ReturnType<typeof stats>;
  arrivalToPaint: ReturnType<typeof stats>;
  arrivalToDrawn: ReturnType<typeof stats>;
  socket: ReturnType<typeof stats>;
  skipped: number;
  /** The busy rows drawn once scrolled to them: the pushes timed are theirs. */
  busyDrawn: number;
  unmatched: number;
  draws: ReturnType<typeof stats>;
  longTasks: ReturnType<typeof stats>;
  keys: ReturnType<typeof stats>;
  keyDraws: ReturnType<typeof stats>;
  keyLongTasks: ReturnType<typeof stats>;
}

/** The page's window, with the probe (the functions given to `evaluate` run there, from their text). */
type HubWindow = { __hub: Probe };

async function firstRender(page: Page): Promise<{ drawn: number; painted: number }> {
  // Functions, not strings: the hub's Content-Security-Policy refuses a string made code.
  await page.waitForFunction(
    () => ((window as unknown as HubWindow).__hub.firstRender?.painted ?? 0) > 0,
    null,
    {
      timeout: 60000,
      polling: 50,
    },
  );
  return page.evaluate(() => (window as unknown as HubWindow).__hub.firstRender!);
}

/**
 * The busy rows on screen: they come after the failed ones (needs you first), out of the list's
 * window at its top (web/src/rows-window.ts), where their pushes would draw nothing. Scrolled a
 * screenful at a time until the first working row is drawn, then to it, as a user watching them.
 */
async function toWorking(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    for (let i = 0; i < 100 && !document.querySelector("li.row.t-working"); i++) {
      window.scrollBy(0, innerHeight);
      await frame();
    }
    document.querySelector("li.row.t-working")?.scrollIntoView({ block: "start" });
    await frame();
    await frame();
    return document.querySelectorAll("li.row.t-working").length;
  });
}

/** Keystrokes in the filter box, each after the last one's frame; the box is empty at the end. */
async function typeKeys(page: Page): Promise<void> {
  await page.focus("input.search");
  let pressed = 0;
  const press = async (key: string) => {
    pressed++;
    const painted = page.evaluate((n) => (window as unknown as HubWindow).__hub.keysPainted(n), pressed);
    await page.keyboard.press(key);
    await painted;
    await sleep(30 + Math.random() * 40);
  };
  for (let w = 0; pressed < KEYS; w++) {
    const word = WORDS[w % WORDS.length]!;
    for (const ch of word) await press(ch);
    for (let i = 0; i < word.length; i++) await press("Backspace");
  }
}

async function oneRound(
  ctx: ScenarioContext,
  browser: Browser,
  d: BenchDaemon,
  url: string,
  socket: SocketSide,
  chromiumPid: number,
): Promise<Round> {
  let context: BrowserContext | null = null;
  try {
    context = await browser.newContext({ viewport: { width: 1200, height: 800 }, deviceScaleFactor: 1 });
    await context.addInitScript(installProbe, { rows: ROWS });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(String(err)));
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    await page.goto(`${url}login?token=${encodeURIComponent(d.token)}`);
    const cold = await firstRender(page);
    await page.goto(url);
    const first = await firstRender(page);
    const elements = await page.evaluate(() => (window as unknown as HubWindow).__hub.elements());
    ctx.log(
      `1,000 rows' list painted (its first screen) ${round(first.painted, 0)} ms after the navigation (the login's load: ${round(cold.painted, 0)} ms); ${elements} elements`,
    );

    // Keystrokes first: the heap is weighed once every path of the page has run.
    await sleep(1000);
    await page.evaluate(() => (window as unknown as HubWindow).__hub.start());
    await typeKeys(page);
    const typed = await page.evaluate(() => (window as unknown as HubWindow).__hub.take());
    ctx.log(
      `${typed.keys.length} keystrokes: p50 ${round(median(typed.keys), 1)} ms, p99 ${round(percentile(typed.keys, 99), 1)} ms`,
    );

    const working = await toWorking(page);
    ctx.log(`scrolled to the busy rows: ${working} of them drawn`);
    const heapStartMiB = await heapMiB(cdp);
    const heapAt = performance.now();
    await page.evaluate(() => (window as unknown as HubWindow).__hub.take());
    socket.take();
    socket.measuring = true;
    const m0 = await metrics(cdp);
    const c0 = chromiumCpuMs(chromiumPid);
    const t0 = performance.now();
    await sleep(PUSH_S * 1000);
    const m1 = await metrics(cdp);
    const c1 = chromiumCpuMs(chromiumPid);
    const wall = (performance.now() - t0) / 1000;
    const pushes = await page.evaluate(() => (window as unknown as HubWindow).__hub.take());
    // The samples are the probe's, in the page's heap: gone before the heap is weighed again.
    await page.evaluate(() => (window as unknown as HubWindow).__hub.stop());
    socket.measuring = false;
    const heapMidMiB = await heapMiB(cdp);
    const heapMidS = round((performance.now() - heapAt) / 1000, 1);
    const socketMs = socket.take();
    const toPaint = pushes.pushes.map((p) => pushes.timeOrigin + p.painted - p.sent);
    const pageCpuShare = round((m1.TaskDuration! - m0.TaskDuration!) / wall, 3);
    const chromiumCpuShare = round((c1 - c0) / 1000 / wall, 3);
    ctx.log(
      `${pushes.pushes.length} pushes painted in ${round(wall, 1)} s: arrival → frame p50 ${round(median(pushes.pushes.map((p) => p.painted - p.arrived!)), 1)} ms, p99 ${round(
        percentile(
          pushes.pushes.map((p) => p.painted - p.arrived!),
          99,
        ),
        1,
      )} ms; the page's main thread ${pageCpuShare} CPU`,
    );

    const left = HEAP_AFTER_S * 1000 - (performance.now() - heapAt);
    if (left > 0) await sleep(left);
    const heapAfterS = round((performance.now() - heapAt) / 1000, 1);
    const heapEndMiB = await heapMiB(cdp);
    ctx.log(
      `JS heap ${heapStartMiB} MiB at the start, ${heapMidMiB} MiB ${heapMidS} s later, ${heapEndMiB} MiB at ${heapAfterS} s`,
    );
    if (errors.length) throw new Error(`the page threw: ${errors.join("; ")}`);
    return {
      coldLoadMs: round(cold.painted, 1),
      firstRenderMs: round(first.painted, 1),
      firstDrawnMs: round(first.drawn, 1),
      elements,
      heapStartMiB,
      heapMidMiB,
      heapMidS,
      heapEndMiB,
      heapAfterS,
      pageCpuShare,
      chromiumCpuShare,
      pushToPaint: stats(toPaint),
      arrivalToPaint: stats(pushes.pushes.map((p) => p.painted - p.arrived!)),
      arrivalToDrawn: stats(pushes.pushes.map((p) => p.drawn - p.arrived!)),
      socket: stats(socketMs),
      skipped: pushes.skipped,
      busyDrawn: working,
      unmatched: pushes.unmatched,
      draws: stats(pushes.draws),
      longTasks: stats(pushes.longTasks),
      keys: stats(typed.keys),
      keyDraws: stats(typed.draws),
      keyLongTasks: stats(typed.longTasks),
    };
  } finally {
    await context?.close();
  }
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const d = BenchDaemon.create({ profileDir: ctx.profileDir });
  fill(path.join(d.home, "roost.db"));
  await d.start();
  const url = await d.hubUrl();
  const agents: BenchAgent[] = [];
  let stops: (() => void)[] = [];
  let socket: SocketSide | null = null;
  let server: BrowserServer | null = null;
  let browser: Browser | null = null;
  try {
    const jobs = await dispatchJobs(d, "inert", WORKING, 8);
    for (const [i, job] of jobs.entries()) agents.push(await BenchAgent.connect(d.socket, job, i));
    await Promise.all(agents.map((a) => a.introduce("bench-agent", ["report", "replies"], report(a, 0))));
    stops = agents.map(reportEvery);
    socket = await SocketSide.open(`${url.replace(/^http/, "ws")}api/subscribe`, d.token);
    ctx.log(`${ENDED} ended jobs and ${WORKING} agents reporting every ${REPORT_EVERY_MS} ms`);

    server = await launchChromiumServer();
    const proc = server.process();
    track(proc);
    browser = await connectChromium(server);
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await oneRound(ctx, browser, d, url, socket, proc.pid!));

    const errors = agents.reduce((s, a) => s + a.errors, 0);
    if (errors > 0)
      throw new Error(`${errors} report errors: ${agents.find((a) => a.firstError)?.firstError}`);
    const med = (f: (r: Round) => number) => median(rounds.map(f));
    const each = (f: (r: Round) => number) => rounds.map(f);
    /** A figure of every round, its median the figure: held to `target` (under it) when one is given. */
    const ofRounds = (name: string, unit: string, f: (r: Round) => number, target?: number) =>
      withRounds(
        target === undefined ? info(S, name, unit, med(f)) : underTarget(S, name, unit, med(f), target),
        each(f),
      );
    const growth = (r: Round) => r.heapEndMiB - r.heapStartMiB;
    const figures: Figure[] = [
      ofRounds(
        `first render: navigation → the ${ROWS} rows' list painted (its first screen)`,
        "ms",
        (r) => r.firstRenderMs,
        FIRST_RENDER_MS,
      ),
      ofRounds("push: WS message in the page → its frame, p50", "ms", (r) => r.arrivalToPaint.p50),
      ofRounds("push: WS message in the page → its frame, p99", "ms", (r) => r.arrivalToPaint.p99, FRAME_MS),
      info(
        S,
        "push: report sent → its frame, p50",
        "ms",
        med((r) => r.pushToPaint.p50),
      ),
      info(
        S,
        "push: report sent → its frame, p99",
        "ms",
        med((r) => r.pushToPaint.p99),
      ),
      info(
        S,
        "push: report sent → pushed to a socket, p50",
        "ms",
        med((r) => r.socket.p50),
      ),
      info(
        S,
        "push: report sent → pushed to a socket, p99",
        "ms",
        med((r) => r.socket.p99),
      ),
      ofRounds("keystroke in the filter → its frame, p50", "ms", (r) => r.keys.p50),
      ofRounds("keystroke in the filter → its frame, p99", "ms", (r) => r.keys.p99, FRAME_MS),
      info(
        S,
        "JS heap at the start (after a GC)",
        "MiB",
        med((r) => r.heapStartMiB),
      ),
      withRounds(
        underTarget(S, `JS heap growth over ${HEAP_AFTER_S} s of pushes`, "MiB", med(growth), 1, "< 1 MiB"),
        each(growth),
      ),
      info(
        S,
        "DOM elements",
        "",
        med((r) => r.elements),
      ),
      ofRounds("page main thread busy during pushes (its tasks' time ÷ wall)", "CPU", (r) => r.pageCpuShare),
      info(
        S,
        "chromium, all its processes, during pushes",
        "CPU",
        med((r) => r.chromiumCpuShare),
      ),
    ];
    return {
      figures,
      detail: {
        rows: ROWS,
        working: WORKING,
        reportEveryMs: REPORT_EVERY_MS,
        pushS: PUSH_S,
        keys: KEYS,
        rounds,
      },
    };
  } finally {
    for (const stop of stops) stop();
    for (const a of agents) a.close();
    socket?.close();
    await browser?.close().catch(() => {});
    if (server) await endChromium(server);
  }
}

/** Closes chromium, then makes sure by pid that it is gone. */
async function endChromium(server: BrowserServer): Promise<void> {
  const pid = server.process().pid;
  await server.close().catch(() => {});
  if (pid && isAlive(pid)) {
    server.process().kill("SIGKILL");
    while (isAlive(pid)) await sleep(10);
  }
}

export const hub: Scenario = {
  name: "hub",
  aliases: ["browser"],
  title: `hub: the browser hub with ${ROWS} rows, ${WORKING} of them reporting every ${REPORT_EVERY_MS} ms`,
  run,
};
