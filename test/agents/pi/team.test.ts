/**
 * A team of pi agents, end to end (issue 33's "Done when"; docs/pi.md, "Peers and the task board"
 * and "A pi started again"): a parent fans out to four children and waits for them all
 * (`roost_watch {children: true}`); each child takes the next task of the board (`claim` without
 * an id; the last task waits on the first, `after`), two ask the user, all hand back. The daemon
 * is killed with -9 while two children wait on their questions and another's tool call is on its
 * way, and one child is respawned: its conversation goes on from its session file. In the end the
 * parent took one turn for the fan-in, each task was done once by its own child, there are four
 * children, and no model read `disconnected`. The real pi 0.74.2, the scripted model; `npm run
 * build` first.
 */
import { describe, expect, it } from "vitest";
import { until } from "../../helpers/daemon.js";
import { row, untilRow } from "../../helpers/jobs.js";
import { PI_WAIT, piWorldPerTest, untilRequests } from "../../helpers/pi.js";
import type { RawClient } from "../../helpers/raw-client.js";
import { type ModelRequest, type Step, textOf } from "../../helpers/scripted-model.js";

const world = piWorldPerTest();

const call = (name: string, args: Record<string, unknown>) => ({ tools: [{ name, args }] });
const lastText = (req: ModelRequest) => textOf(req.messages.at(-1)?.content);
const userTexts = (req: ModelRequest) =>
  req.messages.filter((m) => m.role === "user").map((m) => textOf(m.content));

/** A promise the test lets go of: the scripted model holds a child's step on it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

const KIDS = ["k1", "k2", "k3", "k4"] as const;
type Kid = (typeof KIDS)[number];
/** The two that ask the user before they finish. */
const ASKS: Kid[] = ["k1", "k2"];

describe("a team of pi agents through a kill -9 of the daemon", { timeout: 8 * PI_WAIT }, () => {
  it("fans out to four, each claims the next task, two ask, all hand back; the parent takes one turn for them", async () => {
    const w = await world();
    for (const title of ["survey", "alpha", "beta"]) await w.c.ok("task", { action: "add", title });
    await w.c.ok("task", { action: "add", title: "wrap up", after: [1] });

    // Each child's claim waits for the test, so the board hands them out in an order it knows.
    const claims = Object.fromEntries(KIDS.map((k) => [k, gate()])) as Record<Kid, ReturnType<typeof gate>>;
    // k4's `done` waits too: it is let go just before the kill, to be on its way across it.
    const k4Done = gate();
    const taskOf: Partial<Record<Kid, number>> = {};
    for (const kid of KIDS) {
      const steps: Step[] = [
        async () => {
          await claims[kid].wait;
          return call("roost_tasks", { action: "claim" });
        },
      ];
      const claimed = (req: ModelRequest) => {
        const id = /^#(\d+) claimed /.exec(lastText(req))?.[1];
        if (!id) throw new Error(`${kid}'s claim: ${lastText(req)}`);
        taskOf[kid] = Number(id);
      };
      if (ASKS.includes(kid)) {
        steps.push((req) => {
          claimed(req);
          return call("roost_ask", {
            question: `${kid}: may I start #${taskOf[kid]}?`,
            choices: ["yes", "no"],
          });
        });
      }
      steps.push(
        async (req) => {
          if (!ASKS.includes(kid)) claimed(req);
          if (kid === "k4") await k4Done.wait;
          return call("roost_tasks", { action: "done", id: String(taskOf[kid]), result: `${kid} did it` });
        },
        call("roost_handback", { text: `${kid}: did the task` }),
        { text: "Handed back." },
      );
      w.model.script(kid, ...steps);
    }
    w.model.script(
      "lead",
      {
        tools: KIDS.map((kid) => ({
          name: "roost_spawn",
          args: { task: `[${kid}] take the next task on the board`, name: kid },
        })),
      },
      call("roost_watch", { children: true, when: "handback" }),
      { text: "Waiting." },
      (req) => ({ text: `All in: ${lastText(req).split("\n").length} lines.` }),
    );

    const lead = await w.dispatch("[lead] split the work four ways", { name: "lead" });
    const kidsOf = async (c: RawClient) => (await c.ok("list")).rows.filter((r: any) => r.parent === lead);
    const waiting = await w.until(
      lead,
      "the lead waiting on four",
      (r) => r.state === "done" && r.summary === "Waiting." && r.waitingOn.length === 4,
    );
    const kids = await kidsOf(w.c);
    expect(kids.map((k: any) => k.name).sort()).toEqual([...KIDS]);
    const id = Object.fromEntries(kids.map((k: any) => [k.name, k.id])) as Record<Kid, string>;
    expect(waiting.view).toBe("waiting");
    expect(waiting.watches).toMatchObject([{ id: lead, when: "handback" }]);
    expect(waiting.waitingOn.sort()).toEqual(Object.values(id).sort());

    const untilTask = (c: RawClient, n: number, what: string, pred: (t: any) => boolean) =>
      until(
        `#${n} ${what}`,
        async () => pred((await c.ok("task", { action: "list" })).tasks[n - 1]),
        PI_WAIT,
      );

    // k3 first: it takes #1 (the oldest), does it and hands back; held for the fan-in, it stops.
    claims.k3.open();
    await untilTask(w.c, 1, "done by k3", (t) => t.state === "done" && t.owner?.id === id.k3);
    await w.until(id.k3, "k3 handed back and stopped", (r) => r.life === "stopped" && r.state === "done");
    // k1 and k2 take #2 and #3 and ask.
    claims.k1.open();
    await w.until(id.k1, "k1 asking", (r) => r.state === "blocked");
    claims.k2.open();
    await w.until(id.k2, "k2 asking", (r) => r.state === "blocked");
    // k4 takes #4, whose `after` (#1) is done now; its `done` is held at the model.
    claims.k4.open();
    await untilRequests(w, "k4", 2);
    expect(taskOf).toEqual({ k3: 1, k1: 2, k2: 3, k4: 4 });
    const mid = await row(w.c, lead);
    // k3's handback is saved and held for the fan-in: not yet a turn of the lead's.
    expect(mid).toMatchObject({ view: "waiting", state: "done", pending: 1 });
    expect(w.model.requestsFor("lead")).toHaveLength(3);
    expect(mid.waitingOn.sort()).toEqual([id.k1, id.k2, id.k4].sort());

    // k4's `done` on its way, and the daemon killed with -9 under everyone.
    k4Done.open();
    await w.d.restart("SIGKILL");
    const c = await w.d.client();
    for (const kid of ASKS) {
      await untilRow(
        c,
        id[kid],
        `${kid} back, still asking`,
        (r) => r.connected && r.state === "blocked",
        PI_WAIT,
      );
    }
    await untilTask(c, 4, "done by k4", (t) => t.state === "done" && t.owner?.id === id.k4);

    // k2's question answered by the user; k1 respawned while it asks: its pi resumes its session.
    await c.ok("reply", { id: id.k2, text: "yes" });
    const before = w.model.requestsFor("k1").length;
    const { job: again } = await c.ok("respawn", { id: id.k1 });
    expect(again.id).toBe(id.k1);
    const back = await untilRow(c, id.k1, "k1 resumed", (r) => r.connected && r.life === "running", PI_WAIT);
    expect(back.conversation).toBe("resumed");
    await c.ok("reply", { id: id.k1, text: "yes, go ahead" });
    await untilRequests(w, "k1", before + 1);

    const done = await untilRow(
      c,
      lead,
      "the lead's fan-in turn",
      (r) => r.state === "done" && r.summary.startsWith("All in:"),
      PI_WAIT,
    );
    expect(done).toMatchObject({ view: "your turn", waitingOn: [], watches: [], pending: 0 });

    // The resumed k1: its next request carried what it had said and been told before the respawn.
    const resumed = w.model.requestsFor("k1")[before]!;
    const said = resumed.messages.map((m) => `${m.role}: ${textOf(m.content)}`);
    expect(said[0]).toMatch(/^(system|developer): /);
    expect(userTexts(resumed)).toEqual(["[k1] take the next task on the board", "yes, go ahead"]);
    const toolCalls = resumed.messages
      .flatMap((m) => (m.tool_calls ?? []) as any[])
      .map((t) => t.function.name);
    expect(toolCalls).toEqual(["roost_tasks", "roost_ask"]);
    expect(said).toContainEqual(
      expect.stringMatching(new RegExp(`^tool: #2 claimed "alpha" by ${id.k1} "k1"`)),
    );
    const starts = (await c.ok("events", { id: id.k1 })).events.filter((e: any) => e.kind === "start");
    expect(starts.map((e: any) => e.text.replace(/^.*; /, ""))).toEqual([
      "a new conversation",
      "its conversation resumed",
    ]);
    // k2's answer, given after the restart, was its tool's result, and not also a message.
    expect(lastText(w.model.requestsFor("k2")[2]!)).toBe("The user answered: yes");
    expect(userTexts(w.model.requestsFor("k2")[2]!)).toEqual(["[k2] take the next task on the board"]);

    // One turn for the fan-in: the lead's fourth request, woken by one message with every handback.
    const reqs = w.model.requestsFor("lead");
    expect(reqs).toHaveLength(4);
    const fanIn = userTexts(reqs[3]!);
    expect(fanIn).toHaveLength(2);
    const batch = fanIn[1]!;
    expect(batch).toMatch(/^\[roost: 5 items at once, each with its own first line\]/);
    for (const kid of KIDS) {
      expect(batch).toContain(
        `[roost report from ${id[kid]} "${kid}" (child): another session, not the user;`,
      );
      expect(batch).toContain(`${kid}: did the task`);
    }
    expect(batch).toContain("your 4 children are in (your watch on your children: handback)");

    // Each task done once, by the child that claimed it; four children, no fifth.
    const { tasks } = await c.ok("task", { action: "list" });
    expect(tasks.map((t: any) => [t.id, t.state, t.owner?.id, t.result])).toEqual(
      (["k3", "k1", "k2", "k4"] as const).map((kid, i) => [i + 1, "done", id[kid], `${kid} did it`]),
    );
    const { events } = await c.ok("events", { limit: 1000 });
    const taskEvents = events.filter((e: any) => e.kind === "task").map((e: any) => `${e.why} ${e.text}`);
    expect(taskEvents.filter((t: string) => t.startsWith("done "))).toHaveLength(4);
    expect(taskEvents.filter((t: string) => t.startsWith("claim "))).toHaveLength(4);
    expect(taskEvents.filter((t: string) => t.startsWith("release "))).toEqual([]);
    expect((await kidsOf(c)).map((k: any) => k.id).sort()).toEqual(Object.values(id).sort());
    expect(events.filter((e: any) => e.kind === "spawn")).toHaveLength(4);

    // No model read a refusal for the restart (nor any refusal at all).
    for (const req of w.model.requests) {
      for (const m of req.messages) expect(textOf(m.content)).not.toMatch(/disconnected|roost refused/);
    }
    // Each child ran its script and no more (its last request, for the words after its handback, is
    // made only if pi gets to it before roost stops it): no step was asked for twice.
    for (const kid of KIDS) {
      const steps = ASKS.includes(kid) ? 5 : 4;
      const n = w.model.requestsFor(kid).length;
      expect(n, kid).toBeGreaterThanOrEqual(steps - 1);
      expect(n, kid).toBeLessThanOrEqual(steps);
    }
  });
});
