/**
 * An ACP job's conversation (docs/protocol.md, "The conversation"): roost's ACP bridge turns the
 * agent's session updates into entries (sdk/ts/acp/acp-conversation.ts), with the prompts it sends
 * and the permission asked and answered; the hub reads them, hears of them as they come, and
 * `roost log` prints them. The agent is a real ACP agent on the official SDK whose one turn says
 * all a conversation holds (test/fixtures/acp-talk-agent.mjs). `npm run build` first.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ACP_WAIT, acpProfile, acpWorldPerTest } from "../../helpers/acp.js";
import { roost } from "../../helpers/cli.js";
import { FIXTURES, until } from "../../helpers/daemon.js";

const TALK = acpProfile({ command: [process.execPath, path.join(FIXTURES, "acp-talk-agent.mjs")] });

/** The job's conversation once it holds `n` entries at least. */
async function entries(c: any, id: string, n: number): Promise<any[]> {
  return until(
    `${n} entries in ${id}'s conversation`,
    async () => {
      const r = await c.ok("conversation", { id });
      return r.entries.length >= n ? r.entries : undefined;
    },
    ACP_WAIT,
  );
}

describe("an ACP job's conversation", { timeout: 3 * ACP_WAIT }, () => {
  const world = acpWorldPerTest({ profiles: { talk: TALK } });

  it("holds the prompt, the thought and the message joined, the plan, the tool call with its input and output, the ask and its answer, the diff; a follow-up too", async () => {
    const w = await world();
    const sub = await w.d.client();
    await sub.ok("subscribe", {});
    const { id } = await w.dispatch("edit", { profile: "talk" });
    const blocked = await w.until(id, "blocked on the edit", (r) => r.state === "blocked");
    expect(blocked.choices).toEqual(["Allow once", "Reject"]);
    // While it asks, the hub has what came before it, pushed as it came.
    await sub.event((e) => e.event === "conversation" && e.id === id, "a conversation push");
    const before = await entries(w.c, id, 6);
    expect(before.map((e) => e.kind)).toEqual(["message", "thinking", "message", "plan", "tool", "ask"]);
    expect(before[0]).toMatchObject({ role: "user", text: "edit" });
    expect(before[1]).toMatchObject({
      role: "agent",
      text: "The file says colour; the project spells it color.",
    });
    expect(before[2]).toMatchObject({ role: "agent", text: "I'll rename it in a.txt." });
    expect(before[3].plan).toEqual([
      { text: "rename colour", status: "in_progress" },
      { text: "run the tests", status: "pending" },
    ]);
    expect(before[4]).toMatchObject({
      kind: "tool",
      text: "Edit a.txt",
      tool: { id: "e1", name: "edit", status: "pending" },
    });
    expect(JSON.parse(before[4].tool.input)).toEqual({ path: "a.txt", old: "colour = 1", new: "color = 1" });
    expect(before[5]).toMatchObject({
      kind: "ask",
      text: "Allow: Edit a.txt?",
      choices: ["Allow once", "Reject"],
    });

    await w.c.ok("reply", { id, text: "1" }); // by its number
    await w.until(id, "done", (r) => r.state === "done" && r.summary === "Renamed.");
    const all = await entries(w.c, id, 12);
    expect(all.slice(6).map((e) => [e.kind, e.text ?? e.tool?.status ?? e.diff?.path])).toEqual([
      ["answer", "Allow once"],
      ["tool", "Edit a.txt"],
      ["tool", "Edit a.txt"],
      ["diff", "a.txt"],
      ["plan", undefined],
      ["message", "Renamed."],
    ]);
    expect(all[6].role).toBe("user");
    expect(all.slice(7, 9).map((e) => e.tool.status)).toEqual(["running", "completed"]);
    expect(all[8].tool.output).toBe("1 line changed");
    expect(all[9].diff).toEqual({ path: "a.txt", old: "x = 0\ncolour = 1", new: "x = 0\ncolor = 1" });
    expect(all.map((e) => e.n)).toEqual(all.map((_, i) => i + 1));

    // A follow-up: the user's words, and the agent's answer.
    await w.c.ok("reply", { id, text: "thanks" });
    const more = await entries(w.c, id, 14);
    expect(more.slice(12).map((e) => [e.role, e.text])).toEqual([
      ["user", "thanks"],
      ["agent", "heard: thanks"],
    ]);

    // The row's capabilities say it keeps one; roost log prints it, the tool call once.
    expect((await w.c.ok("list", { id })).rows[0].capabilities).toContain("transcript");
    const log = await roost(["log", id], { ...process.env, ROOST_HOME: w.d.home } as Record<string, string>);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout.match(/tool edit: Edit a\.txt \(completed\)/g)).toHaveLength(1);
    expect(log.stdout).toContain("    - colour = 1\n    + color = 1");
    expect(log.stdout).toContain("you answered: Allow once");
  });
});
