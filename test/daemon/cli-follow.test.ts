/**
 * `roost events --follow` across a daemon restart: the built CLI following a real daemon that is
 * killed and started again on the same home. It says so on stderr, connects again, and prints
 * what happens next, each entry once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { needsBuild, ok, PLAIN_SHELL } from "../helpers/cli.js";
import { CLI, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { killQuietly } from "../helpers/processes.js";

let d: TestDaemon | undefined;
let follower: ChildProcess | undefined;
afterEach(async () => {
  if (follower?.pid && follower.exitCode === null) killQuietly(follower.pid);
  follower = undefined;
  await d?.cleanup();
  d = undefined;
});
beforeAll(needsBuild);

/** `roost events --follow ARGS...`, with what it printed so far. */
function follow(args: string[], env: Record<string, string>) {
  const proc = spawn(process.execPath, [CLI, "events", "--follow", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const seen = { stdout: "", stderr: "" };
  proc.stdout!.on("data", (chunk) => {
    seen.stdout += chunk;
  });
  proc.stderr!.on("data", (chunk) => {
    seen.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { proc, seen, exited };
}

/** A daemon with one job dispatched (j1, "before"), and `events --follow` that has printed it. */
async function followingADispatch() {
  const daemon = await startDaemon({ env: PLAIN_SHELL });
  d = daemon;
  await ok(["dispatch", "shell", "--name", "before"], daemon.env);
  const f = follow([], daemon.env);
  follower = f.proc;
  await until("the dispatch before", () => / j1 +dispatch +shell \(user\)$/m.test(f.seen.stdout));
  return { daemon, f };
}

describe("events --follow and a daemon that restarts", () => {
  it("says the connection closed, connects again once roost answers, and goes on, each entry once", async () => {
    const { daemon, f } = await followingADispatch();

    await daemon.restart("SIGKILL");
    await until("it says it lost roost", () =>
      f.seen.stderr.includes("roost: the connection to roost closed"),
    );
    await until("it says it is back", () =>
      f.seen.stderr.includes("roost: connected to roost again; following the events\n"),
    );
    expect(f.seen.stderr).toBe(
      "roost: the connection to roost closed (the daemon stopped?); connecting again...\n" +
        "roost: connected to roost again; following the events\n",
    );
    expect(f.proc.exitCode).toBeNull();

    await ok(["dispatch", "shell", "--name", "after"], daemon.env);
    await until("the dispatch after the restart", () =>
      / j2 +dispatch +shell \(user\)$/m.test(f.seen.stdout),
    );
    const lines = f.seen.stdout.trimEnd().split("\n");
    expect(new Set(lines).size).toBe(lines.length); // nothing printed twice
    expect(lines.filter((l) => / j1 +dispatch /.test(l))).toHaveLength(1);

    f.proc.kill("SIGINT");
    expect(await f.exited).toBe(0);
  });

  it("a connection dropped before it follows (a daemon dying as it accepts) is tried again without a word", async () => {
    const { daemon, f } = await followingADispatch();

    // In the dead daemon's place, for a while: something that accepts each connection and drops
    // it before answering, as a daemon killed with -9 does in the moment its process ends.
    await daemon.kill("SIGKILL");
    fs.rmSync(daemon.socket, { force: true });
    let dropped = 0;
    const dying = net.createServer((s) => {
      dropped++;
      s.destroy();
    });
    await new Promise<void>((resolve) => dying.listen(daemon.socket, resolve));
    await until("the follower tried it three times", () => dropped >= 3);
    await new Promise<void>((resolve) => dying.close(() => resolve()));
    await daemon.start();

    await until("it says it is back", () =>
      f.seen.stderr.includes("roost: connected to roost again; following the events\n"),
    );
    expect(f.seen.stderr).toBe(
      "roost: the connection to roost closed (the daemon stopped?); connecting again...\n" +
        "roost: connected to roost again; following the events\n",
    );
    f.proc.kill("SIGINT");
    expect(await f.exited).toBe(0);
  });

  it("with --json: the entries on stdout, by cursor, none twice; the notes on stderr as JSON", async () => {
    d = await startDaemon({ env: PLAIN_SHELL });
    await ok(["dispatch", "shell"], d.env);
    const f = follow(["--json"], d.env);
    follower = f.proc;
    const entries = () =>
      f.seen.stdout
        .split("\n")
        .filter((l) => l.endsWith("}"))
        .map((l) => JSON.parse(l));
    await until("the first dispatch", () => entries().some((e) => e.id === "j1" && e.kind === "dispatch"));

    await d.restart("SIGTERM");
    await until("back", () => f.seen.stderr.split("\n").length >= 3);
    expect(
      f.seen.stderr
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).note),
    ).toEqual(["reconnecting", "reconnected"]);

    await ok(["dispatch", "shell"], d.env);
    await until("the second dispatch", () => entries().some((e) => e.id === "j2" && e.kind === "dispatch"));
    const cursors = entries().map((e) => e.cursor);
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    expect(new Set(cursors).size).toBe(cursors.length);
    // The daemon's own entries at its start (it found j1 again) came while it was reconnecting:
    // read back by cursor, not lost.
    expect(cursors.at(-1)! - cursors[0]!).toBe(cursors.length - 1);

    f.proc.kill("SIGTERM");
    expect(await f.exited).toBe(0);
  });

  it("Ctrl-C while roost is away ends it, exit 0", async () => {
    d = await startDaemon({ env: PLAIN_SHELL });
    await ok(["dispatch", "shell"], d.env);
    const f = follow([], d.env);
    follower = f.proc;
    await until("following", () => / j1 +dispatch /.test(f.seen.stdout));
    await d.kill("SIGKILL");
    await until("it says it lost roost", () => f.seen.stderr.includes("connecting again"));
    f.proc.kill("SIGINT");
    expect(await f.exited).toBe(0);
  });
});
