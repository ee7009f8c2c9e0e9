/**
 * roost's extension for pi (docs/pi.md): pi as a protocol agent, through pi's own extension API and
 * the agent client (`pi-roost/agent`).
 *
 * - A pi that roost runs (the `pi` profile: `pi -e <this file>`) speaks for its job: its row
 *   follows pi's events, the user's replies become pi's own steer and follow-up messages (acked
 *   once pi has taken them), peer items reach pi with their envelope, and the model gets the
 *   `roost_*` tools.
 * - A pi the user runs in a terminal of their own, with roost's socket there (`ROOST_SOCKET`, or
 *   the default one), registers itself (`peer_register`) as a foreground session and does the same.
 * - Anywhere else it does nothing.
 *
 * Loaded twice (installed in pi's extensions folder and given with `-e`), the first one speaks.
 */
import fs from "node:fs";
import path from "node:path";
import {
  ConversationSender,
  findJob,
  findSocket,
  ITEM_BATCHES,
  type JobEnv,
  type Reply,
  RoostAgent,
  TRANSCRIPT,
  withoutJob,
} from "../agent/index.js";
import { Approvals, approvalList } from "./approvals.js";
import { followPolicy } from "./concierge-policy.js";
import { conciergeTools } from "./concierge-tools.js";
import { Inbox } from "./inbox.js";
import type { PiAPI, PiContext } from "./pi-api.js";
import { PiConversation } from "./pi-conversation.js";
import { Questions } from "./questions.js";
import { PiRow, usageFileIn } from "./row.js";
import { roostTools } from "./tools.js";

export type { PiAPI } from "./pi-api.js";

/** What the extension says it is, in `hello`. */
export const AGENT = { name: "pi", version: "roost-pi/1" };
/** Besides report, replies and agent-items (the client's): what this extension does. */
// Batches: handbacks close together (a fan-in) are one message, one turn.
export const CAPABILITIES = ["steer", "usage", "context", "model-switch", "peers", ITEM_BATCHES, TRANSCRIPT];

/** Set while an instance of the extension speaks in this process (see "Loaded twice"). */
const SPEAKING = Symbol.for("pi-roost.pi-extension");
/**
 * The job this pi speaks for, kept for the process's life: pi loads its extensions again for a
 * new session (`/new`, `/resume`, `/reload`), after the job's identity left the environment.
 */
const JOB = Symbol.for("pi-roost.pi-job");

/** How often a settling pi is looked at (its run ended; it is idle once its retries and queue are done). */
const SETTLE_POLL_MS = 25;

export default function roostExtension(pi: PiAPI): void {
  const env = process.env;
  const global = globalThis as Record<symbol, unknown>;
  if (global[SPEAKING]) return;
  let job = (global[JOB] as JobEnv | undefined) ?? null;
  try {
    job ??= findJob(env);
  } catch {
    job = null; // a job id without its token: nothing to speak for
  }
  if (job) global[JOB] = job;
  const socket = findSocket(env);
  if (!job && !fs.existsSync(socket)) return; // not roost's, and no roost to join
  global[SPEAKING] = true;
  // roost's concierge (its built-in profile sets it): the concierge's tools too.
  const concierge = job !== null && env.ROOST_CONCIERGE === "1";
  // pi is its job's one speaker: a process pi's tools start (a pi run from pi's bash) must not take
  // the job over, so the job's identity stops here. The socket stays: such a pi joins as its own.
  withoutJob(env);

  let ctx: PiContext | null = null;
  let agent: RoostAgent;
  const row = new PiRow((report) => agent.report(report), usageFileIn(job?.dir ?? null));
  // A job's conversation, from pi's events (pi-conversation.ts); a foreground pi keeps its own.
  const talk = job
    ? new PiConversation(
        new ConversationSender(
          (op, args) => agent.call(op, args),
          () => agent.job,
        ),
      )
    : null;
  const questions = new Questions(row, talk);
  const inbox = new Inbox(pi, () => ctx, questions, row);
  const approvals = new Approvals(approvalList(env), questions);
  const options = {
    ...AGENT,
    capabilities: CAPABILITIES,
    onArrive: (reply: Reply) => inbox.arrive(reply),
    onReply: (reply: Reply) => inbox.taken(reply.seq),
    onItem: (item: Reply) => inbox.taken(item.seq),
    log: (message: string) => ctx?.ui.notify(`roost: ${message}`, "warning"),
  };
  agent = job ? new RoostAgent(job, options) : RoostAgent.foreground({ ...options, socket });
  for (const tool of roostTools(agent, questions)) pi.registerTool(tool);
  if (concierge) {
    for (const tool of conciergeTools(agent)) pi.registerTool(tool);
    followPolicy(pi, agent);
  }

  const thinking = () => pi.getThinkingLevel() ?? null;
  let settling: NodeJS.Timeout | null = null;
  const stopSettling = () => {
    if (settling) clearTimeout(settling);
    settling = null;
  };

  /**
   * Joins roost, off pi's start (a daemon that does not answer must not hold pi up): a foreground
   * pi registers first; a job's waits until the replies waiting for it have come (they come before
   * the first report's answer), and with nothing to take it is ready rather than starting.
   */
  async function join(c: PiContext): Promise<void> {
    if (!job) {
      try {
        const name = pi.getSessionName() ?? `pi ${path.basename(c.cwd)}`;
        const { id } = await agent.register({
          name,
          session: c.sessionManager.getSessionId(),
          cwd: c.cwd,
          pid: process.pid,
        });
        c.ui.notify(`roost: this pi is session ${id}`, "info");
      } catch (err) {
        c.ui.notify(`roost: could not join (${(err as Error).message})`, "warning");
        return;
      }
    } else await agent.call("peers").catch(() => {});
    // Not merely idle: pi, handed its task, is idle for a moment before its run starts.
    if (!inbox.prompted && c.isIdle()) row.ready();
  }

  pi.on("session_start", (_event, c) => {
    ctx = c;
    row.setName(pi.getSessionName() ?? null);
    row.refresh(c, thinking()); // a job's first report: it connects
    void join(c);
  });

  pi.on("session_shutdown", async () => {
    stopSettling();
    global[SPEAKING] = false;
    await agent.close({ timeoutMs: 1000 });
  });

  pi.on("agent_start", () => {
    stopSettling();
    row.working();
  });
  pi.on("turn_start", () => {
    stopSettling();
    row.working();
  });
  pi.on("message_start", (event) => inbox.started(event.message));
  pi.on("message_end", (event, c) => {
    talk?.messageEnded(event.message);
    if (event.message.role !== "assistant") return;
    row.said(event.message);
    row.refresh(c, thinking());
  });
  pi.on("tool_execution_start", (event) => {
    row.toolStarted(event.toolCallId, event.toolName, event.args);
    talk?.toolStarted(event.toolCallId, event.toolName, event.args);
  });
  pi.on("tool_execution_end", (event) => {
    row.toolEnded(event.toolCallId);
    talk?.toolEnded(event.toolCallId, event.toolName, event.result, event.isError);
  });
  pi.on("tool_call", (event, c) => approvals.check(event.toolName, event.input, c, c.signal));
  pi.on("model_select", (_event, c) => {
    row.refresh(c, thinking());
    inbox.modelChanged();
  });
  pi.on("thinking_level_select", (event, c) => row.refresh(c, event.level));

  // The run's end is not yet pi settled (a retry, the queue it still takes): done once it is idle.
  pi.on("agent_end", (event, c) => {
    const last = [...event.messages].reverse().find((m) => m.role === "assistant");
    const error =
      last?.stopReason === "error" ? last.errorMessage || "pi's model answered with an error" : null;
    stopSettling();
    const check = () => {
      settling = null;
      if (!c.isIdle()) {
        settling = setTimeout(check, SETTLE_POLL_MS);
        return;
      }
      row.refresh(c, thinking());
      row.settled(error);
    };
    settling = setTimeout(check, 0);
  });
}
