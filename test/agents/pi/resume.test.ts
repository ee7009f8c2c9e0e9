/**
 * A pi job goes on with its conversation after a crash (docs/agents.md, "Resumed conversations"):
 * roost starts pi with a session file of the job's own (`--session`), so that pi killed with -9 and
 * started again (`respawn`, or a reply to the ended job) opens it, and its model's next request
 * carries the turns before. The real pi 0.74.2, the scripted model; `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { jobDir, untilRow } from "../../helpers/jobs.js";
import { PI_WAIT, piWorldPerTest, untilDone, untilRequests } from "../../helpers/pi.js";
import { type ModelRequest, textOf } from "../../helpers/scripted-model.js";

const world = piWorldPerTest();

const said = (req: ModelRequest) =>
  req.messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => `${m.role}: ${textOf(m.content)}`);

describe("a pi job killed with -9", { timeout: 4 * PI_WAIT }, () => {
  for (const how of ["respawn", "a reply"] as const) {
    it(`goes on with its conversation when it is started again (${how})`, async () => {
      const w = await world();
      w.model.script("k1", { text: "Noted: the word is heron." }, { text: "The word was heron." });
      const id = await w.dispatch("[k1] remember the word heron");
      const first = await untilDone(w, id);
      expect(first.conversation).toBe("new");
      const session = path.join(jobDir(w.d, id), "pi-session.jsonl");
      expect(fs.existsSync(session)).toBe(true);

      process.kill(first.pid, "SIGKILL");
      await w.until(id, "pi ended", (r) => r.life === "exited");
      if (how === "respawn") {
        await w.c.ok("respawn", { id });
        await w.until(id, "pi back", (r) => r.connected && r.life === "running");
      }
      await w.c.ok("reply", { id, text: "which word was it?" });
      await untilRequests(w, "k1", 2);
      const back = await untilDone(w, id);
      expect(back.pid).not.toBe(first.pid);
      expect(back.conversation).toBe("resumed");
      expect(back.summary).toBe("The word was heron.");

      const [, second] = w.model.requestsFor("k1");
      expect(said(second!)).toEqual([
        "user: [k1] remember the word heron",
        "assistant: Noted: the word is heron.",
        "user: which word was it?",
      ]);
      const { events } = await w.c.ok("events", { id });
      const starts = events.filter((e: any) => e.kind === "start").map((e: any) => e.text);
      expect(starts).toHaveLength(2);
      expect(starts[0]).toMatch(/; a new conversation$/);
      expect(starts[1]).toMatch(/; its conversation resumed$/);
    });
  }

  it("begins a new conversation when it had none to go on with", async () => {
    const w = await world();
    const { job } = await w.c.ok("dispatch", { profile: "pi", cwd: w.work });
    const id = job.id as string;
    const ready = await untilRow(w.c, id, "ready", (r) => r.connected && r.state === "done", PI_WAIT);
    expect(ready.conversation).toBe("new");
    process.kill(ready.pid, "SIGKILL");
    await w.until(id, "pi ended", (r) => r.life === "exited");
    await w.c.ok("respawn", { id });
    const again = await w.until(id, "pi back", (r) => r.connected && r.life === "running");
    expect(again.conversation).toBe("new"); // pi wrote no session: its model never answered
  });
});
