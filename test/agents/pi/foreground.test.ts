/**
 * A foreground pi (docs/pi.md, "A pi of your own"): one the user runs in a terminal of their own,
 * not started by roost, with roost's extension and roost's socket there. It registers
 * (`peer_register`), gets a row of kind foreground, and takes replies as a job's pi does; when it
 * quits, its row goes exited. The real pi 0.74.2 in a pty of the test's own, the scripted model;
 * `npm run build` first.
 */
import path from "node:path";
import { type IPty, spawn as ptySpawn } from "@lydell/node-pty";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, until } from "../../helpers/daemon.js";
import { PI_BIN, PI_WAIT, piWorldPerTest } from "../../helpers/pi.js";
import { textOf } from "../../helpers/scripted-model.js";

// A foreground session's row ends this long after its connection does.
const world = piWorldPerTest({ env: { PI_ROOST_FG_CLAIM_GRACE_MS: "500" } });
const EXTENSION = path.join(ROOT, "dist/sdk/ts/pi/index.js");

let pi: IPty | null = null;
afterEach(() => {
  if (pi) process.kill(pi.pid, "SIGKILL");
  pi = null;
});

describe("a foreground pi", { timeout: 4 * PI_WAIT }, () => {
  it("registers with roost's socket, takes replies as a job's pi does, and its row ends when it quits", async () => {
    const w = await world();
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(w.d.env)) if (v !== undefined && !k.startsWith("ROOST_")) env[k] = v;
    // Only roost's home: the socket is its default one there.
    env.ROOST_HOME = w.d.home;
    pi = ptySpawn(path.join(PI_BIN, "pi"), ["-e", EXTENSION], { cols: 100, rows: 30, cwd: w.work, env });
    pi.onData(() => {});

    const fg = await until(
      "pi's row",
      async () => (await w.c.ok("list")).rows.find((r: any) => r.kind === "foreground"),
      PI_WAIT,
    );
    expect(fg).toMatchObject({ name: `pi ${path.basename(w.work)}`, pid: pi.pid, cwd: w.work });
    const ready = await w.until(fg.id, "ready", (r) => r.state === "done" && r.connected);
    expect(ready).toMatchObject({ summary: "ready for a task", model: "scripted/m1", agent: { name: "pi" } });

    w.model.script("fg", { text: "Hello from your own pi." });
    await w.c.ok("reply", { id: fg.id, text: "[fg] say hello" });
    const done = await w.until(fg.id, "its answer", (r) => r.summary === "Hello from your own pi.");
    expect(done).toMatchObject({ state: "done", pending: 0, lastSeq: 1 });
    expect(
      w.model
        .requestsFor("fg")[0]!
        .messages.filter((m) => m.role === "user")
        .map((m) => textOf(m.content)),
    ).toEqual(["[fg] say hello"]);

    process.kill(pi.pid, "SIGTERM");
    pi = null;
    await w.until(fg.id, "its row ended", (r) => r.life === "exited");
  });
});
