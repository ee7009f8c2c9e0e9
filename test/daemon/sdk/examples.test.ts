/** The example agents as built-in profiles: `dispatch example-py` works with nothing configured. */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { INERT, session } from "../../helpers/board.js";
import { type DaemonHere, startDaemonHere } from "../../helpers/daemon-here.js";
import { untilRow } from "../../helpers/jobs.js";

let d: DaemonHere;
afterEach(async () => d?.cleanup());

for (const profile of ["example-py", "example-ts"]) {
  describe(profile, () => {
    it("runs the task's steps, asks before the destructive one, goes on on yes, ends done", async () => {
      d = await startDaemonHere();
      const c = await d.client();
      const work = d.env.HOME!;
      const task = "echo made-by-the-example > note.txt; rm note.txt";
      const { job } = await c.ok("dispatch", { profile, task, cwd: work });
      const blocked = await untilRow(c, job.id, "asking before rm", (r) => r.state === "blocked", 20000);
      expect(blocked.kind).toBe("protocol");
      expect(blocked.question).toContain("rm note.txt");
      expect(blocked.choices).toEqual(["yes", "no"]);
      expect(fs.readFileSync(path.join(work, "note.txt"), "utf8")).toBe("made-by-the-example\n");
      await c.ok("reply", { id: job.id, text: "yes" });
      await untilRow(c, job.id, "done", (r) => r.state === "done", 20000);
      expect(fs.existsSync(path.join(work, "note.txt"))).toBe(false);
    });
  });
}

describe("the example agents together (delegate:)", () => {
  it("example-ts delegates to example-py: the helper asks, is answered, hands back; the parent's next report is its result", async () => {
    d = await startDaemonHere();
    const c = await d.client();
    const work = d.env.HOME!;
    const task = "delegate: echo made-by-the-helper > note.txt; rm note.txt";
    const { job } = await c.ok("dispatch", { profile: "example-ts", task, cwd: work });
    const waiting = await untilRow(
      c,
      job.id,
      "waiting for its helper",
      (r) => /^waiting for helper/.test(r.summary ?? ""),
      20000,
    );
    const helperId = /^waiting for helper (j\d+) \(example-py\)/.exec(waiting.summary)![1]!;
    const helper = await untilRow(
      c,
      helperId,
      "the helper asking before rm",
      (r) => r.state === "blocked",
      20000,
    );
    expect(helper).toMatchObject({ parent: job.id, profile: "example-py", question: "Run `rm note.txt`?" });
    expect(fs.readFileSync(path.join(helper.cwd, "note.txt"), "utf8")).toBe("made-by-the-helper\n");
    await c.ok("reply", { id: helperId, text: "yes" });
    const parent = await untilRow(
      c,
      job.id,
      "done with the helper's result, the handback acked",
      // The agent acks an item once its handler returned, so its report comes first.
      (r) => r.state === "done" && r.pending === 0,
      20000,
    );
    expect(parent.summary).toBe(`helper ${helperId} handed back: ran 2 steps`);
    const ended = await untilRow(
      c,
      helperId,
      "stopped once it handed back",
      (r) => r.life === "stopped",
      20000,
    );
    expect(ended).toMatchObject({ state: "done", summary: "ran 2 steps" });
    const kinds = (await c.ok("events", {})).events.map((e: any) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(["spawn", "handback", "notice"]));
  });

  it("example-py delegates to example-ts: the helper runs, hands back; the parent's next report is its result", async () => {
    d = await startDaemonHere();
    const c = await d.client();
    const { job } = await c.ok("dispatch", {
      profile: "example-py",
      task: "delegate: echo from-ts",
      cwd: d.env.HOME!,
    });
    const parent = await untilRow(
      c,
      job.id,
      "done with the helper's result",
      (r) => r.state === "done",
      20000,
    );
    const [, helperId] = /^helper (j\d+) handed back: /.exec(parent.summary)!;
    expect(parent.summary).toBe(`helper ${helperId} handed back: ran 1 step: echo from-ts → ok (from-ts)`);
    const helper = await untilRow(
      c,
      helperId!,
      "stopped once it handed back",
      (r) => r.life === "stopped",
      20000,
    );
    expect(helper).toMatchObject({ parent: job.id, profile: "example-ts", state: "done" });
    // The parent goes on: a follow-up is its next task.
    await c.ok("reply", { id: job.id, text: "echo again" });
    await untilRow(c, job.id, "the next task done", (r) => r.summary === "ran 1 step: again", 20000);
  });
});

describe("the example agents work one board (tasks)", () => {
  it("example-py and example-ts take the board's tasks: each done exactly once, in an order that respects after; another session's task only noted", async () => {
    d = await startDaemonHere({ config: { agentProfiles: { inert: INERT } } });
    const c = await d.client();
    const work = d.env.HOME!;
    const ready = async (profile: string) => {
      const { job } = await c.ok("dispatch", { profile, task: "echo ready", cwd: work });
      await untilRow(c, job.id, `${profile} ready`, (r) => r.state === "done", 20000);
      return job.id as string;
    };
    const agents = [await ready("example-py"), await ready("example-ts")];

    // Ten tasks, some waiting on others: each appends its number to order.txt, slowly enough
    // that both agents have work at once.
    const after: Record<number, number[]> = { 3: [1], 4: [1, 2], 5: [3], 6: [4], 7: [5, 6], 9: [7] };
    for (let n = 1; n <= 10; n++)
      await c.ok("task", {
        action: "add",
        title: `step ${n}`,
        detail: `sleep 0.2; echo ${n} >> order.txt`,
        ...(after[n] ? { after: after[n] } : {}),
      });
    // One more, added by another session: its detail is not the user's, so it is not run.
    const stranger = await session(d, c, "stranger");
    await stranger.c.ok("task", { action: "add", title: "step 11", detail: "echo 11 >> order.txt" });
    for (const id of agents) await c.ok("reply", { id, text: "tasks" });
    const summaries = [];
    for (const id of agents)
      summaries.push(
        (
          await untilRow(
            c,
            id,
            "done with the board",
            (r) => r.state === "done" && /^worked the board/.test(r.summary ?? ""),
            60000,
          )
        ).summary as string,
      );

    const { tasks } = await c.ok("task", { action: "list" });
    expect(tasks.map((t: any) => t.state)).toEqual(Array(11).fill("done"));
    expect(tasks[10].result).toBe("noted, not run: added by stranger, a session (no authority)");
    // Each done once, by one of the two; both took some.
    const owners = new Set(tasks.map((t: any) => t.owner.id));
    expect([...owners].sort()).toEqual([...agents].sort());
    const doneEntries = (await c.ok("events", { limit: 1000 })).events.filter(
      (e: any) => e.kind === "task" && e.why === "done",
    );
    expect(
      doneEntries.map((e: any) => Number(/^#(\d+) /.exec(e.text)![1])).sort((a: number, b: number) => a - b),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const did = summaries.flatMap((s) => [...s.matchAll(/#(\d+)/g)].map((m) => Number(m[1])));
    expect(did.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // Run in an order that respects after: each after its own, claimed only once they were done.
    const order = fs.readFileSync(path.join(work, "order.txt"), "utf8").trim().split("\n").map(Number);
    expect([...order].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const byId = new Map<number, any>(tasks.map((t: any) => [t.id, t]));
    for (const [n, before] of Object.entries(after))
      for (const b of before) {
        expect(order.indexOf(b), `${b} before ${n}`).toBeLessThan(order.indexOf(Number(n)));
        expect(Date.parse(byId.get(Number(n)).claimedAt)).toBeGreaterThanOrEqual(
          Date.parse(byId.get(b).doneAt),
        );
      }
    // Each result says what its step came to.
    expect(byId.get(7).result).toBe("sleep 0.2 → ok; echo 7 >> order.txt → ok");
  });
});
