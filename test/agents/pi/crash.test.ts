/**
 * A pi killed with -9 leaves nothing running (docs/pi.md, "A pi started again"): the command its
 * bash tool left in the background (pi starts each in a session of its own, out of the job's
 * group) is ended by the pty host, and the feed's exit entry says how many went. The real pi
 * 0.74.2, the scripted model; `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isAlive, until } from "../../helpers/daemon.js";
import { untilGone } from "../../helpers/jobs.js";
import { PI_WAIT, piWorldPerTest, untilDone } from "../../helpers/pi.js";

const world = piWorldPerTest();

describe("a pi killed with -9", { timeout: 3 * PI_WAIT }, () => {
  it("takes the sleep its bash tool left in the background with it", async () => {
    const w = await world();
    const command = "sleep 120 >/dev/null 2>&1 & echo $! > sleep.pid";
    w.model.script("c1", { tools: [{ name: "bash", args: { command } }] }, { text: "Started a sleep." });
    const id = await w.dispatch("[c1] start a sleep");
    const done = await untilDone(w, id);
    const file = path.join(w.work, "sleep.pid");
    const sleep = Number(
      await until("the sleep's pid", () => fs.existsSync(file) && fs.readFileSync(file, "utf8").trim()),
    );
    expect(isAlive(sleep)).toBe(true);

    process.kill(done.pid, "SIGKILL");
    await untilGone(sleep, 5000);
    await w.until(id, "pi ended", (r) => r.life === "exited");
    const entry = await until("the exit in the feed", async () => {
      const { events } = await w.c.ok("events", { id });
      return events.find((e: any) => e.kind === "exit");
    });
    expect(entry.text).toMatch(/^exited with code 137; [1-9]\d* leftover process(es)? ended$/);
  });
});
