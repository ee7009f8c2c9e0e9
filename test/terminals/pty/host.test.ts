// Runs the built pty host (dist/server/pty/host.js) with real processes: build first.
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyHostClient } from "../../../server/pty/client.js";
import { PROTOCOL_VERSION } from "../../../server/pty/wire.js";
import { distClient, isAlive, nextExit, until, useHost } from "./harness.js";

function readExitFile(home: string, jobId: string): unknown {
  const file = path.join(home, "jobs", jobId, "exit.json");
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : undefined;
}

describe("pty host", { timeout: 20_000 }, () => {
  const h = useHost();
  const connect = h.connect;
  const start = (c: PtyHostClient, jobId: string, file: string, args: string[]) =>
    h.start(c, jobId, file, args);

  it("reports an exit by event and in exit.json", async () => {
    const c = await connect();
    const exited = nextExit(c, "j1");
    await start(c, "j1", "bash", ["-c", "echo hi; exit 3"]);
    const e = await exited;
    expect(e).toMatchObject({ jobId: "j1", exitCode: 3, signal: null });
    expect(readExitFile(h.home(), "j1")).toEqual({ exitCode: 3, signal: null, at: e.at });
    expect(await c.tail("j1")).toContain("hi");
    expect((await c.list()).exited).toEqual([e]);
  });

  it("types into a job and shows the echo in its tail", async () => {
    const c = await connect();
    await start(c, "cat", "cat", []);
    await c.resize("cat", 100, 30);
    await c.write("cat", "hello roost\r");
    await until("echo", async () => (await c.tail("cat")).includes("hello roost"));
    await expect(start(c, "cat", "cat", [])).rejects.toThrow("job already live: cat");
  });

  it("sends an attached job's output as events, until detached", async () => {
    const c = await connect();
    await start(c, "sh", "bash", []);
    let seen = "";
    c.on("output", (o) => {
      if (o.jobId === "sh") seen += o.data;
    });
    await c.attach("sh");
    await c.write("sh", "echo $((6*7))\r");
    await until("output event", () => seen.includes("42"));
    await c.detach("sh");
    seen = "";
    await c.write("sh", "echo $((6*8))\r");
    // The tail's answer comes after any output event of what it shows (one connection, in order).
    await until("echo in the tail", async () => (await c.tail("sh")).includes("48"));
    expect(seen).toBe("");
    await expect(c.attach("nobody")).rejects.toThrow("no such job: nobody");
  });

  it("signals a job's process group", async () => {
    const c = await connect();
    const exited = nextExit(c, "sleeper");
    await start(c, "sleeper", "sleep", ["100"]);
    await c.signal("sleeper", "SIGTERM");
    // node-pty reports a signalled child as exitCode 0 plus the signal number.
    expect(await exited).toMatchObject({ exitCode: 0, signal: os.constants.signals.SIGTERM });
  });

  it("reads a stopped job's terminal to its end: its last words, and nothing of the host's", async () => {
    const c = await connect();
    const exited = nextExit(c, "last");
    // It answers SIGTERM with output, the moment it ends, as many programs do.
    const script =
      "trap 'for i in $(seq 1 2000); do echo \"bye $i\"; done; exit 4' TERM; echo up; sleep 600 & wait";
    await start(c, "last", "bash", ["-c", script]);
    await until("up", async () => (await c.tail("last")).includes("up"));
    let seen = "";
    c.on("output", (o) => {
      if (o.jobId === "last") seen += o.data;
    });
    await c.attach("last");
    await c.signal("last", "SIGTERM");
    expect(await exited).toMatchObject({ exitCode: 4 });
    const tail = await c.tail("last");
    expect(tail.endsWith("bye 2000\r\n")).toBe(true);
    expect(seen.endsWith("bye 2000\r\n")).toBe(true);
    // How the host knows it read everything (a marker it writes into the terminal) is not output.
    expect(tail).not.toContain("roost");
    expect(seen).not.toContain("roost");
    const s = await c.screen("last");
    expect(s.lines[s.cursorY - 1]).toBe("bye 2000");
  });

  it("keeps a job running across daemon connections", async () => {
    const first = await connect();
    const hostPid = (await first.hello()).pid;
    const pid = await start(first, "long", "sleep", ["100"]);
    const second = await connect();
    first.close();
    // The first's end was there for the host to read before the second's requests were sent: by
    // their answers the host has seen it (it reads every connection that is ready each time round).
    expect((await second.hello()).pid).toBe(hostPid);
    expect((await second.list()).live).toEqual([{ jobId: "long", pid }]);
    expect(isAlive(pid)).toBe(true);
  });

  it("keeps an exit that happened with no daemon until it is forgotten", async () => {
    const first = await connect();
    const pid = await start(first, "gone", "sleep", ["100"]);
    first.close();
    process.kill(pid, "SIGKILL");
    await until("exit.json", () => readExitFile(h.home(), "gone"));

    const second = await connect();
    const { live, exited } = await second.list();
    expect(live).toEqual([]);
    expect(exited).toEqual([
      expect.objectContaining({ jobId: "gone", signal: os.constants.signals.SIGKILL }),
    ]);
    await second.forget("gone");
    expect((await second.list()).exited).toEqual([]);
    await expect(second.tail("gone")).rejects.toThrow("no such job: gone");
  });

  it("fails a request its host does not answer (stopped) as busy, and answers again once it goes on", async () => {
    const c = await connect(400);
    const { pid } = await c.hello();
    process.kill(pid, "SIGSTOP");
    try {
      const late = c.list();
      await expect(late).rejects.toMatchObject({
        code: "busy",
        message: expect.stringContaining("list in 0.4 s"),
      });
    } finally {
      process.kill(pid, "SIGCONT");
    }
    // The late answer to the list is dropped; the connection still serves, in order.
    await start(c, "j2", "bash", ["-c", "echo back"]);
    await until("its echo", async () => (await c.tail("j2")).includes("back"));
    expect((await c.hello()).pid).toBe(pid);
  });

  it("ends a job its host started after the spawn had failed for its timeout: nobody owns it", async () => {
    const c = await connect(400);
    const { pid: hostPid } = await c.hello();
    process.kill(hostPid, "SIGSTOP");
    try {
      await expect(start(c, "late", "sleep", ["100"])).rejects.toMatchObject({
        code: "busy",
        message: expect.stringContaining("spawn in 0.4 s"),
      });
    } finally {
      process.kill(hostPid, "SIGCONT");
    }
    // Asked after the spawn on the same connection: answered once the host has started it.
    const started = (await c.list()).live.find((l) => l.jobId === "late");
    expect(started).toBeDefined();
    h.track(started!.pid);
    await until("the late job ended and forgotten", async () => {
      const { live, exited } = await c.list();
      return !live.some((l) => l.jobId === "late") && !exited.some((e) => e.jobId === "late");
    });
    expect(isAlive(started!.pid)).toBe(false);
  });

  it("answers command not found instead of spawning", async () => {
    const c = await connect();
    await expect(start(c, "x", "no-such-command-roost", [])).rejects.toThrow(
      "command not found: no-such-command-roost",
    );
    await expect(start(c, "y", "/etc/passwd", [])).rejects.toThrow("command not found: /etc/passwd");
    expect((await c.list()).live).toEqual([]);
  });

  it("answers a garbage line with an error and keeps serving", async () => {
    await connect();
    const sock = net.connect(path.join(h.home(), "pty.sock"));
    sock.setEncoding("utf8");
    let got = "";
    sock.on("data", (d: string) => {
      got += d;
    });
    const lines = () => got.split("\n").filter(Boolean);
    sock.write("this is not json\n[1,2]\n");
    sock.write(`${JSON.stringify({ id: 7, op: "explode" })}\n${JSON.stringify({ id: 8, op: "hello" })}\n`);
    await until("four answers", () => lines().length >= 4);
    const [a, b, c, d] = lines().map((l) => JSON.parse(l));
    expect(a).toMatchObject({ id: null, ok: false });
    expect(b).toMatchObject({ id: null, ok: false });
    expect(c).toEqual({ id: 7, ok: false, error: "unknown op: explode" });
    expect(d).toMatchObject({ id: 8, ok: true, version: PROTOCOL_VERSION });
    sock.destroy();
  });

  it("makes its socket owner-only", async () => {
    await connect();
    expect(fs.statSync(path.join(h.home(), "pty.sock")).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(h.home(), "pty.pid")).mode & 0o077).toBe(0);
  });

  // Its own node to start and its idle time to wait out: more than the others' 20 s on a loaded machine.
  it("exits by itself when idle, via the default host script", { timeout: 60_000 }, async () => {
    const mod = (await import(distClient)) as { PtyHostClient: typeof PtyHostClient };
    const c = await mod.PtyHostClient.connect(h.home());
    const hostPid = (await c.hello()).pid;
    h.track(hostPid);
    c.close();
    await until("host to exit", () => !isAlive(hostPid));
    expect(fs.existsSync(path.join(h.home(), "pty.sock"))).toBe(false);
  });

  it("hangs up its jobs on SIGTERM and records their exits", async () => {
    const c = await connect();
    const hostPid = (await c.hello()).pid;
    const pid = await start(c, "hup", "sleep", ["100"]);
    process.kill(hostPid, "SIGTERM");
    await until("host to exit", () => !isAlive(hostPid));
    expect(isAlive(pid)).toBe(false);
    expect(readExitFile(h.home(), "hup")).toMatchObject({ signal: os.constants.signals.SIGHUP });
  });

  it("drains a loud job and keeps only the last 64 KiB", async () => {
    const c = await connect();
    const exited = nextExit(c, "loud");
    await start(c, "loud", "bash", ["-c", "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo done"]);
    expect(await exited).toMatchObject({ exitCode: 0 });
    const tail = await c.tail("loud");
    expect(tail.length).toBeLessThanOrEqual(64 * 1024);
    expect(tail.endsWith("done\r\n")).toBe(true);
  });

  it("starts one host when several daemons race to connect", async () => {
    const all = await Promise.all([connect(), connect(), connect()]);
    const hostPids = await Promise.all(all.map(async (c) => (await c.hello()).pid));
    expect(new Set(hostPids).size).toBe(1);
  });

  it("replaces the socket of a host that was killed", async () => {
    const first = await connect();
    const oldPid = (await first.hello()).pid;
    process.kill(oldPid, "SIGKILL");
    await until("old host to die", () => !isAlive(oldPid));
    expect(fs.existsSync(path.join(h.home(), "pty.sock"))).toBe(true);
    const second = await connect();
    expect((await second.hello()).pid).not.toBe(oldPid);
  });
});
