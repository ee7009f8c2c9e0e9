// The pty host's headless screen of each job: screen events and the screen op. Build first.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyHostClient } from "../../../server/pty/client.js";
import { screenEvents, until, useHost } from "./harness.js";

describe("pty host screens", { timeout: 20_000 }, () => {
  const h = useHost();

  /**
   * Starts a job `id` that prints once and waits until its screen turns quiet. With the same
   * quietMs, a quiet spell of any job whose last output came before that has passed too: the
   * host's timers fire soonest first.
   */
  async function quietSpellPassed(c: PtyHostClient, id: string, quietMs: number): Promise<void> {
    const events = screenEvents(c, id);
    await h.start(c, id, "bash", ["-c", `echo ${id}; sleep 30`], { quietMs });
    await until(`${id} quiet`, () => events.find((e) => !e.busy && e.lines.includes(id)), 10_000);
  }

  it("pushes the screen while output flows, then once more when the job turns quiet", async () => {
    const c = await h.connect();
    const events = screenEvents(c, "s");
    // No output can come before the job starts: a time the test knows to be before the last one.
    const started = Date.now();
    await h.start(c, "s", "bash", ["-c", "printf 'a\\nb\\nlast line\\n'; sleep 5"], { quietMs: 300 });
    const quiet = await until("a quiet screen", () => events.find((e) => !e.busy), 3_000);
    const busy = events.filter((e) => e.busy);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.at(-1)!.lines).toContain("last line");
    expect(quiet.lines.slice(0, 4)).toEqual(["a", "b", "last line", ""]);
    expect(quiet.lines).toHaveLength(24);
    expect(quiet.cursorY).toBe(3);
    // Quiet comes quietMs after the last output, which came after the job started. (Not after the
    // first screen event: that is made when the output is read, on a loaded machine well after.)
    expect(Date.parse(quiet.at) - started).toBeGreaterThanOrEqual(300);
    expect(events.at(-1)).toBe(quiet); // and nothing more while idle
    await quietSpellPassed(c, "later", 300);
    expect(events.at(-1)).toBe(quiet);
    const asked = await c.screen("s");
    expect(asked).toMatchObject({ jobId: "s", lines: quiet.lines, cursorY: 3, busy: false });
  });

  it("stays busy while a command that prints nothing runs in its terminal, then turns quiet", async () => {
    const c = await h.connect();
    const events = screenEvents(c, "sh");
    await h.start(c, "sh", "bash", ["--norc", "--noprofile"], {
      quietMs: 200,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PS1: "$ " },
    });
    await until("the shell quiet", () => events.find((e) => !e.busy));
    const from = events.length;
    // A command that prints nothing and runs until the test says: one process reading a fifo (a
    // loop of sleeps would hand the foreground back to the shell between them, and a quiet spell
    // that happened to look then would rightly find the shell at its prompt).
    const gate = path.join(h.home(), "gate");
    execFileSync("mkfifo", [gate]);
    // In a child shell: it holds the terminal until it has printed. Run by the job's own shell,
    // `cat …; echo …` handed the terminal back between them, and on a loaded machine a quiet
    // spell could look in that moment, before the echo, and rightly find the shell at rest.
    await c.write("sh", `sh -c 'cat ${gate} > /dev/null; echo sl""ept'\r`);
    await until("the command on the screen", () =>
      events.slice(from).find((e) => e.lines.join("").includes("/dev/null;")),
    );
    await quietSpellPassed(c, "later", 200);
    await quietSpellPassed(c, "later2", 200); // twice: the first quiet spell, and one past it
    expect(events.slice(from).filter((e) => !e.busy)).toEqual([]); // the command holds the terminal
    expect((await c.screen("sh")).busy).toBe(true);
    fs.writeFileSync(gate, "go\n"); // cat reads it and ends
    const quiet = await until("quiet again", () => events.slice(from).find((e) => !e.busy), 10_000);
    expect(quiet.lines).toContain("slept"); // not before the command ended
  });

  it("sends a flowing job's screen at most every 250 ms, its latest state always", async () => {
    const c = await h.connect();
    const events = screenEvents(c, "tick");
    const script = "for i in $(seq 1 30); do echo tick $i; sleep 0.04; done; sleep 5";
    // A quietMs long enough that a machine under load does not make the job look quiet mid-way.
    await h.start(c, "tick", "bash", ["-c", script], { quietMs: 2_000 });
    const quiet = await until("a quiet screen", () => events.find((e) => !e.busy), 10_000);
    const busy = events.filter((e) => e.busy);
    expect(busy.length).toBeGreaterThanOrEqual(3);
    // Throttled: over the span the events cover, one per 250 ms. Counted over the span rather
    // than gap by gap, with one to spare: a loaded machine may stamp an event late (the first
    // one late shortens the span), never early. Unthrottled, a tick every 40 ms would be ~6x that.
    const span = Date.parse(busy.at(-1)!.at) - Date.parse(busy[0]!.at);
    expect(busy.length).toBeLessThanOrEqual(Math.floor(span / 250) + 2);
    expect(busy.at(-1)!.lines).toContain("tick 30");
    expect(quiet.lines).toContain("tick 30");
  });

  it("shows a full-screen redraw, not the text it replaced", async () => {
    const c = await h.connect();
    const script =
      "printf 'old text 1\\nold text 2\\n'; sleep 0.3; printf '\\033[2J\\033[Hnew screen\\n'; sleep 5";
    await h.start(c, "redraw", "bash", ["-c", script], { quietMs: 200 });
    const s = await until("the redrawn screen", async () => {
      const state = await c.screen("redraw");
      return state.lines[0] === "new screen" ? state : null;
    });
    expect(s.lines.join("\n")).not.toContain("old text");
    expect(s.cursorY).toBe(1);
  });

  it("follows a program on the alternate screen and back", async () => {
    const c = await h.connect();
    const lines = Array.from({ length: 100 }, (_, i) => `row ${i + 1}\n`).join("");
    fs.writeFileSync(path.join(h.home(), "rows.txt"), lines);
    await h.start(c, "less", "bash", ["-c", "echo before less; less rows.txt; echo after less; sleep 5"], {
      quietMs: 200,
    });
    const top = await until("less showing the file", async () => {
      const state = await c.screen("less");
      return state.lines[0] === "row 1" ? state : null;
    });
    expect(top.lines).toContain("row 23");
    expect(top.lines.join("\n")).not.toContain("before less");
    await c.write("less", "G");
    await until("less at the end", async () => (await c.screen("less")).lines.includes("row 100"));
    await c.write("less", "q");
    const after = await until("the shell's screen again", async () => {
      const state = await c.screen("less");
      return state.lines.includes("after less") ? state : null;
    });
    expect(after.lines).toContain("before less");
    expect(after.lines.join("\n")).not.toContain("row 100");
  });

  it("resizes the job's terminal and its screen", async () => {
    const c = await h.connect();
    const script = "read x; echo \"cols=$(tput cols) lines=$(tput lines)\"; printf '%0100d\\n' 0; sleep 5";
    await h.start(c, "wide", "bash", ["-c", script], { quietMs: 200 });
    expect((await c.screen("wide")).lines).toHaveLength(24);
    await c.resize("wide", 100, 30);
    await c.write("wide", "\r");
    // Both lines printed (two writes: a screen read between them has the first alone).
    const s = await until("the new size, and the row of zeros", async () => {
      const state = await c.screen("wide");
      return state.lines.includes("cols=100 lines=30") && state.lines.some((l) => l.startsWith("0000"))
        ? state
        : null;
    });
    expect(s.lines).toHaveLength(30);
    expect(s.lines).toContain("0".repeat(100)); // one row, not wrapped at 80
    const snap = await c.attach("wide");
    expect([snap.cols, snap.rows]).toEqual([100, 30]);
  });

  it("keeps an exited job's screen until it is forgotten", async () => {
    const c = await h.connect();
    await h.start(c, "done", "bash", ["-c", "echo bye now"], { quietMs: 100 });
    await until("the exit", async () => (await c.list()).exited.length === 1);
    expect((await c.screen("done")).lines).toContain("bye now");
    await c.forget("done");
    await expect(c.screen("done")).rejects.toThrow("no such job: done");
  });
});
