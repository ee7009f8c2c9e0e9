/**
 * `roost mcp` (docs/agents.md): roost's tools for any agent that takes MCP servers, over stdio,
 * through the official MCP SDK. The tools are a session's (the peer ops and the task board), so
 * each call acts as the job: through the tool relay of roost's ACP bridge (`ROOST_TOOLS_SOCKET`,
 * for an ACP job's agent, which never holds the job's token), or on roost's socket with
 * `speak_for` and the job's identity (a terminal agent's, whose environment has it). A refusal
 * of roost's comes back as a tool error whose text has the wire's code, so the model can read
 * what to do.
 */
import path from "node:path";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import {
  BOARD_ACTIONS,
  boardAction,
  boardText,
  CONCIERGE_CALLS,
  type ConciergeCall,
  findJob,
  POLICY_TOOLS,
  peerLine,
  policyNow,
  RELAY_ENV,
  refusal,
  type SessionOps,
  ToolSession,
} from "../agent/index.js";

const text = (value: unknown): CallToolResult => ({
  content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }],
});

/** A concierge call's parameters as the MCP SDK takes them (zod), optional but for the required. */
function shapeOf(call: ConciergeCall): z.ZodRawShape {
  return Object.fromEntries(
    Object.entries(call.params).map(([key, p]) => {
      const base =
        p.type === "number"
          ? z.number()
          : p.choices
            ? z.enum(p.choices as [string, ...string[]])
            : z.string();
      const described = base.describe(p.description);
      return [key, call.required.includes(key) ? described : described.optional()];
    }),
  );
}

/**
 * The MCP server of roost's tools, for the session `ops` speaks for (not yet connected); the
 * concierge's own too (`concierge`: the session is roost's concierge), with the tools its policy
 * takes away disabled (`POLICY_TOOLS`: asked at `follow`, and again after each call, so that a
 * change from the hub is listed anew; the daemon refuses them all the same).
 */
export function roostMcpServer(
  ops: SessionOps,
  opts: { version: string; cwd: string; concierge?: boolean },
): { server: McpServer; follow: () => Promise<void> } {
  const server = new McpServer({ name: "roost", version: opts.version });
  const registered = new Map<string, RegisteredTool>();
  const follow = async () => {
    if (!opts.concierge) return;
    const policy = await policyNow(ops);
    if (!policy) return; // roost away: the tools stay as they were
    for (const [name, needs] of Object.entries(POLICY_TOOLS)) {
      const t = registered.get(name);
      if (t && t.enabled !== needs(policy)) (needs(policy) ? t.enable : t.disable).call(t);
    }
  };
  /** A tool whose call is one call of the session's: its refusal returned as a tool error. */
  const tool = <Shape extends z.ZodRawShape>(
    name: string,
    description: string,
    inputSchema: Shape,
    run: (args: z.infer<z.ZodObject<Shape>>) => Promise<unknown>,
  ) => {
    const t = server.registerTool(name, { description, inputSchema }, (async (
      args: z.infer<z.ZodObject<Shape>>,
    ) => {
      try {
        return text(await run(args));
      } catch (err) {
        return { ...text(refusal(name, err).message), isError: true };
      } finally {
        await follow();
      }
    }) as never);
    registered.set(name, t);
    // The concierge's gated tools wait for roost's word on the policy (`follow`): the start's allows none.
    if (opts.concierge && name in POLICY_TOOLS) t.disable();
  };

  tool(
    "roost_peers",
    "List the other sessions (agents) roost runs: id, name, profile, state, what each is doing, and whose child it is. Yours is marked [you].",
    {},
    async () => (await ops.peers()).map(peerLine).join("\n"),
  );
  tool(
    "roost_send",
    "Send a message to another session (an id or a unique name from roost_peers). mode steer interrupts its work; followUp (the default) waits until it is done.",
    {
      to: z.string().describe("the session's id (j3) or name"),
      text: z.string().describe("the message"),
      mode: z.enum(["steer", "followUp"]).optional().describe("steer: urgent"),
    },
    ({ to, text: message, mode }) => ops.send(to, message, mode ? { mode } : {}),
  );
  tool(
    "roost_spawn",
    "Start a helper session (a child) with a task: a roost profile (yours unless said), the task, and optionally its name and working directory. Its handback comes back to you as a message; use roost_watch to be told when it stops.",
    {
      task: z.string().describe("what the helper is to do"),
      profile: z.string().optional().describe("the roost profile to run (default: your own)"),
      name: z.string().optional().describe("a name for the helper"),
      cwd: z.string().optional().describe("its working directory (absolute; default: yours)"),
    },
    async ({ task, profile, name, cwd }) => {
      const own = profile || (await ops.peers()).find((p) => p.self)?.profile;
      if (!own) throw new Error("say which profile: this session has none of its own");
      const { job } = await ops.spawn({
        profile: own,
        task,
        ...(name ? { name } : {}),
        cwd: cwd || opts.cwd,
      });
      return `started ${job.id} "${job.name}" (${job.profile}): its handback will come to you as a message`;
    },
  );
  tool(
    "roost_handback",
    "Give your result to the session that started you (your parent). done (the default, true) ends this session once the parent has it; done false hands back a part and goes on.",
    {
      text: z.string().describe("the result"),
      done: z.boolean().optional().describe("true (default): this ends your session"),
    },
    ({ text: result, done }) => ops.handback(result, done === undefined ? {} : { done }),
  );
  tool(
    "roost_watch",
    "Be told once (a notice message) when a session next stops (when: idle: done, a question, failed, stopped) or has ended (when: ended). children true (no id): when the last of your children is in (when: handback or ended), their handbacks with that notice.",
    {
      id: z.string().optional().describe("the session's id or name (not with children)"),
      children: z.boolean().optional().describe("true: all your children, not one session"),
      when: z.enum(["idle", "ended", "handback"]).describe("idle or ended; with children, handback or ended"),
    },
    ({ id, children, when }) =>
      children === true
        ? ops.watchChildren(when === "ended" ? "ended" : "handback")
        : ops.watch(id ?? "", when === "ended" ? "ended" : "idle"),
  );
  tool(
    "roost_tasks",
    "The shared task board: action list (every task), add (title, detail, after: ids it waits for), claim (without an id: roost gives you the oldest task you may take now, or says none is left; with an id: that one), done (id, result), release (id: give it back). A task shown blocked waits for its after tasks to be done.",
    {
      action: z.enum(BOARD_ACTIONS),
      id: z
        .union([z.string(), z.number()])
        .optional()
        .describe("the task's id (done, release; claim: leave it out to take the next task)"),
      title: z.string().optional().describe("a new task's title (add)"),
      detail: z.string().optional().describe("a new task's detail (add)"),
      after: z
        .array(z.union([z.string(), z.number()]))
        .optional()
        .describe("ids the new task waits for (add)"),
      result: z.string().optional().describe("what came of it (done)"),
    },
    async (p) => boardText(await boardAction(ops, p)),
  );
  if (opts.concierge)
    for (const call of CONCIERGE_CALLS)
      tool(call.name, call.description, shapeOf(call), (p) => call.run(ops, p as Record<string, unknown>));
  return { server, follow };
}

/**
 * The session whose tools `roost mcp` serves here: an ACP job's through its bridge's relay, else
 * the job in the environment (a terminal agent's) on roost's socket; null when there is neither.
 */
export function toolSessionOf(env: NodeJS.ProcessEnv): ToolSession | null {
  const relay = env[RELAY_ENV];
  if (relay && path.isAbsolute(relay)) return new ToolSession(relay);
  const job = findJob(env);
  if (!job) return null;
  return new ToolSession(job.socket, { op: "speak_for", args: { id: job.id, token: job.token } });
}

/** Serves roost's tools over stdio, as the session `ops` speaks for, until the agent closes the connection. */
export async function serveMcp(ops: ToolSession, opts: { version: string; cwd: string }): Promise<void> {
  // The concierge's own tools for the concierge alone (the daemon refuses them to any other).
  const concierge = await ops.peers().then(
    (peers) => peers.find((p) => p.self)?.role === "concierge",
    () => false,
  );
  const { server, follow } = roostMcpServer(ops, { ...opts, concierge });
  await follow(); // its first list of tools as the policy now allows
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  ops.close();
}
