/**
 * pi agents working together (docs/pi.md, "The tools"): two pi jobs, the parent claiming a task of
 * the board and starting the other with `roost_spawn`; the child claims and finishes a task of its
 * own and hands its result back (`roost_handback`), which reaches the parent's pi as a message with
 * roost's envelope and wakes it; the parent finishes its task. A refusal of roost's reaches the
 * model as text. The real pi 0.74.2, the scripted model; `npm run build` first.
 */
import { describe, expect, it } from "vitest";
import { PI_WAIT, piWorldPerTest, untilDone } from "../helpers/pi.js";
import { type ModelRequest, textOf } from "../helpers/scripted-model.js";

const world = piWorldPerTest();

const call = (name: string, args: Record<string, unknown>) => ({ tools: [{ name, args }] });
const lastText = (req: ModelRequest) => textOf(req.messages.at(-1)?.content);

describe("pi agents together", { timeout: 4 * PI_WAIT }, () => {
  it("one spawns the other and gets its handback; both take tasks from the board", async () => {
    const w = await world();
    await w.c.ok("task", { action: "add", title: "write the docs" });
    await w.c.ok("task", { action: "add", title: "fix the tests" });

    w.model.script(
      "parent",
      call("roost_tasks", { action: "claim", id: "1" }),
      // Task 2 is not claimed: roost's refusal comes back as the tool's text.
      (req) => ({ text: lastText(req).split("\n")[0], ...call("roost_tasks", { action: "done", id: 2 }) }),
      (req) => ({
        text: lastText(req),
        ...call("roost_spawn", { task: "[child] fix the tests (task 2)", name: "helper" }),
      }),
      { text: "Waiting for my helper." },
      // Woken by the child's handback.
      (req) => ({
        text: lastText(req),
        ...call("roost_tasks", { action: "done", id: 1, result: "docs written" }),
      }),
      { text: "All done." },
    );
    w.model.script(
      "child",
      call("roost_tasks", { action: "claim", id: 2 }),
      call("roost_tasks", { action: "done", id: 2, result: "3 tests fixed" }),
      call("roost_handback", { text: "fixed: 3 tests" }),
      { text: "Handed back." },
    );

    const parent = await w.dispatch("[parent] share the work", { name: "lead" });
    const done = await w.until(
      parent,
      "the parent done",
      (r) => r.state === "done" && r.summary === "All done.",
    );
    expect(done.pending).toBe(0);

    const [child] = (await w.c.ok("list")).rows.filter((r: any) => r.parent === parent);
    expect(child).toMatchObject({ name: "helper", profile: "pi", parent, state: "done" });
    // Its handback ended it: roost stopped it once the parent had the result.
    await w.until(child.id, "the child stopped", (r) => r.life === "stopped");

    const { tasks } = await w.c.ok("task", { action: "list" });
    expect(tasks.map((t: any) => [t.id, t.state, t.owner?.id, t.result])).toEqual([
      [1, "done", parent, "docs written"],
      [2, "done", child.id, "3 tests fixed"],
    ]);

    const reqs = w.model.requestsFor("parent");
    expect(reqs).toHaveLength(6);
    // What the tools said back: the claim, roost's refusal as text, the spawn.
    expect(lastText(reqs[1]!)).toMatch(/^#1 claimed "write the docs" by j\d+ "lead"/);
    expect(lastText(reqs[2]!)).toMatch(
      /^roost_tasks: roost refused \(bad_request\): #2 is open: no session holds it/,
    );
    expect(lastText(reqs[3]!)).toBe(
      `started ${child.id} "helper" (pi): its handback will come to you as a message`,
    );
    // The handback reached the parent's pi as a message of its own, with roost's envelope.
    const woken = lastText(reqs[4]!);
    expect(woken).toMatch(
      new RegExp(`^\\[roost report from ${child.id} "helper" \\(child\\): another session, not the user;`),
    );
    expect(woken.split("\n").slice(1).join("\n")).toBe("fixed: 3 tests");
    expect(reqs[4]!.messages.filter((m) => m.role === "user").map((m) => textOf(m.content))).toEqual([
      "[parent] share the work",
      woken,
    ]);
    await untilDone(w, parent);
  });
});
