/**
 * A daemon restart under a working pi (docs/pi.md): pi goes on with its tool, its extension
 * reconnects and reports again, and nothing is lost or doubled. A follow-up given before the
 * kill -9 and sent to pi again after it reaches the model once; a steer given after it is taken as
 * any other. The real pi 0.74.2, the scripted model; `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { row, untilRow } from "../../helpers/jobs.js";
import { PI_WAIT, piWorldPerTest } from "../../helpers/pi.js";
import { type ModelRequest, textOf } from "../../helpers/scripted-model.js";

const world = piWorldPerTest();

const userTexts = (req: ModelRequest) =>
  req.messages.filter((m) => m.role === "user").map((m) => textOf(m.content));

describe("a daemon restart under a working pi", { timeout: 4 * PI_WAIT }, () => {
  it("reconnects; the reply sent before it and the one after each reach the model once", async () => {
    const w = await world();
    const command = "while [ ! -e go ]; do sleep 0.05; done; echo built";
    w.model.script(
      "r1",
      { tools: [{ name: "bash", args: { command } }] },
      { text: "Built; the docs too." },
      { text: "Summary: built." },
    );
    const id = await w.dispatch("[r1] build it");
    const before = await w.until(id, "the tool running", (r) => r.tool === "bash");
    const pid = before.pid;
    await w.c.ok("reply", { id, text: "then summarize", mode: "followUp" });
    await w.until(id, "the follow-up delivered, not yet taken", (r) => r.lastSeq === 2 && r.pending === 1);

    await w.d.restart("SIGKILL");
    const c = await w.d.client();
    // The same pi, back on its row: the extension reconnected and said again where it is.
    const back = await untilRow(c, id, "pi reconnected", (r) => r.connected && r.tool === "bash", PI_WAIT);
    expect(back).toMatchObject({ pid, life: "running", state: "working", pending: 1, lastSeq: 2 });

    await c.ok("reply", { id, text: "also check the docs", mode: "steer" });
    await untilRow(c, id, "the steer delivered", (r) => r.lastSeq === 3, PI_WAIT);
    fs.writeFileSync(path.join(w.work, "go"), "");
    const done = await untilRow(
      c,
      id,
      "done",
      (r) => r.state === "done" && r.pending === 0 && r.summary === "Summary: built.",
      PI_WAIT,
    );
    expect(done).toMatchObject({ pid, lastSeq: 3, connected: true });
    expect(done.usage.messages).toBe(3);

    const reqs = w.model.requestsFor("r1");
    expect(reqs).toHaveLength(3);
    expect(userTexts(reqs[1]!)).toEqual(["[r1] build it", "also check the docs"]);
    expect(userTexts(reqs[2]!)).toEqual(["[r1] build it", "also check the docs", "then summarize"]);
    expect((await row(c, id)).pending).toBe(0);
  });
});
