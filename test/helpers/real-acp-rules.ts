/**
 * The core loop of a real ACP agent inside roost, the same cases for each agent (claude-acp,
 * codex-acp, gemini: test/agents/real/), against the scripted model. What differs between them is
 * said by the agent's `RealAgentSpec`: how its model calls a shell command and roost's tools, and
 * the permission options the agent itself offers for each.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { until } from "./daemon.js";
import { REAL_WAIT, type RealAcpWorld, untilSettled } from "./real-acp.js";
import type { ToolCall } from "./scripted-model.js";

export interface RealAgentSpec {
  /** The agent's shell tool as its model calls it, asking to run `command` (asking permission). */
  shell(command: string): ToolCall;
  /** One of roost's MCP tools (`roost_tasks`) as its model calls it. */
  roostTool(name: string, args: Record<string, unknown>): ToolCall;
  /** The options the agent offers for a command (`command` in them where it says it). */
  shellChoices(command: string): string[];
  /** The options it offers for an MCP tool's call, and the one that allows it once. */
  mcpChoices: string[];
  mcpAllow: string;
  /** The option that allows once, by name; and its number among `shellChoices`. */
  allow: string;
  allowNumber: number;
  /**
   * `false`: the agent announces a call it asks permission for only in the request (no `tool_call`
   * of its own before it runs it). Its own file has the test of what the row should say then.
   */
  announcesTools?: false;
}

/** Waits until the row shows the tool running (its title naming `what`), and returns it. */
export async function untilToolShown(w: RealAcpWorld, id: string, what: string): Promise<any> {
  const running = await w.until(id, "the tool running", (r) => r.state === "working" && r.tool !== null);
  expect(running).toMatchObject({ status: "busy", question: null, tool: expect.stringContaining(what) });
  return running;
}

/** Waits for the row to be blocked on a permission request, and returns it. */
const untilBlocked = (w: RealAcpWorld, id: string) =>
  w.until(id, "blocked on a permission", (r) => r.state === "blocked" || r.state === "failed");

export function realAcpRules(world: () => RealAcpWorld, spec: RealAgentSpec): void {
  it("a task: blocked with the agent's own options, a reply by name runs the tool, done with the answer; a follow-up, allowed by number", async () => {
    const w = world();
    w.model.script(
      "loop",
      { text: "Writing one.", tools: [spec.shell("echo one | tee one.txt")] },
      { text: "Wrote one.txt." },
      // This one waits for the test's word, so that the row is seen while the tool runs.
      {
        text: "Writing two.",
        tools: [spec.shell("until [ -f go ]; do sleep 0.1; done; echo two | tee two.txt")],
      },
      { text: "Wrote two.txt." },
    );
    const { id, work } = await w.dispatch("[loop] write one.txt");
    const blocked = await untilBlocked(w, id);
    expect(blocked).toMatchObject({
      state: "blocked",
      status: "waiting",
      waitingFor: "question",
      choices: spec.shellChoices("echo one | tee one.txt"),
      pending: 0,
    });
    expect(blocked.question).toContain("echo one | tee one.txt");
    expect(fs.existsSync(path.join(work, "one.txt"))).toBe(false);

    await w.c.ok("reply", { id, text: spec.allow });
    expect(await untilSettled(w, id)).toMatchObject({
      state: "done",
      summary: "Wrote one.txt.",
      question: null,
      choices: [],
      error: null,
      life: "running",
    });
    expect(fs.readFileSync(path.join(work, "one.txt"), "utf8")).toBe("one\n");
    expect(w.model.requestsFor("loop")[1]!.toolResults.join("\n")).toContain("one");

    // A follow-up is the agent's next prompt, in the same session.
    await w.c.ok("reply", { id, text: "now write two.txt" });
    await w.until(id, "blocked again", (r) => r.state === "blocked" && r.question?.includes("two.txt"));
    await w.c.ok("reply", { id, text: String(spec.allowNumber) });
    if (spec.announcesTools !== false) await untilToolShown(w, id, "two.txt");
    else await w.until(id, "the tool let go", (r) => r.state === "working" && r.question === null);
    fs.writeFileSync(path.join(work, "go"), "");
    expect(await w.until(id, "the follow-up done", (r) => r.summary === "Wrote two.txt.")).toMatchObject({
      state: "done",
      status: "idle",
      pending: 0,
    });
    expect(fs.readFileSync(path.join(work, "two.txt"), "utf8")).toBe("two\n");
    const reqs = w.model.requestsFor("loop");
    expect(reqs).toHaveLength(4);
    // The follow-up came after the first turn, its answer and all, in one conversation.
    expect(reqs[2]!.text).toContain("now write two.txt");
    expect(reqs[2]!.text).toContain("Wrote one.txt.");
    expect(reqs[3]!.toolResults.join("\n")).toContain("two");
  });

  it("a reply that names no option rejects the request and reaches the agent as its next prompt", async () => {
    const w = world();
    w.model.script(
      "reject",
      { text: "Removing it.", tools: [spec.shell("rm -f keep.txt")] },
      // The rejected call ends that turn or is answered in it: the agent then reads why.
      (req) => ({ text: req.text.includes("keep that file") ? "Kept it." : "Told no." }),
      (req) => ({ text: req.text.includes("keep that file") ? "Kept it." : "Told no." }),
    );
    const { id, work } = await w.dispatch("[reject] remove keep.txt");
    fs.writeFileSync(path.join(work, "keep.txt"), "kept\n");
    await untilBlocked(w, id);
    await w.c.ok("reply", { id, text: "no: keep that file" });
    expect(
      await w.until(id, "the reply answered", (r) => r.summary === "Kept it." && r.pending === 0),
    ).toMatchObject({
      state: "done",
    });
    expect(fs.readFileSync(path.join(work, "keep.txt"), "utf8")).toBe("kept\n");
  });

  it("roost's tools reach the board: a task the agent adds is on it, added by its job", async () => {
    const w = world();
    const title = "a task from the agent";
    w.model.script(
      "board",
      { text: "Adding the task.", tools: [spec.roostTool("roost_tasks", { action: "add", title })] },
      { text: "Added." },
    );
    const { id } = await w.dispatch("[board] put a task on the board");
    const blocked = await untilBlocked(w, id);
    expect(blocked.choices).toEqual(spec.mcpChoices);
    await w.c.ok("reply", { id, text: spec.mcpAllow });
    expect(await untilSettled(w, id)).toMatchObject({ state: "done", summary: "Added." });
    const { tasks } = await w.c.ok("task", { action: "list" });
    expect(tasks.find((t: any) => t.title === title)).toMatchObject({ state: "open", by: { whoId: id } });
    // The tool's answer (roost's text, the task's number) went back to the model (as the agent
    // wraps it: Codex as JSON).
    const result = w.model.requestsFor("board")[1]!.toolResults.join("\n");
    expect(result).toMatch(/#\d+ open/);
    expect(result).toContain(title);
  });

  it("the job's conversation: the task, the model's thinking, the tool call, the answer", async () => {
    const w = world();
    w.model.script(
      "talk",
      {
        thinking: "The file wants one line.",
        text: "Writing it.",
        tools: [spec.shell("echo said | tee said.txt")],
      },
      { text: "It is written." },
    );
    const { id } = await w.dispatch("[talk] write said.txt");
    await untilBlocked(w, id);
    await w.c.ok("reply", { id, text: spec.allow });
    await w.until(id, "answered", (r) => r.state === "done" && r.summary === "It is written.");
    // The conversation is written as the agent streams: its answer's end comes with the turn's.
    const entries = await until(
      "the answer in the conversation",
      async () => {
        const { entries } = await w.c.ok("conversation", { id });
        return entries.some((e: any) => e.kind === "message" && e.text === "It is written.") ? entries : null;
      },
      REAL_WAIT,
    );
    const said = (kind: string) => entries.filter((e: any) => e.kind === kind);
    expect(said("message")[0]).toMatchObject({ role: "user", text: "[talk] write said.txt" });
    expect(
      said("thinking")
        .map((e: any) => e.text)
        .join(""),
    ).toContain("The file wants one line.");
    const tool = said("tool").at(-1);
    expect(tool.tool.status).toBe("completed");
    expect(JSON.stringify(tool)).toContain("said.txt");
    expect(said("message").at(-1)).toMatchObject({ role: "agent", text: "It is written." });
  });
}
