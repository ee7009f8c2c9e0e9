/**
 * `roost hook AGENT EVENT`: run by a terminal agent's own hooks, which roost installs for each job
 * of the `claude`, `codex` and `gemini-cli` profiles (core/jobs/agent-hooks.ts): it reads the
 * hook's JSON on stdin (Codex's `notify`: its last argument), says what it means to the daemon
 * (`hook`, for the job named in its environment) and exits 0. It must never hold the agent up nor
 * fail it: it gives up after a few seconds, and says nothing to the agent, whatever happened (a
 * daemon that is down, a job that ended, an input it does not know).
 */
import type { HookAgent } from "../../../sdk/ts/protocol/index.js";
import type { Command } from "../command.js";
import { callOnce } from "../connect.js";
import { claudeSaid } from "../hooks/claude.js";
import { claudeTranscript } from "../hooks/claude-conversation.js";
import { codexSaid } from "../hooks/codex.js";
import { codexTranscript } from "../hooks/codex-conversation.js";
import { geminiSaid } from "../hooks/gemini.js";
import { geminiTranscript } from "../hooks/gemini-conversation.js";
import type { HookInput, HookSaid } from "../hooks/said.js";
import { sendTranscript, type TranscriptParser } from "../hooks/transcript.js";
import { io } from "../io.js";

/** How long a hook may take in all: reading its input, and the daemon's answer. */
const GIVE_UP_MS = 3000;
/** A hook's input past this is not read (Claude Code's are a few KB; a tool's input may be more). */
const MAX_INPUT = 4 * 1024 * 1024;

const READERS: Record<HookAgent, (event: string, input: HookInput) => HookSaid | null> = {
  claude: claudeSaid,
  codex: codexSaid,
  gemini: geminiSaid,
};

/** Each agent's transcript reader: its conversation, sent as its transcript grows. */
const TRANSCRIPTS: Record<HookAgent, TranscriptParser> = {
  claude: claudeTranscript,
  codex: codexTranscript,
  gemini: geminiTranscript,
};

/** The agents, for what `roost hook` says (the schema set's list would load typebox at the CLI's start). */
const AGENTS = Object.keys(READERS).join(", ");

export const hook: Command = {
  name: "hook",
  args: "AGENT EVENT [JSON]",
  arity: [2, 3],
  json: false,
  summary: "Tell roost what a terminal agent's hook saw (run by the agent's hooks in a job, not by hand).",
  details: [
    `AGENT is one of ${AGENTS}; EVENT the hook's event as the agent names it`,
    "(PreToolUse, Stop, BeforeTool …). The hook's JSON is read on stdin, or given as JSON (Codex's",
    "notify). It speaks for the job named in its environment (ROOST_JOB_ID, ROOST_JOB_TOKEN,",
    "ROOST_SOCKET), always exits 0 and prints nothing: a hook never holds up nor fails its agent.",
  ].join("\n"),
  examples: ["roost hook claude PreToolUse < input.json   # as Claude Code runs it, in a job roost runs"],
  async run({ positionals: [agent, event, arg], env }) {
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), GIVE_UP_MS);
    });
    try {
      // Late: what is still under way (a daemon that does not answer) is dropped with the process.
      if ((await Promise.race([say(agent!, event!, arg, env), giveUp])) === "late") process.exit(0);
    } catch (err) {
      // On stderr only: the agent shows it in its own log, if anywhere, and goes on.
      io().stderr.write(`roost hook: ${(err as Error).message}\n`);
    } finally {
      clearTimeout(timer);
    }
    return 0;
  },
};

async function say(
  agent: string,
  event: string,
  arg: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const read = READERS[agent as HookAgent];
  if (!Object.hasOwn(READERS, agent) || !read)
    throw new Error(`no agent ${JSON.stringify(agent)}: roost knows the hooks of ${AGENTS}`);
  const id = env.ROOST_JOB_ID;
  const token = env.ROOST_JOB_TOKEN;
  const input = JSON.parse(arg ?? (await stdin())) as unknown;
  if (!id || !token) return; // the agent runs outside roost (its settings copied): nothing to say
  if (input === null || typeof input !== "object") throw new Error("the hook's input is not a JSON object");
  const said = read(event, input as HookInput);
  if (said) await callOnce(env, "hook", { id, token, ...said });
  // The agent's transcript, as the job's conversation (transcript.ts): what it gained.
  const transcript = (input as HookInput).transcript_path;
  const parser = TRANSCRIPTS[agent as HookAgent];
  if (typeof transcript === "string" && transcript !== "" && env.ROOST_JOB_DIR)
    await sendTranscript(env.ROOST_JOB_DIR, transcript, parser, (entries, requestId) =>
      callOnce(env, "conversation-append", { id, token, entries, requestId }),
    );
}

/** The hook's input, whole (a terminal on stdin gives none). */
async function stdin(): Promise<string> {
  if (process.stdin.isTTY) return "{}";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_INPUT) throw new Error(`the hook's input is over ${MAX_INPUT} bytes: not read`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
