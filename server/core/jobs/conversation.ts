/**
 * A job's conversation across the starts of its agent (docs/agents.md, "Resumed conversations"):
 * what roost keeps of it and hands back at the next start (a `respawn`, a reply to a job that
 * ended, a crash's), so that an agent that can goes on where it was:
 *
 * - pi: a session file of the job's own, `--session <job dir>/pi-session.jsonl` at every start. pi
 *   opens the file when it is there (pi writes it once its model has first answered) and begins a
 *   session at that path when it is not; so the file says which it was.
 * - an agent that says which session it is in (`hello`'s `conversation`: the ACP bridge, after
 *   `session/new` or `session/load`): the session is given back as `ROOST_AGENT_SESSION`, and the
 *   agent says whether it went on with it.
 * - Claude Code, Codex and Gemini CLI in a terminal: their hooks are installed for the job
 *   (agent-hooks.ts), and the session their `SessionStart` hook says is resumed at the next start
 *   (`--resume ID`); until a hook has said one, a start is a new conversation.
 * - another agent CLI in a terminal (a profile with `messages`: aider): roost learns no session of
 *   its, so each start is a new conversation, and the row says so.
 */
import fs from "node:fs";
import path from "node:path";
import type { Row } from "../../../sdk/ts/protocol/index.js";
import { jobDir, type Paths } from "../../paths.js";
import type { Conversation, JobRecord } from "../../store/records.js";
import { withHooks } from "./agent-hooks.js";

/** pi's session file, in the job's directory. */
export const PI_SESSION_FILE = "pi-session.jsonl";
/** The environment variable an agent finds its session in (one it said in `hello`). */
export const AGENT_SESSION_VARIABLE = "ROOST_AGENT_SESSION";

/** pi's own ways to choose its session: a profile that names one keeps it, and roost adds none. */
const PI_SESSION_FLAGS: ReadonlySet<string> = new Set([
  "--session",
  "--continue",
  "-c",
  "--resume",
  "-r",
  "--no-session",
  "--fork",
]);

const isPi = (command: readonly string[]): boolean => path.basename(command[0] ?? "") === "pi";

/** How a start begins the job's conversation: the command to run, what to add to its environment, and the record's. */
export interface Beginning {
  command: string[];
  env: Record<string, string>;
  conversation: Conversation | null;
}

/** The start's command and environment, and the conversation it begins or goes on with. */
export function beginConversation(paths: Paths, rec: JobRecord, env: NodeJS.ProcessEnv): Beginning {
  const { command, protocol, messages } = rec.launch;
  const before = rec.conversation;
  if (protocol && isPi(command) && !command.some((arg) => PI_SESSION_FLAGS.has(arg))) {
    const file = path.join(jobDir(paths, rec.id), PI_SESSION_FILE);
    const resumed = (fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 0;
    return {
      command: [command[0]!, "--session", file, ...command.slice(1)],
      env: {},
      conversation: { how: "pi", session: file, resumed },
    };
  }
  if (protocol && before?.how === "agent" && before.session !== null)
    return {
      command: [...command],
      env: { [AGENT_SESSION_VARIABLE]: before.session },
      conversation: { ...before, resumed: null }, // until its agent says
    };
  if (!protocol && rec.launch.hooks) {
    const session = before?.how === "agent" ? before.session : null;
    const hooked = withHooks(jobDir(paths, rec.id), rec.launch, session, env);
    const conversation: Conversation =
      session === null
        ? { how: "new", session: null, resumed: false }
        : { how: "agent", session, resumed: null };
    return { ...hooked, conversation }; // resumed: until its hook says
  }
  if (!protocol && messages === true)
    return { command: [...command], env: {}, conversation: { how: "new", session: null, resumed: false } };
  return { command: [...command], env: {}, conversation: null };
}

/** What an agent said of its conversation (`hello`): true if that changed the record. */
export function agentConversation(rec: JobRecord, said: { session: string; resumed: boolean }): boolean {
  const before = rec.conversation;
  if (before?.how === "pi") return false; // roost named pi's session itself
  if (before?.how === "agent" && before.session === said.session && before.resumed === said.resumed)
    return false;
  rec.conversation = { how: "agent", session: said.session, resumed: said.resumed };
  return true;
}

/** The row's word for it. */
export function conversationWord(c: Conversation | null): Row["conversation"] {
  if (!c || c.resumed === null) return null;
  return c.resumed ? "resumed" : "new";
}

/** What the feed's `start` entry adds about it. */
export function conversationText(c: Conversation | null): string {
  const word = conversationWord(c);
  if (word === null) return "";
  return word === "resumed" ? "; its conversation resumed" : "; a new conversation";
}
