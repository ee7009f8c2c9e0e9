/**
 * A home that is not the owner's is refused (server/home.ts). The daemon, `roost start`, the CLI
 * and the pty host check the home and what they read there before using any of it, and a refused
 * start changes nothing. Real processes; these tests run as root and make another user's files
 * (uid 65534, nobody) with chown.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { answers, CLI, ROOT, TestDaemon } from "../helpers/daemon.js";
import { isAlive, killPtyHost } from "../helpers/processes.js";

const NOBODY = 65534;
const HOST = path.join(ROOT, "dist/server/pty/host.js");
const temps: string[] = [];
const procs: ChildProcess[] = [];
const daemons: TestDaemon[] = [];

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  if (process.getuid?.() !== 0) throw new Error("these tests make other users' files: run them as root");
});

afterEach(async () => {
  for (const p of procs.splice(0)) if (p.pid && isAlive(p.pid)) process.kill(p.pid, "SIGKILL");
  for (const d of daemons.splice(0)) await d.cleanup();
  for (const dir of temps.splice(0).reverse()) {
    killPtyHost(dir); // none should have started; if one did, it is not left behind
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-home-"));
  temps.push(dir);
  return dir;
}

/** Another user's: what a second local user makes in the shared temp folder. */
function theirs(p: string, mode: number): string {
  fs.chownSync(p, NOBODY, NOBODY);
  fs.chmodSync(p, mode);
  return p;
}

/** A daemon's environment on `home`: none of this machine's ROOST_ variables, a HOME of its own. */
function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith("ROOST_")) env[k] = v;
  return {
    ...env,
    ROOST_HOME: home,
    ROOST_PORT: "0",
    HOME: tempDir(),
    ROOST_STOP_GRACE_MS: "1000",
    ...extra,
  };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node script args` to its end; one still running after 15 s (not refused) is killed. */
function run(script: string, args: string[], env: Record<string, string>): Promise<Ran> {
  const proc = spawn(process.execPath, [script, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  procs.push(proc);
  let stdout = "";
  let stderr = "";
  proc.stdout!.on("data", (d) => {
    stdout += d;
  });
  proc.stderr!.on("data", (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
  return new Promise((resolve) =>
    proc.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

const roost = (args: string[], env: Record<string, string>) => run(CLI, args, env);

/** Each entry under `dir` as lstat sees it, and each file's bytes: what a refusal leaves as it was. */
function snapshot(dir: string): Record<string, unknown> {
  const all: Record<string, unknown> = {};
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    all[p] = { uid: st.uid, gid: st.gid, mode: st.mode, size: st.size, mtime: st.mtimeMs };
    if (st.isFile()) all[`${p} bytes`] = fs.readFileSync(p, "base64");
    if (st.isSymbolicLink()) all[`${p} ->`] = fs.readlinkSync(p);
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
  };
  walk(dir);
  return all;
}

/** Unix sockets anyone listens on under `dir` (/proc/net/unix). */
const listenersIn = (dir: string) =>
  fs
    .readFileSync("/proc/net/unix", "utf8")
    .split("\n")
    .filter((line) => line.includes(`${dir}/`));

/** A refused daemon start: exit 2, a message naming `where` and what to do, and nothing changed. */
async function expectRefused(home: string, where: string, fix: RegExp, extra: Record<string, string> = {}) {
  const before = snapshot(home);
  const r = await roost(["daemon"], envFor(home, extra));
  expect(r.code, r.stdout + r.stderr).toBe(2);
  expect(r.stderr).toContain(`roost: refusing to use ${where}: it `);
  expect(r.stderr).toMatch(fix);
  expect(r.stdout).not.toMatch(/listening|hub/);
  expect(snapshot(home)).toEqual(before);
  expect(listenersIn(home)).toEqual([]);
  return r.stderr;
}

/** A home of ours, 0700, as roost makes one, with these files in it. */
function ourHome(files: Record<string, string> = {}): string {
  const home = tempDir();
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(home, name), content);
  return home;
}

describe("the daemon refuses a home that is not its user's", () => {
  it("refuses a home another user made in the shared temp folder, and never adopts their token", async () => {
    const home = theirs(tempDir(), 0o777);
    const token = path.join(home, "token");
    fs.writeFileSync(token, "the-attackers-token\n");
    theirs(token, 0o644);
    const stderr = await expectRefused(home, home, /chown 0 '.*' && chmod 700|unset ROOST_HOME/);
    expect(stderr).toContain("is owned by uid 65534 (mode 0777)");
    expect(stderr).toContain("ROOST_HOME");
    const st = fs.statSync(home);
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([NOBODY, NOBODY, 0o777]);
    expect(fs.readFileSync(token, "utf8")).toBe("the-attackers-token\n");
    expect(fs.statSync(token).uid).toBe(NOBODY);
    expect(fs.existsSync(path.join(home, "roost.sock"))).toBe(false);
    expect(await answers(path.join(home, "roost.sock"))).toBe(false);
  });

  it("`roost start` refuses it too, writing no daemon.log there", async () => {
    const home = theirs(tempDir(), 0o777);
    const before = snapshot(home);
    const r = await roost(["start"], envFor(home));
    const started = /started \(pid (\d+)\)/.exec(r.stdout); // detached: killed here if it ran
    if (started) process.kill(Number(started[1]), "SIGKILL");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`roost: refusing to use ${home}: it is owned by uid 65534`);
    expect(snapshot(home)).toEqual(before);
  });

  it("refuses a home of ours below a directory others may write without the sticky bit", async () => {
    const parent = tempDir();
    fs.chmodSync(parent, 0o777);
    const home = path.join(parent, "home");
    fs.mkdirSync(home, { mode: 0o700 });
    await expectRefused(home, parent, /sticky bit.*chmod go-w/);
  });

  it("refuses a token that is a symbolic link, and leaves what it points to alone", async () => {
    const elsewhere = path.join(tempDir(), "secret");
    fs.writeFileSync(elsewhere, "not roost's\n", { mode: 0o600 });
    const home = ourHome();
    fs.symlinkSync(elsewhere, path.join(home, "token"));
    await expectRefused(home, path.join(home, "token"), /symbolic link.*delete it \(rm '.*token'\)/);
    expect(fs.readFileSync(elsewhere, "utf8")).toBe("not roost's\n");
  });

  it("refuses a token of ours that others may read: it may have leaked", async () => {
    const home = ourHome({ token: "mine\n" });
    fs.chmodSync(path.join(home, "token"), 0o644);
    await expectRefused(
      home,
      path.join(home, "token"),
      /mode 0644: others may read it. It may have been read: delete it \(rm '/,
    );
  });

  it("refuses a token another user owns inside our 0700 home", async () => {
    const home = ourHome({ token: "theirs\n" });
    theirs(path.join(home, "token"), 0o600);
    await expectRefused(home, path.join(home, "token"), /owned by uid 65534.*roost makes a new token/);
  });

  it("refuses a roost.json another user owns: it says what commands run", async () => {
    const home = ourHome({ "roost.json": "{}" });
    theirs(path.join(home, "roost.json"), 0o644);
    await expectRefused(home, path.join(home, "roost.json"), /owned by uid 65534.*chown 0 '/);
  });

  it.each([
    ["0664", 0o664],
    ["0646", 0o646],
  ])("refuses a roost.json of ours with mode %s: others may write it", async (_, mode) => {
    const home = ourHome({ "roost.json": "{}" });
    fs.chmodSync(path.join(home, "roost.json"), mode);
    await expectRefused(home, path.join(home, "roost.json"), /others may write it\. chmod go-w '/);
  });

  it("refuses a roost.db that is a symbolic link, before SQLite opens it", async () => {
    const elsewhere = path.join(tempDir(), "other.db");
    fs.writeFileSync(elsewhere, "", { mode: 0o644 });
    const home = ourHome();
    fs.symlinkSync(elsewhere, path.join(home, "roost.db"));
    await expectRefused(home, path.join(home, "roost.db"), /symbolic link/);
    expect(fs.statSync(elsewhere).mode & 0o777).toBe(0o644);
    expect(fs.statSync(elsewhere).size).toBe(0);
  });

  it.each([
    ["0777", 0o777],
    ["1777, sticky", 0o1777],
  ])("refuses a ROOST_SOCKET in a directory others may write (mode %s)", async (_, mode) => {
    const home = ourHome();
    const dir = tempDir();
    fs.chmodSync(dir, mode);
    const socket = path.join(dir, "roost.sock");
    await expectRefused(home, dir, /ROOST_SOCKET|sticky bit/, { ROOST_SOCKET: socket });
    expect(fs.existsSync(socket)).toBe(false);
    expect(fs.existsSync(path.join(home, "token"))).toBe(false);
  });

  it("refuses a home of ours open to others, with another user's file in it, and does not tighten it", async () => {
    const home = ourHome({ "roost.json": "{}" });
    fs.chmodSync(home, 0o777);
    theirs(path.join(home, "roost.json"), 0o644);
    await expectRefused(home, path.join(home, "roost.json"), /owned by uid 65534/);
    expect(fs.statSync(home).mode & 0o777).toBe(0o777);
  });
});

describe("a home of the daemon's user", () => {
  it("ours with mode 0755 is made 0700, and the daemon starts", async () => {
    const home = ourHome();
    fs.chmodSync(home, 0o755);
    const d = new TestDaemon(home, envFor(home));
    daemons.push(d);
    await d.start();
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
    expect((await (await d.client()).request("list", {})).ok).toBe(true);
  });

  it("a fresh one is made 0700 with a 0600 token, and the CLI speaks to it", async () => {
    const home = path.join(tempDir(), "new-home");
    const env = envFor(home);
    const d = new TestDaemon(home, env);
    daemons.push(d);
    await d.start();
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
    expect(fs.lstatSync(path.join(home, "token")).mode & 0o777).toBe(0o600);
    expect(d.token).toMatch(/^[\w-]{43}$/);
    const ls = await roost(["ls"], env);
    expect(ls.code, ls.stderr).toBe(0);
  });
});

describe("the CLI and the pty host check too", () => {
  it("the CLI will not speak to a socket in a directory another user may write", async () => {
    const dir = theirs(tempDir(), 0o777);
    const socket = path.join(dir, "roost.sock");
    let connections = 0;
    const server = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      fs.chownSync(socket, NOBODY, NOBODY);
      const r = await roost(["ls"], envFor(ourHome(), { ROOST_SOCKET: socket }));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`roost: refusing to use ${dir}: it is owned by uid 65534`);
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("the pty host will not start in a home another user owns", async () => {
    const home = theirs(tempDir(), 0o777);
    const before = snapshot(home);
    const r = await run(HOST, [home], envFor(home));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot start: refusing to use ${home}: it is owned by uid 65534`);
    expect(snapshot(home)).toEqual(before);
  });
});
