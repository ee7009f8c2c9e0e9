/**
 * The ACP session a job's agent works in (docs/agents.md, "Resumed conversations"): the one it had
 * before, where roost gave it back (`ROOST_AGENT_SESSION`, the session the bridge said in its last
 * run's `hello`) and the agent can load one (`loadSession` in its `initialize` answer), through
 * `session/load`; else a new one (`session/new`). An agent replays a loaded session's messages as
 * `session/update` notifications before it answers: those are history, not the row's, so the
 * bridge holds them back meanwhile (`replaying`).
 */
import type * as acp from "@agentclientprotocol/sdk";

/** The environment variable the daemon gives the agent's earlier session in. */
export const SESSION_VARIABLE = "ROOST_AGENT_SESSION";

type Agent = acp.ClientConnection["agent"];

export interface Opened {
  sessionId: string;
  /** It went on with the session roost gave back. */
  resumed: boolean;
  configOptions: acp.SessionConfigOption[];
  modes: acp.SessionModeState | null;
  /** The agent's answer as it came (what the SDK's types lack: `models`). */
  answer: unknown;
}

export async function openSession(
  agent: Agent,
  canLoad: boolean,
  params: { cwd: string; mcpServers: acp.McpServer[] },
  replaying: { now: boolean },
  say: (message: string) => void,
): Promise<Opened> {
  const earlier = process.env[SESSION_VARIABLE];
  if (earlier && canLoad) {
    replaying.now = true;
    try {
      const loaded = await agent.request("session/load", { sessionId: earlier, ...params });
      return {
        sessionId: earlier,
        resumed: true,
        configOptions: loaded.configOptions ?? [],
        modes: loaded.modes ?? null,
        answer: loaded,
      };
    } catch (err) {
      // A session the agent no longer has (its store cleared): a new conversation, said in the terminal.
      say(`session/load of ${earlier} failed (${(err as Error).message}): a new session`);
    } finally {
      replaying.now = false;
    }
  } else if (earlier) say(`the agent cannot load a session (no loadSession): a new session`);
  const created = await agent.request("session/new", { cwd: params.cwd, mcpServers: params.mcpServers });
  return {
    sessionId: created.sessionId,
    resumed: false,
    configOptions: created.configOptions ?? [],
    modes: created.modes ?? null,
    answer: created,
  };
}
