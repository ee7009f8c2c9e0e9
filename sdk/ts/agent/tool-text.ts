/**
 * roost's tools as a model reads them, for every agent that offers them (pi's extension, `roost
 * mcp`): the board's actions from a tool's parameters, the board and the peers as lines of text,
 * and a refusal with the wire's code. One definition, so that pi's `roost_tasks` and an ACP agent's
 * say the same.
 */
import { taskView } from "../protocol/board-view.js";
import type { BoardTask, Peer, SessionOps, TaskResult } from "./session-ops.js";

/** A refusal of roost's (with the wire's code), or a call the tool could not make, as the model reads it. */
export function refusal(tool: string, err: unknown): Error {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  return new Error(e.code ? `${tool}: roost refused (${e.code}): ${message}` : `${tool}: ${message}`);
}

/**
 * A task as one line: `#2 claimed "fix the tests" by j3 "helper" (after #1): its result`. Its word
 * is the one every face shows (`view`, as roost answered it, else `taskView` on `board`): `blocked`
 * for an open task whose `after` is not all done.
 */
export function taskLine(t: BoardTask, board: readonly BoardTask[] = [t]): string {
  const word = t.view ?? taskView(t, board);
  const owner = t.owner ? ` by ${t.owner.id} "${t.owner.name}"` : "";
  const after = t.after.length ? ` (after ${t.after.map((a) => `#${a}`).join(", ")})` : "";
  const detail = t.detail ? `\n    ${t.detail}` : "";
  return `#${t.id} ${word} "${t.title}"${owner}${after}${t.result ? `: ${t.result}` : ""}${detail}`;
}

/** The board's answer as the model reads it: the task acted on, then the board. */
export function boardText(r: Pick<TaskResult, "tasks" | "task" | "duplicate">): string {
  const board = r.tasks.length ? r.tasks.map((t) => taskLine(t, r.tasks)).join("\n") : "(the board is empty)";
  const dup = r.duplicate ? " (this was done already: nothing changed)" : "";
  return r.task ? `${taskLine(r.task, r.tasks)}${dup}\n\nThe board:\n${board}` : board;
}

/** A session as one line: `j3 "helper" (pi) working: reading the code [child of j1] [you]`. */
export const peerLine = (p: Peer): string =>
  `${p.id} "${p.name}" (${p.profile ?? p.kind}) ${p.state}${p.summary ? `: ${p.summary}` : ""}${p.parent ? ` [child of ${p.parent}]` : ""}${p.self ? " [you]" : ""}`;

/** `roost_tasks`'s parameters: one action on the board. */
export interface BoardParams {
  action?: unknown;
  id?: unknown;
  title?: unknown;
  detail?: unknown;
  after?: unknown;
  result?: unknown;
}

/** The board's actions a tool offers. */
export const BOARD_ACTIONS = ["list", "add", "claim", "done", "release"] as const;

/**
 * `roost_tasks`: one action on the board, as the session `ops` speaks for. A claim without an id
 * takes the next task the session may claim. `requestId`: the tool call's, so that a call made
 * again (its answer lost to a restart) adds or claims nothing twice.
 */
export async function boardAction(
  ops: SessionOps,
  p: BoardParams,
  requestId?: string,
): Promise<Pick<TaskResult, "tasks" | "task" | "duplicate">> {
  const rid = requestId ? { requestId } : {};
  const need = (what: unknown, name: string) => {
    if (what === undefined || what === null || what === "")
      throw new Error(`${String(p.action)} needs ${name}`);
    return String(what);
  };
  switch (p.action) {
    case "list":
      return { tasks: await ops.tasks() };
    case "add":
      return ops.addTask(need(p.title, "a title"), {
        ...(typeof p.detail === "string" ? { detail: p.detail } : {}),
        ...(Array.isArray(p.after) ? { after: p.after.map(String) } : {}),
        ...rid,
      });
    case "claim":
      return p.id === undefined || p.id === null || p.id === "" || p.id === "next"
        ? ops.claimNext(rid)
        : ops.claimTask(String(p.id));
    case "done":
      return ops.taskDone(need(p.id, "an id"), typeof p.result === "string" ? p.result : undefined);
    case "release":
      return ops.releaseTask(need(p.id, "an id"));
    default:
      throw new Error(`no action ${JSON.stringify(p.action)}: ${BOARD_ACTIONS.join(", ")}`);
  }
}
