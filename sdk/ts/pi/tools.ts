/**
 * The `roost_*` tools pi's model calls: the peer ops, the task board and a question to the user,
 * each a thin call through the agent client. A refusal comes back to the model as text (pi marks a
 * tool that throws as an error and gives the model its message): the wire's code and what roost
 * said, so the model can read what to do.
 */
import type { RoostAgent } from "../agent/index.js";
import { boardAction, boardText, peerLine, refusal } from "../agent/tool-text.js";
import type { PiContext, PiTool, PiToolResult } from "./pi-api.js";
import { answerText, type Questions } from "./questions.js";

export type Params = Record<string, unknown>;

export const str = (description: string) => ({ type: "string", description });
export const schema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

const text = (value: unknown): PiToolResult => ({
  content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }],
  details: typeof value === "string" ? {} : value,
});

/**
 * A request id from pi's tool call id, for what a call makes (a spawn, a message, a handback, a
 * task added or claimed): the client sends it again if roost restarts before it answers, and a call
 * pi makes again is one spawn, one message.
 */
export const requestIdOf = (toolCallId: string) =>
  `pi-${toolCallId.replace(/[^A-Za-z0-9_.:-]/g, "_")}`.slice(0, 64);

/** A tool whose execute is one call: its refusal thrown as the model's text. */
export const tool = (
  def: Omit<PiTool, "execute">,
  run: (p: Params, toolCallId: string, ctx: PiContext, signal?: AbortSignal) => Promise<unknown>,
): PiTool => ({
  ...def,
  async execute(toolCallId, params, signal, _onUpdate, ctx) {
    try {
      return text(await run(params, toolCallId, ctx, signal));
    } catch (err) {
      throw refusal(def.name, err);
    }
  },
});

/** The tools, for an agent that speaks for this pi (a job, or a registered foreground pi). */
export function roostTools(agent: RoostAgent, questions: Questions): PiTool[] {
  return [
    tool(
      {
        name: "roost_peers",
        label: "roost peers",
        description:
          "List the other sessions (agents) roost runs: id, name, profile, state, what each is doing, and whose child it is. Yours is marked self.",
        promptSnippet: "List the other agent sessions roost runs",
        parameters: schema({}),
      },
      async () => {
        const peers = await agent.peers();
        return peers.map(peerLine).join("\n");
      },
    ),
    tool(
      {
        name: "roost_send",
        label: "roost send",
        description:
          "Send a message to another session (an id or a unique name from roost_peers). mode steer interrupts its work; followUp (the default) waits until it is done.",
        promptSnippet: "Message another agent session",
        parameters: schema(
          {
            to: str("the session's id (j3) or name"),
            text: str("the message"),
            mode: { type: "string", enum: ["steer", "followUp"], description: "steer: urgent" },
          },
          ["to", "text"],
        ),
      },
      (p, toolCallId) =>
        agent.send(String(p.to), String(p.text), {
          ...(p.mode === "steer" || p.mode === "followUp" ? { mode: p.mode } : {}),
          requestId: requestIdOf(toolCallId),
        }),
    ),
    tool(
      {
        name: "roost_spawn",
        label: "roost spawn",
        description:
          "Start a helper session (a child) with a task: a profile (pi by default), the task, and optionally its name and working directory. worktree true gives it a git worktree of its own on a new branch (so that it does not change your files; its work is merged later). It reports back with its handback; use roost_watch to be told when it stops.",
        promptSnippet: "Start a helper agent session with a task",
        parameters: schema(
          {
            task: str("what the helper is to do"),
            profile: str("the roost profile to run (default: pi)"),
            name: str("a name for the helper"),
            cwd: str("its working directory (absolute; default: yours)"),
            worktree: {
              type: "boolean",
              description: "true: in a git worktree of its own, on a new branch roost/<id>",
            },
          },
          ["task"],
        ),
      },
      async (p, toolCallId, ctx) => {
        const { job } = await agent.spawn({
          profile: typeof p.profile === "string" && p.profile ? p.profile : "pi",
          task: String(p.task),
          ...(typeof p.name === "string" && p.name ? { name: p.name } : {}),
          cwd: typeof p.cwd === "string" && p.cwd ? p.cwd : ctx.cwd,
          ...(p.worktree === true ? { worktree: true } : {}),
          requestId: requestIdOf(toolCallId),
        });
        const on = job.worktree ? ` on branch ${job.worktree.branch} in ${job.worktree.path}` : "";
        return `started ${job.id} "${job.name}" (${job.profile})${on}: its handback will come to you as a message`;
      },
    ),
    tool(
      {
        name: "roost_handback",
        label: "roost handback",
        description:
          "Give your result to the session that started you (your parent). done (the default, true) ends this session once the parent has it; done false hands back a part and goes on.",
        promptSnippet: "Hand your result back to the session that started you",
        parameters: schema(
          {
            text: str("the result"),
            done: { type: "boolean", description: "true (default): this ends your session" },
          },
          ["text"],
        ),
      },
      (p, toolCallId) =>
        agent.handback(String(p.text), {
          ...(typeof p.done === "boolean" ? { done: p.done } : {}),
          requestId: requestIdOf(toolCallId),
        }),
    ),
    tool(
      {
        name: "roost_watch",
        label: "roost watch",
        description:
          "Be told once (a notice message) when a session next stops (when: idle: done, a question, failed, stopped) or has ended (when: ended). children true (no id): when the last of your children is in (when: handback or ended); their handbacks come with that notice, as one message, so end your turn and wait for it.",
        promptSnippet: "Be told when another session stops or ends, or when all your children are in",
        parameters: schema(
          {
            id: str("the session's id or name (not with children)"),
            children: { type: "boolean", description: "true: all your children, not one session" },
            when: {
              type: "string",
              enum: ["idle", "ended", "handback"],
              description: "idle or ended; with children, handback or ended",
            },
          },
          ["when"],
        ),
      },
      (p) =>
        p.children === true
          ? agent.watchChildren(p.when === "ended" ? "ended" : "handback")
          : agent.watch(String(p.id), p.when === "ended" ? "ended" : "idle"),
    ),
    tool(
      {
        name: "roost_tasks",
        label: "roost tasks",
        description:
          "The shared task board: action list (every task), add (title, detail, after: ids it waits for), claim (without an id: roost gives you the oldest task you may take now, or says none is left; with an id: that one), done (id, result), release (id: give it back). A task shown blocked waits for its after tasks to be done.",
        promptSnippet: "The shared task board: list, add, claim (the next task for you), done, release",
        parameters: schema(
          {
            action: { type: "string", enum: ["list", "add", "claim", "done", "release"] },
            id: str("the task's id (done, release; claim: leave it out to take the next task)"),
            title: str("a new task's title (add)"),
            detail: str("a new task's detail (add)"),
            after: {
              type: "array",
              items: { type: "string" },
              description: "ids the new task waits for (add)",
            },
            result: str("what came of it (done)"),
          },
          ["action"],
        ),
      },
      async (p, toolCallId) => boardText(await boardAction(agent, p, requestIdOf(toolCallId))),
    ),
    tool(
      {
        name: "roost_ask",
        label: "roost ask",
        description:
          "Ask the user a question and wait for the answer (they may be away: roost shows the question wherever they are). Give choices when the answer is one of a few.",
        promptSnippet: "Ask the user a question and wait for the answer",
        parameters: schema(
          {
            question: str("the question"),
            choices: { type: "array", items: { type: "string" }, description: "the answers to offer" },
          },
          ["question"],
        ),
      },
      async (p, _id, ctx, signal) => {
        const choices = Array.isArray(p.choices) ? p.choices.map(String).filter(Boolean) : [];
        const answer = await questions.answerOf(String(p.question), choices, ctx, signal);
        return answer === null ? "The user dismissed the question without answering." : answerText(answer);
      },
    ),
  ];
}
