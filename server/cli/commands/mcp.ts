/**
 * `roost mcp`: roost's tools (the peer ops and the task board) as an MCP server over stdio, for the
 * agent of a job roost runs (docs/agents.md). roost's ACP bridge passes it to its agent in
 * `session/new`, with the session's tool relay in the environment; the agent starts it, and every
 * call acts as that job.
 */

import { RELAY_ENV } from "../../../sdk/ts/agent/index.js";
import { ROOST_VERSION } from "../../version.js";
import { CliError, type Command } from "../command.js";

export const mcp: Command = {
  name: "mcp",
  arity: [0, 0],
  json: false,
  summary:
    "Serve roost's tools (peers, send, spawn, handback, watch, the task board) to a job's agent, as MCP over stdio.",
  details: [
    "Started by the agent of a job roost runs (an ACP profile passes it in session/new), never by",
    `hand: it acts as that job, through the relay named in ${RELAY_ENV}. The tools: roost_peers,`,
    "roost_send, roost_spawn, roost_handback, roost_watch, roost_tasks. A refusal of roost's is a",
    "tool error with the wire's code.",
  ].join("\n"),
  examples: ["roost mcp   # started by an ACP job's agent, as roost's ACP bridge tells it in session/new"],
  async run({ env }) {
    // Loaded here, not with the CLI: the MCP SDK and zod would slow every other command's start.
    const { relayOf, serveMcp } = await import("../../../sdk/ts/mcp/server.js");
    const relay = relayOf(env);
    if (!relay)
      throw new CliError(
        `${RELAY_ENV} is not set (or not an absolute path): roost mcp serves the tools of a job roost runs through its ACP bridge (a profile with "acp": true), which starts the agent with it`,
      );
    await serveMcp(relay, { version: ROOST_VERSION, cwd: process.cwd() });
    return 0;
  },
};
