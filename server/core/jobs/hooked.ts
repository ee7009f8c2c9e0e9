/**
 * A terminal agent's own hooks (docs/agents.md, "Terminal agents' hooks"): Claude Code, Codex and
 * Gemini CLI run `roost hook AGENT EVENT` at each step of theirs, which says it to the daemon
 * (`hook`, protocol.md). What a hook said is the row's word over the screen's reading; the screen
 * still says what no hook did (a question of its own, the menu of a permission prompt, which its
 * going ends), and takes the row back once the agent's session has ended.
 */
import { type FullReport, type OpArgs, type OpResult, RoostError } from "../../../sdk/ts/protocol/index.js";
import { DEFAULT_QUIET_MS } from "../../pty/wire.js";
import type { Core } from "../core.js";
import { oneLine } from "../text.js";
import { type AgentConnection, authorize } from "./agents.js";
import { agentConversation } from "./conversation.js";
import { isEnded } from "./lifecycle.js";
import { EMPTY_REPORT, type LiveJob } from "./registry.js";
import { setReport } from "./state.js";
import { hookHeard, typePending } from "./typist.js";

/** A numbered menu on the screen (a permission prompt's `1. Yes` `2. No`): its labels, and the key of each. */
export interface Menu {
  labels: string[];
  keys: string[];
}

/** What the screen last said of a terminal agent: its row as read, and the menu it shows. */
export interface ScreenReading {
  row: FullReport;
  menu: Menu | null;
}

/** What the job's hooks have said, until its agent's session ends. */
export interface Hooked {
  state: "working" | "blocked" | "done";
  tool: string | null;
  summary: string | null;
  question: string | null;
  choices: string[] | null;
  model: string | null;
  context: FullReport["context"];
  usage: FullReport["usage"];
  /** The screen has shown a menu since the ask: its going is the ask's end (answered in the terminal). */
  menuSeen: boolean;
  /** When a hook last spoke (ms): a turn's end said after roost last typed is the agent waiting (typist.ts). */
  at: number;
}

const fresh = (): Hooked => ({
  state: "working",
  tool: null,
  summary: null,
  question: null,
  choices: null,
  model: null,
  context: null,
  usage: null,
  menuSeen: false,
  at: 0,
});

/** `hook`: what the job's agent's hook said, on its row. */
export function hookSaid(core: Core, conn: AgentConnection, args: OpArgs<"hook">): OpResult<"hook"> {
  const job = authorize(core, conn, args.id, args.token);
  if (isEnded(job)) throw new RoostError("unauthorized", `${args.id} has ended: stop speaking for it`);
  if (job.rec.launch.protocol || job.rec.kind !== "terminal")
    throw new RoostError(
      "bad_request",
      `${args.id} speaks roost's protocol: its own reports make its row, not a terminal agent's hooks`,
    );
  if (args.session !== undefined) sessionSaid(core, job, args.session, args.resumed ?? false);
  if (args.event === "session-end") {
    job.hooked = null; // the screen's again: the agent has no session to speak for
  } else {
    // A session begun waits for its first prompt (one given with the command follows at once).
    if (!job.hooked) job.hooked = { ...fresh(), state: args.event === "session" ? "done" : "working" };
    applyEvent(job.hooked, args);
  }
  hookHeard(job);
  setReport(core, job, rowOf(job));
  // Its turn is over: a follow-up may be typed, once the hook has returned and the agent takes
  // keys again (what is typed while its hook runs, Codex drops).
  if (job.hooked?.state === "done")
    setTimeout(() => void typePending(core, job), job.rec.launch.quietMs ?? DEFAULT_QUIET_MS).unref();
  return {};
}

function applyEvent(h: Hooked, args: OpArgs<"hook">): void {
  h.at = Date.now();
  if (args.model !== undefined) h.model = args.model;
  if (args.context !== undefined) h.context = args.context;
  if (args.usage !== undefined) h.usage = args.usage;
  const summary = args.summary === undefined ? null : oneLine(args.summary);
  switch (args.event) {
    case "prompt":
      Object.assign(h, { state: "working", tool: null, summary, question: null, choices: null });
      break;
    case "tool":
      Object.assign(h, { state: "working", tool: args.tool ?? null, summary: summary ?? h.summary });
      break;
    case "tool-done":
      if (h.state !== "done")
        Object.assign(h, { state: "working", tool: null, question: null, choices: null });
      break;
    case "ask": {
      // The question names what is asked for, the tool's input as its hook said it (or as the
      // tool's own hook did, just before).
      const what = summary ?? (args.tool === undefined || args.tool === h.tool ? h.summary : null);
      const asked = args.question ?? "permission?";
      const question = what && !asked.includes(what) ? `${asked}: ${what}` : asked;
      if (h.state !== "blocked") h.menuSeen = false;
      Object.assign(h, { state: "blocked", question, choices: args.choices ?? null });
      if (args.tool !== undefined) h.tool = args.tool;
      break;
    }
    case "turn-end":
      Object.assign(h, {
        state: "done",
        tool: null,
        summary: summary ?? h.summary,
        question: null,
        choices: null,
      });
      break;
  }
}

/** The session its agent is in, kept as the job's conversation: a respawn goes on with it. */
function sessionSaid(core: Core, job: LiveJob, session: string, resumed: boolean): void {
  if (!agentConversation(job.rec, { session, resumed })) return;
  core.registry.changed(job, true);
  const text = resumed ? "its conversation resumed" : "a new conversation";
  core.feed.record(job.rec.id, "start", `${text} (its agent's session ${oneLine(session)})`, {
    who: core.registry.nameOf(job),
    whoId: job.rec.id,
  });
}

/**
 * The screen said something (terminals' screens.ts): the row, with what the hooks said over it.
 * A menu gone from the screen after the hooks' ask showed it: answered in the terminal.
 */
export function screenRead(core: Core, job: LiveJob, reading: ScreenReading): void {
  job.screen = reading;
  const h = job.hooked;
  if (h?.state === "blocked") {
    if (reading.menu) h.menuSeen = true;
    else if (h.menuSeen)
      Object.assign(h, { state: "working", question: null, choices: null, menuSeen: false });
  }
  setReport(core, job, rowOf(job));
}

/** The row: the screen's reading, with what the hooks said over it. */
export function rowOf(job: LiveJob): FullReport {
  const screen = job.screen?.row ?? { ...EMPTY_REPORT, status: "busy" };
  const h = job.hooked;
  if (!h) return screen;
  const said = {
    model: h.model ?? screen.model,
    context: h.context ?? screen.context,
    usage: h.usage ?? screen.usage,
  };
  if (h.state === "blocked")
    return {
      ...EMPTY_REPORT,
      ...said,
      state: "blocked",
      status: "waiting",
      waitingFor: "question",
      tool: h.tool,
      summary: h.summary,
      question: h.question,
      choices: h.choices ?? job.screen?.menu?.labels ?? null,
    };
  // A question of the screen's own that no hook said (an agent with no hook for it).
  if (screen.state === "blocked") return { ...screen, ...said };
  if (h.state === "done")
    return { ...EMPTY_REPORT, ...said, state: "done", status: "idle", summary: h.summary };
  return {
    ...EMPTY_REPORT,
    ...said,
    state: "working",
    status: "busy",
    tool: h.tool,
    summary: h.summary ?? screen.summary,
  };
}
