/**
 * `roost mcp`: roost's tools (the peer ops and the task board) as an MCP server over stdio, for the
 * agent of a job roost runs (docs/agents.md). roost's ACP bridge passes it to its agent in
 * `session/new`, with the session's tool relay in the environment; a terminal agent (Claude Code,
 * Codex) starts it from its own MCP configuration, with the job's identity in its environment.
 * Every call acts as that job.
 */

import { RELAY_ENV } from "../../../sdk/ts/agent/tool-relay.js";
import { ROOST_VERSION } from "../../version.js";
import { CliError, type Command } from "../command.js";

export const mcp: Command = {
  name: "mcp",
  arity: [0, 0],
  json: false,
  summary:
    "Serve roost's tools (peers, send, spawn, handback, watch, the task board) to a job's agent, as MCP over stdio.",
  details: [
    "Started by the agent of a job roost runs, never by hand: it acts as that job. An ACP profile",
    `passes it in session/new (through the relay named in ${RELAY_ENV}); a terminal agent starts`,
    "it from its own MCP configuration (claude mcp add roost -- roost mcp), and it speaks for the",
    "job named in its environment (ROOST_JOB_ID, ROOST_JOB_TOKEN, ROOST_SOCKET). The tools:",
    "roost_peers, roost_send, roost_spawn, roost_handback, roost_watch, roost_tasks. A refusal of",
    "roost's is a tool error with the wire's code.",
  ].join("\n"),
  examples: [
    "roost mcp   # as an agent starts it: an ACP job's from session/new, a terminal agent's from its MCP configuration",
    "claude mcp add --scope user roost -- roost mcp   # Claude Code jobs in roost get roost's tools",
    "codex mcp add roost -- roost mcp                 # Codex's",
  ],
  async run({ env }) {
    // Loaded here, not with the CLI: the MCP SDK and zod would slow every other command's start.
    const { toolSessionOf, serveMcp } = await import("../../../sdk/ts/mcp/server.js");
    const session = toolSessionOf(env);
    if (!session)
      throw new CliError(
        `neither ${RELAY_ENV} nor ROOST_JOB_ID is set: roost mcp serves the tools of a job roost runs, started by that job's agent (an ACP profile's, or a terminal agent's MCP configuration), not by hand`,
      );
    await serveMcp(session, { version: ROOST_VERSION, cwd: process.cwd() });
    return 0;
  },
};
