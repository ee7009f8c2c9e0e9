/**
 * Fan-in on pi (docs/pi.md, "Peers and the task board"): a pi parent starts three children and
 * watches them (`roost_watch {children: true, when: "handback"}`); while they work its row is
 * `waiting`, and their handbacks, each in its own time, reach its pi as one message with the notice
 * that the last is in: one turn, one model call, for the fan-in. The real pi 0.74.2, the scripted
 * model; the children are jobs the test speaks for. `npm run build` first.
 */
import { describe, expect, it } from "vitest";
import { rawAgent, silentProfile } from "../../helpers/jobs.js";
import { PI_WAIT, piWorldPerTest, untilDone } from "../../helpers/pi.js";
import { type ModelRequest, textOf } from "../../helpers/scripted-model.js";

const world = piWorldPerTest({ config: { agentProfiles: { quiet: silentProfile() } } });
const lastText = (req: ModelRequest) => textOf(req.messages.at(-1)?.content);
const spawn = (name: string) => ({
  name: "roost_spawn",
  args: { task: `count part ${name}`, profile: "quiet", name },
});

describe("fan-in on pi", { timeout: 4 * PI_WAIT }, () => {
  it("three children's handbacks, each in its own time, wake the parent once: one message, one turn", async () => {
    const w = await world();
    w.model.script(
      "fan",
      { tools: [spawn("k1"), spawn("k2"), spawn("k3")] },
      { tools: [{ name: "roost_watch", args: { children: true, when: "handback" } }] },
      { text: "Waiting for my children." },
      (req) => ({ text: `Fan-in: ${lastText(req).split("\n")[0]}` }),
    );
    const parent = await w.dispatch("[fan] count the files, in three parts", { name: "lead" });
    const waiting = await w.until(
      parent,
      "waiting on its children",
      (r) => r.summary === "Waiting for my children.",
    );
    expect(waiting.view).toBe("waiting");
    expect(waiting.waitingOn).toHaveLength(3);
    expect(waiting.watches).toEqual([expect.objectContaining({ id: parent, when: "handback" })]);
    const watchSaid = lastText(w.model.requestsFor("fan")[2]!);
    expect(JSON.parse(watchSaid)).toMatchObject({ id: parent, when: "handback", fired: false });

    const kids = (await w.c.ok("list")).rows
      .filter((r: any) => r.parent === parent)
      .sort((a: any, b: any) => a.name.localeCompare(b.name));
    expect(kids.map((k: any) => k.name)).toEqual(["k1", "k2", "k3"]);
    for (const [i, kid] of kids.entries()) {
      const { agent } = await rawAgent(w.d, w.c, kid.id);
      // Held while the watch waits (queued); the last one goes with the notice (delivered).
      const { outcome } = await agent.ok("handback", { text: `part ${i + 1}: ${10 * (i + 1)} files` });
      expect(outcome).toBe(i < 2 ? "queued" : "delivered");
      // Held: its child stopped at once; the next one hands back after.
      await w.until(kid.id, "stopped", (r) => r.life === "stopped");
      agent.close();
    }
    const done = await w.until(
      parent,
      "the fan-in taken",
      (r) => r.summary?.startsWith("Fan-in:") && r.pending === 0,
    );
    expect(done.view).toBe("your turn");
    const reqs = w.model.requestsFor("fan");
    expect(reqs).toHaveLength(4);
    const woken = lastText(reqs[3]!);
    expect(woken.split("\n")[0]).toBe("[roost: 4 items at once, each with its own first line]");
    for (const text of ["part 1: 10 files", "part 2: 20 files", "part 3: 30 files", "your 3 children are in"])
      expect(woken).toContain(text);
    // One user-side message for the four items.
    expect(reqs[3]!.messages.filter((m) => m.role === "user").map((m) => textOf(m.content))).toEqual([
      "[fan] count the files, in three parts",
      woken,
    ]);
    await untilDone(w, parent);
  });
});
