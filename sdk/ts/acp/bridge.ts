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
import { findJob, ITEM_BATCHES, type Reply, RoostAgent, withoutJob } from "../agent/index.js";
import { RELAY_ENV, serveRelay } from "../agent/tool-relay.js";
import { AcpRow, errorText, modelOf } from "./acp-row.js";
import { endGroup, signalGroup } from "./group.js";
import { Permissions } from "./permissions.js";
import { openSession, SESSION_VARIABLE } from "./resume.js";
import { type AcpSession, Turns } from "./turns.js";

/** What the bridge says it is in `hello` (the agent's own name goes before it). */
const VERSION = "roost-acp/1";
/** Besides report, replies and agent-items (the client's): what the bridge does. */
// Batches: handbacks close together (a fan-in) are one prompt, one turn.
const CAPABILITIES = ["steer", "usage", "context", "model-switch", "peers", ITEM_BATCHES];
/** roost's CLI, as built beside this file: the MCP server the agent starts is `roost mcp`. */
const ROOST_CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../server/cli/main.js");
/** How many of the agent's last stderr lines the bridge keeps, for the reason of a crash. */
const STDERR_LINES = 5;
/** How long the agent has to answer `initialize`: one that speaks no ACP would keep the row starting. */
const INITIALIZE_MS = 60_000;
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
  row.note(`${label} is starting`); // the first report: the job's connection

  const relay = job.dir ? path.join(job.dir, "tools.sock") : null;
  if (relay) await serveRelay(relay, agent).catch((err: Error) => say(`no tool relay: ${err.message}`));

  // The job's identity stays with the bridge: a process the agent starts is not the job. The agent
  // in a process group of its own (group.ts): its end, or a stop, ends what it runs too.
  const env = withoutJob({ ...process.env });
  delete env[SESSION_VARIABLE];
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ["pipe", "pipe", "pipe"],
    env,
    detached: true,
  });
  const group = child.pid;
  const stderr = tailOf(child);
  child.stdin?.on("error", () => {}); // an agent gone mid-write: its close says why

  let stopping = false;
  /** Why the bridge ended the agent itself: its ACP session could not be made. */
  let startError: string | null = null;
  const ended = new Promise<number>((resolve) => {
    child.on("error", (err) => {
      void fail(`${label} could not start: ${err.message}`).then(() => resolve(1));
    });
    // At the agent's exit, not its pipes' close: what it left may hold them open.
    let leftGroup: Promise<number> = Promise.resolve(0);
    child.on("exit", () => {
      if (!stopping && group !== undefined) leftGroup = endGroup(group, STOP_GRACE_MS);
    });
    child.on("close", async (code, signal) => {
      if (stopping) return resolve(0);
      const leftovers = await leftGroup;
      const ended =
        leftovers === 0 ? "" : `; ${leftovers} leftover ${leftovers === 1 ? "process" : "processes"} ended`;
      // The agent's own end says more than the session's failure it caused (its pipe closed).
      const ownEnd = !(startError && signal === "SIGTERM");
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const last = stderr.lines.at(-1);
      const reason = ownEnd
        ? `${label} ${how}${last ? `: ${last}` : ""}${ended}`
        : `${label} did not start its ACP session: ${startError}${ended}`;
      void fail(reason).then(() => resolve(code === 0 && !signal && ownEnd ? 0 : 1));
    });
  });

  /** The agent and its group (one whose group is gone already: the agent alone). */
  function endAgent(signal: NodeJS.Signals): void {
    if (group === undefined || !signalGroup(group, signal)) child.kill(signal);
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
      endAgent("SIGTERM");
      setTimeout(() => endAgent("SIGKILL"), STOP_GRACE_MS).unref();
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
      if (!replaying.now) row.update(params.update);
    })
    .onRequest("session/request_permission", ({ params, signal }) => permissions.ask(params, signal))
    .connect(stream);

  void startSession(connection, relay, row, replaying).then(
    async ({ session, conversation }) => {
      turns.started(session);
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
      // Said once the agent has ended: if it ended by itself, its exit is the reason.
      startError = errorText(err);
      endAgent("SIGTERM");
    },
  );
  return ended;
}

/**
 * `initialize`, and the session in the job's directory (the one it had, or a new one: resume.ts);
 * the session as the turns use it, and as roost keeps it.
 */
async function startSession(
  connection: acp.ClientConnection,
  relay: string | null,
  row: AcpRow,
  replaying: { now: boolean },
): Promise<{ session: AcpSession; conversation: { session: string; resumed: boolean } }> {
  const ctx = connection.agent;
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `no answer to initialize within ${INITIALIZE_MS / 1000} s: does it speak ACP on its stdin and stdout (Gemini CLI needs --acp)?`,
          ),
        ),
      INITIALIZE_MS,
    );
  });
  let init: acp.InitializeResponse;
  try {
    init = await Promise.race([
      silent,
      ctx.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "roost", version: VERSION },
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
  const mcpServers: acp.McpServer[] = relay
    ? [
        {
          name: "roost",
          command: process.execPath,
          args: [ROOST_CLI, "mcp"],
          env: [{ name: RELAY_ENV, value: relay }],
        },
      ]
    : [];
  const canLoad = init.agentCapabilities?.loadSession === true;
  const opened = await openSession(ctx, canLoad, { cwd: process.cwd(), mcpServers }, replaying, say);
  const sessionId = opened.sessionId;
  let { configOptions, modes } = opened;
  row.setModel(modelOf(configOptions));
  const conversation = { session: sessionId, resumed: opened.resumed };
  const session: AcpSession = {
    async prompt(text) {
      const r = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      return r.stopReason;
    },
    cancel() {
      void ctx.notify("session/cancel", { sessionId }).catch(() => {});
    },
    async command(name, arg) {
      const want = arg.toLowerCase();
      const option = configOptions.find((o) => o.category === name && o.type === "select");
      if (option && option.type === "select") {
        const values = option.options.flatMap((o) => ("group" in o ? o.options : [o]));
        const value = values.find((v) => v.value.toLowerCase() === want || v.name.toLowerCase() === want);
        if (!value) return `/${name}: the agent offers ${values.map((v) => v.value).join(", ")}`;
        const r = await ctx.request("session/set_config_option", {
          sessionId,
          configId: option.id,
          value: value.value,
        });
        configOptions = r.configOptions ?? configOptions;
        row.setModel(modelOf(configOptions));
        return null;
      }
      if (name === "mode" && modes) {
        const mode = modes.availableModes.find(
          (m) => m.id.toLowerCase() === want || m.name.toLowerCase() === want,
        );
        if (!mode) return `/mode: the agent offers ${modes.availableModes.map((m) => m.id).join(", ")}`;
        await ctx.request("session/set_mode", { sessionId, modeId: mode.id });
        modes = { ...modes, currentModeId: mode.id };
        return null;
      }
      return `/${name}: this agent offers no ${name} to choose`;
    },
  };
  return { session, conversation };
}

/** The agent's stderr, passed on to the job's terminal, its last lines kept. */
function tailOf(child: ChildProcess): { lines: string[] } {
  const tail = { lines: [] as string[] };
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
