/**
 * The sandbox's mounts (server/core/jobs/sandbox.ts) with a real bubblewrap, where the owner's secrets
 * are not in the usual place: a socket that `ROOST_SOCKET` puts outside the home, and a home
 * reached through a symbolic link. Each is hidden from the job as the home is.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapArgs } from "../../server/core/jobs/sandbox.js";
import { roostPaths } from "../../server/paths.js";
import type { JobRecord } from "../../server/store/records.js";

/** Runs python3's `code` in the sandbox of a job `j1` running in `cwd`: its stdout. */
function inSandbox(env: NodeJS.ProcessEnv, cwd: string, code: string): string {
  const paths = roostPaths(env);
  const rec = { id: "j1", worktree: null, launch: { cwd, command: ["python3"] } } as unknown as JobRecord;
  const args = bwrapArgs(paths, rec, { network: true, writable: [], tree: fs.realpathSync(cwd) });
  const run = spawnSync("bwrap", [...args, "python3", "-c", code], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`bwrap: ${run.stderr}`);
  return run.stdout.trim();
}

const tryConnect = (file: string) =>
  `import socket\ntry:\n  s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(file)}); print("connected")\nexcept Exception as e:\n  print(type(e).__name__)`;
const tryRead = (file: string) =>
  `try:\n  print(open(${JSON.stringify(file)}).read())\nexcept Exception as e:\n  print(type(e).__name__)`;

describe("the sandbox hides the owner's secrets wherever they are", () => {
  let base: string;
  let server: net.Server;
  beforeAll(() => {
    // Not under /tmp, which the job has a private one of (that would hide them by chance).
    base = fs.mkdtempSync("/var/tmp/roost-args-");
  });
  afterAll(() => {
    server?.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it("an owner's socket that ROOST_SOCKET puts outside the home cannot be connected to", async () => {
    const home = path.join(base, "home");
    const sockets = path.join(base, "sockets");
    fs.mkdirSync(home, { mode: 0o700 });
    fs.mkdirSync(sockets, { mode: 0o700 });
    const socket = path.join(sockets, "roost.sock");
    server = net.createServer((s) => s.end());
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    const cwd = fs.mkdtempSync(path.join(base, "work-"));
    expect(inSandbox({ ROOST_HOME: home }, cwd, tryConnect(socket))).toBe("connected"); // the control
    expect(inSandbox({ ROOST_HOME: home, ROOST_SOCKET: socket }, cwd, tryConnect(socket))).toBe(
      "FileNotFoundError",
    );
  });

  it("a home reached through a symbolic link is hidden where it really is too", () => {
    const real = path.join(base, "real-home");
    fs.mkdirSync(real, { mode: 0o700 });
    fs.writeFileSync(path.join(real, "token"), "secret", { mode: 0o600 });
    const link = path.join(base, "link-home");
    fs.symlinkSync(real, link);
    const cwd = fs.mkdtempSync(path.join(base, "work-"));
    expect(inSandbox({ ROOST_HOME: link }, cwd, tryRead(path.join(link, "token")))).toBe("FileNotFoundError");
    expect(inSandbox({ ROOST_HOME: link }, cwd, tryRead(path.join(real, "token")))).toBe("FileNotFoundError");
  });
});

describe("a program the sandboxed job runs from /tmp", () => {
  const made: string[] = [];
  afterAll(() => {
    for (const m of made) fs.rmSync(m, { recursive: true, force: true });
  });

  it("is there, read-only, in the job's private /tmp; the rest of the real /tmp is not", () => {
    const programs = fs.mkdtempSync("/tmp/roost-program-");
    const other = fs.mkdtempSync("/tmp/roost-other-");
    const work = fs.mkdtempSync("/var/tmp/roost-work-");
    made.push(programs, other, work);
    fs.writeFileSync(path.join(other, "secret.txt"), "not the job's");
    fs.writeFileSync(path.join(programs, "lib.py"), "WORD = 'ran'\n");
    const script = path.join(programs, "agent.py");
    fs.writeFileSync(
      script,
      [
        "import sys; sys.path.insert(0, sys.argv[1])",
        "from lib import WORD; print(WORD)",
        tryRead(path.join(other, "secret.txt")),
        `try:\n  open(${JSON.stringify(path.join(programs, "planted"))}, "w"); print("written")\nexcept Exception as e:\n  print(type(e).__name__)`,
      ].join("\n"),
    );
    const command = ["python3", script, programs];
    const home = fs.mkdtempSync("/var/tmp/roost-home-");
    made.push(home);
    const rec = { id: "j1", worktree: null, launch: { cwd: work, command } } as unknown as JobRecord;
    const args = bwrapArgs(roostPaths({ ROOST_HOME: home }), rec, {
      network: true,
      writable: [],
      tree: fs.realpathSync(work),
    });
    const run = spawnSync("bwrap", [...args, ...command], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    // Its program and the module beside it run; another directory of /tmp is not there; its own
    // directory is read-only.
    expect(run.stdout.trim().split("\n")).toEqual(["ran", "FileNotFoundError", "OSError"]);
    expect(fs.existsSync(path.join(programs, "planted"))).toBe(false);
  });
});
