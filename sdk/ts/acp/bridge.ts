#!/usr/bin/env node
/**
 * roost's ACP bridge (docs/agents.md): an ACP agent as a protocol agent. A profile with `"acp":
 * true` runs this in the job's terminal with the agent's command after it (`bridge.js gemini
 * --acp`); the bridge starts the agent with its stdin and stdout as the Agent Client Protocol (its
 * stderr still goes to the job's terminal and transcript), speaks ACP to it through the official
 * SDK as a client, and speaks roost's protocol for the job through the agent client:
 *
 * - `initialize`, then `session/new` in the job's working directory, with roost's tools as an MCP
 *   server (`roost mcp`, reaching the session's connection through the tool relay);
 * - `session/update` → the row (acp-row.ts); `session/request_permission` → the row blocked with
 *   the agent's options (permissions.ts); replies and peer items → `session/prompt`, a steer as
 *   `session/cancel` and a new prompt (turns.ts);
 * - the agent's end, whenever it comes, ends the job: a crash with its reason on the row.
 *
 * The daemon knows nothing of ACP: to it this is a protocol agent like any other, which also means
 * that a daemon restart leaves the job running (the pty host holds the bridge, the bridge holds the
 * agent's pipes) and the agent client reconnects by itself.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import {
  ConversationSender,
  findJob,
  ITEM_BATCHES,
  type Reply,
  RoostAgent,
  TRANSCRIPT,
  withoutJob,
} from "../agent/index.js";
import { serveRelay } from "../agent/tool-relay.js";
import { AcpConversation } from "./acp-conversation.js";
import { AcpRow, answered, errorText } from "./acp-row.js";
import { endGroup, signalGroup } from "./group.js";
import { Permissions } from "./permissions.js";
import { SESSION_VARIABLE } from "./resume.js";
import { startSession } from "./session.js";
import { Turns } from "./turns.js";

/** What the bridge says it is in `hello` (the agent's own name goes before it). */
const VERSION = "roost-acp/1";
/** Besides report, replies and agent-items (the client's): what the bridge does. */
// Batches: handbacks close together (a fan-in) are one prompt, one turn.
const CAPABILITIES = ["steer", "usage", "context", "model-switch", "peers", ITEM_BATCHES, TRANSCRIPT];
/** roost's CLI, as built beside this file: the MCP server the agent starts is `roost mcp`. */
const ROOST_CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../server/cli/main.js");
/** How many of the agent's last stderr lines the bridge keeps, for the reason of a crash. */
const STDERR_LINES = 5;
/** How long the bridge waits for the agent's last stderr lines once it has exited (its reason). */
const STDERR_SETTLE_MS = 300;
/** A session that failed because the connection closed: how long the agent has to exit (its reason). */
const GONE_WAIT_MS = 1000;
/** Gemini CLI's own switch for a trusted folder; the bridge sets it unless the profile did. */
const GEMINI_TRUST = "GEMINI_CLI_TRUST_WORKSPACE";
/** How long a stopped agent has to end before it is killed. */
const STOP_GRACE_MS = 3000;

const say = (message: string) => process.stderr.write(`roost-acp: ${message}\n`);

/** Programs that run an agent's script: the agent is named after the script. */
const INTERPRETERS = new Set(["node", "nodejs", "bun", "deno", "python", "python3", "npx", "tsx"]);

/** The agent's name, as the row and hello say it: `gemini`, `claude-agent-acp`, or a script's (`node x.mjs` is `x`). */
export function agentName(command: string[]): string {
  const program = path.basename(command[0]!);
  const script = command.slice(1).find((a) => !a.startsWith("-"));
  return INTERPRETERS.has(program) && script
    ? path.basename(script).replace(/\.(c|m)?(j|t)s$|\.py$/, "")
    : program;
}

async function main(): Promise<number> {
  const command = process.argv.slice(2);
  if (command.length === 0) {
    say("usage: bridge.js COMMAND [ARGS...]: the ACP agent to run");
    return 64;
  }
  const job = findJob(process.env);
  if (!job) {
    say(
      "the ACP bridge runs as a job of roost's (ROOST_JOB_ID is not set): dispatch a profile with acp: true",
    );
    return 64;
  }
  const label = agentName(command);

  let agent: RoostAgent;
  const row = new AcpRow((report) => agent.report(report), label);
  const permissions = new Permissions(row);
  const turns = new Turns(row, permissions);
  const options = {
    name: label,
    version: VERSION,
    capabilities: CAPABILITIES,
    onArrive: (reply: Reply) => turns.arrive(reply),
    onReply: (reply: Reply) => turns.taken(reply.seq),
    onItem: (item: Reply) => turns.taken(item.seq),
    log: say,
  };
  agent = new RoostAgent(job, options);
  // The conversation in the hub (acp-conversation.ts): the updates, prompts and permissions as entries.
  const talk = new AcpConversation(
    new ConversationSender(
      (op, args) => agent.call(op, args),
      () => agent.job,
      say,
    ),
  );
  row.note(`${label} is starting`); // the first report: the job's connection

  const relay = job.dir ? path.join(job.dir, "tools.sock") : null;
  if (relay) await serveRelay(relay, agent).catch((err: Error) => say(`no tool relay: ${err.message}`));

  // The job's identity stays with the bridge: a process the agent starts is not the job. The agent
  // in a process group of its own (group.ts): its end, or a stop, ends what it runs too. Gemini
  // CLI starts roost's tools (a stdio MCP server) only in a folder it trusts: the job's is.
  const env = withoutJob({ ...process.env });
  delete env[SESSION_VARIABLE];
  env[GEMINI_TRUST] ??= "true";
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ["pipe", "pipe", "pipe"],
    env,
    detached: true,
  });
  const group = child.pid;
  const stderr = tailOf(child);
  child.stdin?.on("error", () => {}); // an agent gone mid-write: its exit says why

  let stopping = false;
  const ended = new Promise<number>((resolve) => {
    child.on("error", (err) => {
      void fail(`${label} could not start: ${err.message}`).then(() => resolve(1));
    });
    // At the exit of the process roost started, not its pipes' close: what it left (an npm
    // wrapper's agent, Gemini CLI's relaunched self) holds them, and may ignore SIGTERM.
    child.on("exit", async (code, signal) => {
      const rest =
        group === undefined ? { left: 0, gone: Promise.resolve() } : endGroup(group, STOP_GRACE_MS);
      if (stopping) return rest.gone.then(() => resolve(0));
      await stderr.settled(STDERR_SETTLE_MS); // its last words, if it said any
      const leftovers =
        rest.left === 0 ? "" : `; ${rest.left} leftover ${rest.left === 1 ? "process" : "processes"} ended`;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const last = stderr.lines.at(-1);
      await fail(`${label} ${how}${last ? `: ${last}` : ""}${leftovers}`);
      await rest.gone;
      resolve(code === 0 && !signal ? 0 : 1);
    });
  });

  /** SIGTERM to the agent and its group, SIGKILL to what is left after the grace. */
  function endAgent(): void {
    if (group === undefined || !signalGroup(group, "SIGTERM")) child.kill("SIGTERM");
    setTimeout(() => {
      if (group === undefined || !signalGroup(group, "SIGKILL")) child.kill("SIGKILL");
    }, STOP_GRACE_MS).unref();
  }

  /** The job ends with the agent: its reason on the row, said before the bridge goes (once). */
  let failing: Promise<void> | null = null;
  function fail(reason: string): Promise<void> {
    failing ??= failNow(reason);
    return failing;
  }
  async function failNow(reason: string): Promise<void> {
    permissions.cancelAll();
    row.ended(reason);
    say(reason);
    await agent.close({ timeoutMs: 2000 });
  }

  for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const)
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      endAgent();
    });

  const replaying = { now: false };
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
  );
  const connection = acp
    .client({ name: "roost" })
    // A loaded session's history, replayed as updates, is not the row's (resume.ts).
    .onNotification("session/update", ({ params }) => {
      if (replaying.now) return;
      row.update(params.update);
      talk.update(params.update);
    })
    .onRequest("session/request_permission", ({ params, signal }) =>
      talk.asked(params, permissions.ask(params, signal)),
    )
    .connect(stream);

  const mcp = relay ? { command: process.execPath, args: [ROOST_CLI, "mcp"], relay } : null;
  void startSession({ connection, version: VERSION, mcp, row, replaying, env, say }).then(
    async ({ session, conversation }) => {
      turns.started(talk.prompts(session));
      // Said to roost, which gives the session back at the job's next start (a daemon older than
      // `conversation` refuses it: nothing is lost but the resuming).
      void agent.call("hello", { protocol: 1, conversation }).catch(() => {});
      // The replies waiting for the job came before the first report's answer; any call after
      // it is answered after them. With nothing to do, the agent is ready for a task. Not merely
      // idle: a first turn may have ended already, and its answer is the row's.
      await agent.call("peers").catch(() => {});
      if (!turns.prompted) row.ready();
    },
    (err: unknown) => {
      // The agent's refusal (a missing key, a login it wants) is the row's at once, and the agent
      // goes. The connection's end is no answer: the agent's exit says why, unless it stays up.
      const reason = `${label} did not start its ACP session: ${errorText(err)}`;
      const wait = answered(err) ? 0 : GONE_WAIT_MS;
      setTimeout(() => {
        if (failing) return;
        endAgent();
        void fail(reason);
      }, wait);
    },
  );
  return ended;
}

/** The agent's stderr, passed on to the job's terminal, its last lines kept. */
function tailOf(child: ChildProcess): { lines: string[]; settled(ms: number): Promise<void> } {
  let over = false;
  const ends = new Set<() => void>();
  const tail = {
    lines: [] as string[],
    /** Resolves at the pipe's end, or after `ms` (what the agent left may hold it open). */
    settled: (ms: number) =>
      over
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            ends.add(resolve);
            setTimeout(resolve, ms);
          }),
  };
  let partial = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk);
    const text = partial + chunk.toString("utf8");
    const parts = text.split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts.map((l) => l.trim()).filter(Boolean)) tail.lines.push(line);
    tail.lines.splice(0, Math.max(0, tail.lines.length - STDERR_LINES));
  });
  child.stderr?.on("end", () => {
    if (partial.trim()) tail.lines.push(partial.trim());
    over = true;
    for (const end of ends) end();
  });
  return tail;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    say(`failed: ${err.stack ?? err.message}`);
    process.exit(1);
  },
);
