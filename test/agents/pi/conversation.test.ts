/**
 * A pi job's conversation (docs/protocol.md, "The conversation"; docs/pi.md): roost's extension
 * turns pi's events into entries (sdk/ts/pi/pi-conversation.ts): the task and each reply, the
 * model's words, each tool call with its input when it starts and its result when it ends, a
 * question asked on the row and its answer. The real pi against the scripted model; the hub reads
 * it and `roost log` prints it. `npm run build` first (the profile loads the built extension).
 */
import { describe, expect, it } from "vitest";
import { roost } from "../../helpers/cli.js";
import { until } from "../../helpers/daemon.js";
import { PI_WAIT, piWorldPerTest, untilDone } from "../../helpers/pi.js";

const world = piWorldPerTest();

/** The conversation once an entry of it says `last` (its text, or its tool's output). */
async function entriesUntil(w: any, id: string, last: string): Promise<any[]> {
  return until(
    `"${last}" in ${id}'s conversation`,
    async () => {
      const { entries } = await w.c.ok("conversation", { id });
      return entries.some((e: any) => e.text === last || e.tool?.output === last) ? entries : undefined;
    },
    PI_WAIT,
  );
}

describe("a pi job's conversation", { timeout: 4 * PI_WAIT }, () => {
  it("holds the task, the model's words, each tool call with its input and result, the question and its answer, a follow-up", async () => {
    const w = await world();
    w.model.script(
      "c1",
      { text: "Let me count.", tools: [{ name: "bash", args: { command: "echo 3 files" } }] },
      { tools: [{ name: "roost_ask", args: { question: "Delete them?", choices: ["yes", "no"] } }] },
      { text: "Kept them." },
      { text: "You are welcome." },
    );
    const id = await w.dispatch("[c1] count the files");
    await w.until(id, "blocked on the question", (r) => r.state === "blocked");
    await w.c.ok("reply", { id, text: "no" });
    await untilDone(w, id);
    const entries = await entriesUntil(w, id, "Kept them.");
    const said = entries.map((e) => [
      e.kind,
      e.role ?? e.tool?.status ?? null,
      e.text ?? e.tool?.output ?? null,
    ]);
    expect(said).toEqual([
      ["message", "user", "[c1] count the files"],
      ["message", "agent", "Let me count."],
      ["tool", "running", "bash: echo 3 files"],
      ["tool", "completed", "3 files"],
      ["tool", "running", "roost_ask: Delete them?"],
      ["ask", null, "Delete them?"],
      ["answer", "user", "no"],
      ["tool", "completed", "The user answered: no"],
      ["message", "agent", "Kept them."],
    ]);
    expect(JSON.parse(entries[2].tool.input)).toEqual({ command: "echo 3 files" });
    expect(entries[5].choices).toEqual(["yes", "no"]);
    expect(entries[3].tool).toMatchObject({ id: entries[2].tool.id, name: "bash" });

    // A follow-up: the user's words and the answer, after the rest.
    await w.c.ok("reply", { id, text: "thanks" });
    const more = await entriesUntil(w, id, "You are welcome.");
    expect(more.slice(entries.length).map((e) => [e.role, e.text])).toEqual([
      ["user", "thanks"],
      ["agent", "You are welcome."],
    ]);
    expect((await w.c.ok("list", { id })).rows[0].capabilities).toContain("transcript");
    const log = await roost(["log", id], { ...process.env, ROOST_HOME: w.d.home } as Record<string, string>);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain("tool bash: bash: echo 3 files (completed)");
    expect(log.stdout).toContain("asks: Delete them?\n    1. yes  2. no");
  });
});
