/**
 * A pi job put to sleep by its idleStop (docs/budgets.md, "Idle agents") goes on with its
 * conversation once woken: the real pi, the scripted model; `npm run build` first.
 */
import { describe, expect, it } from "vitest";
import { PI_WAIT, piWorldPerTest, untilDone, untilRequests } from "../../helpers/pi.js";
import { type ModelRequest, textOf } from "../../helpers/scripted-model.js";

const world = piWorldPerTest();

const said = (req: ModelRequest) =>
  req.messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => `${m.role}: ${textOf(m.content)}`);

describe("a pi job with an idleStop", { timeout: 4 * PI_WAIT }, () => {
  it("is put to sleep once it rests that long, and woken goes on with its conversation", async () => {
    const w = await world();
    w.model.script("i1", { text: "Noted: the word is plover." }, { text: "The word was plover." });
    const id = await w.dispatch("[i1] remember the word plover", { idleStop: "2s" });
    const first = await untilDone(w, id);
    const restedAt = Date.now();
    const slept = await w.until(id, "put to sleep", (r) => r.life === "stopped");
    console.log(`pi, idleStop 2s: stopped ${Date.now() - restedAt} ms after its row was seen done`);
    expect(slept).toMatchObject({ stopReason: "idle", pid: null });

    await w.c.ok("respawn", { id });
    const woken = await w.until(id, "pi back", (r) => r.connected && r.life === "running");
    expect(woken.stopReason).toBeNull();
    await w.c.ok("reply", { id, text: "which word was it?" });
    await untilRequests(w, "i1", 2);
    const back = await untilDone(w, id);
    expect(back.pid).not.toBe(first.pid);
    expect(back.conversation).toBe("resumed");
    const [, second] = w.model.requestsFor("i1");
    expect(said(second!)).toEqual([
      "user: [i1] remember the word plover",
      "assistant: Noted: the word is plover.",
      "user: which word was it?",
    ]);
    // Resting again, it sleeps again: its idleStop was fixed at dispatch, kept by the respawn.
    await w.until(id, "asleep again", (r) => r.stopReason === "idle");
  });
});
