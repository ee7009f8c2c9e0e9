/**
 * `roost attach` and `roost log`, as a user runs them: the built command (dist/server/cli/main.js,
 * so run `npm run build` first). `log` reads files, so its tests write them; `attach` speaks to a
 * real daemon, its stdin and stdout pipes standing in for the user's terminal.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type IPty, spawn as ptySpawn } from "@lydell/node-pty";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { stepProcess, untilGone } from "../helpers/jobs.js";

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function roost(args: string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 30000 }, (err, stdout, stderr) => {
      const code = err ? (err as { code?: unknown }).code : 0;
      resolve({ code: typeof code === "number" ? code : -1, stdout, stderr });
    });
  });
}

async function ok(args: string[], env: Record<string, string>): Promise<string> {
  const r = await roost(args, env);
  if (r.code !== 0) throw new Error(`roost ${args.join(" ")} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** A running `roost attach`: what it printed so far, and its exit. */
class Attached {
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;

  constructor(readonly proc: ChildProcess) {
    proc.stdout!.setEncoding("utf8").on("data", (s: string) => {
      this.stdout += s;
    });
    proc.stderr!.setEncoding("utf8").on("data", (s: string) => {
      this.stderr += s;
    });
    proc.stdin!.on("error", () => {}); // written to after it exited: not this test's failure
    this.exited = new Promise((resolve) => proc.once("exit", (code) => resolve(code)));
  }

  type(text: string): void {
    this.proc.stdin!.write(text);
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
  }
}

const running: Attached[] = [];
const terminals: IPty[] = [];

/** `roost attach ARGS...` at a terminal of its own (cols x rows): what it wrote there, and its exit. */
function attachAtTerminal(args: string[], env: Record<string, string>, cols: number, rows: number) {
  const term = ptySpawn(process.execPath, [CLI, "attach", ...args], { cols, rows, env, cwd: os.tmpdir() });
  terminals.push(term);
  const seen = { text: "" };
  term.onData((data) => {
    seen.text += data;
  });
  // A death by a signal is no exit code: it is named, so that `toBe(0)` tells them apart.
  const exited = new Promise<number | string>((resolve) =>
    term.onExit(({ exitCode, signal }) => resolve(signal ? `killed by signal ${signal}` : exitCode)),
  );
  return { term, seen, exited };
}

/** `roost attach ARGS...` with piped stdio; waits until it says it is attached (or watching). */
async function attach(args: string[], env: Record<string, string>): Promise<Attached> {
  const a = new Attached(spawn(process.execPath, [CLI, "attach", ...args], { env, stdio: "pipe" }));
  running.push(a);
  await until(`roost attach ${args.join(" ")} to attach`, () => {
    if (a.proc.exitCode !== null) throw new Error(`it exited ${a.proc.exitCode}: ${a.stderr}`);
    return /^(attached to|watching) /m.test(a.stderr);
  });
  return a;
}

const rowOf = async (env: Record<string, string>, id: string) =>
  JSON.parse(await ok(["ls", id, "--json"], env)).rows[0];

/** A daemon whose `shell` profile is bash, whatever the user's $SHELL. */
const shellDaemon = () => startDaemon({ env: { SHELL: "/bin/bash" } });

/** The size of the job's terminal as the pty host has it (what `attach` answers), as "COLSxROWS". */
async function terminalSize(daemon: TestDaemon, id: string): Promise<string> {
  const c = await daemon.client();
  try {
    const { cols, rows } = await c.ok("attach", { id });
    return `${cols}x${rows}`;
  } finally {
    c.close();
  }
}

let d: TestDaemon | undefined;
const homes: string[] = [];
afterEach(async () => {
  for (const a of running.splice(0)) a.kill();
  for (const t of terminals.splice(0)) {
    try {
      t.kill("SIGKILL");
    } catch {}
  }
  await d?.cleanup();
  d = undefined;
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
});

/** A ROOST_HOME with no daemon, and a job directory in it holding these transcript files. */
function homeWith(id: string, files: Record<string, string | Buffer>): Record<string, string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-log-"));
  homes.push(home);
  fs.mkdirSync(path.join(home, "jobs", id), { recursive: true });
  for (const [name, content] of Object.entries(files))
    fs.writeFileSync(path.join(home, "jobs", id, name), content);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith("ROOST_")) env[k] = v;
  env.ROOST_HOME = home;
  return env;
}

const ESC = "\u001b";

describe("roost log", () => {
  const older = `first line\r\n${ESC}[1;31mred${ESC}[0m and ${ESC}[38;5;208mmore${ESC}[m\r\n`;
  const newest =
    `${ESC}]0;a title${ESC}\\${ESC}]8;;https://x.example${ESC}\\link${ESC}]8;;${ESC}\\ text\r\n` +
    `${ESC}(0qq${ESC}(B box ${ESC}=${ESC}[?25l${ESC}[?2004hmodes\r\n` +
    "progress 10%\rprogress 55%\rprogress 100%\r\n" +
    `abcdef\rXY\r\n` +
    `typo\b \b\b \bed\r\n` +
    `long old text\r${ESC}[Kshort\r\n` +
    "$ ";

  it("prints the transcript as written, the older file first, and --tail N of it", async () => {
    const env = homeWith("j3", { "transcript.1.log": older, "transcript.log": newest });
    const raw = await ok(["log", "j3"], env);
    expect(raw).toBe(older + newest);
    expect(await ok(["log", "j3", "--tail", "2"], env)).toBe(`long old text\r${ESC}[Kshort\r\n$ `);
    expect(await ok(["log", "j3", "--tail", "0"], env)).toBe("");
    expect(await ok(["log", "j3", "--tail", "100"], env)).toBe(older + newest);

    // Either file alone is the whole transcript.
    expect(await ok(["log", "j4"], homeWith("j4", { "transcript.log": "only\n" }))).toBe("only\n");
    expect(await ok(["log", "j5"], homeWith("j5", { "transcript.1.log": "rotated\n" }))).toBe("rotated\n");
  });

  it("--plain: escape sequences gone, overwritten text as it ended up", async () => {
    const env = homeWith("j3", { "transcript.1.log": older, "transcript.log": newest });
    const plain = await ok(["log", "j3", "--plain"], env);
    expect(plain).toBe(
      [
        "first line",
        "red and more",
        "link text",
        "qq box modes",
        "progress 100%",
        "XYcdef",
        "tyed",
        "short",
        "$",
        "",
      ].join("\n"),
    );
    expect(plain).not.toContain(ESC);
    expect(plain).not.toContain("\r");
    expect(await ok(["log", "j3", "--plain", "--tail", "3"], env)).toBe("tyed\nshort\n$\n");

    const asJson = JSON.parse(await ok(["log", "j3", "--json", "--tail", "2"], env));
    expect(asJson).toEqual({
      id: "j3",
      bytes: Buffer.byteLength(older + newest),
      text: "short\n$\n",
    });
  });

  it("--plain keeps UTF-8 whole and follows the cursor on a line", async () => {
    const env = homeWith("j3", {
      "transcript.log": Buffer.from(
        `héllo wörld ✓ 🙂\r\n` +
          // a shell redrawing its line: back to the start, erase, write again
          `$ ech\r${ESC}[K$ echo hi\r\n` +
          // cursor right, column, delete and insert
          `a${ESC}[3Cb${ESC}[1Gz${ESC}[2P!\r\n` +
          // a full-screen program's drawing: positions start new lines
          `${ESC}[2J${ESC}[1;1Htop row${ESC}[2;1Hsecond row${ESC}[3;5H${ESC}[Kthird\r\n`,
      ),
    });
    expect(await ok(["log", "j3", "--plain"], env)).toBe(
      ["héllo wörld ✓ 🙂", "$ echo hi", "z!b", "top row", "second row", "    third", ""].join("\n"),
    );
  });

  it("no transcript: exit 1 and why; a bad ID or --tail: exit 64", async () => {
    const env = homeWith("j3", { "transcript.log": "" });
    for (const id of ["j3", "j9"]) {
      const r = await roost(["log", id], env);
      expect(r.code, id).toBe(1);
      expect(r.stderr).toBe(`roost: no transcript for ${id} (no such job, or it printed nothing)\n`);
      expect(r.stdout).toBe("");
    }
    for (const [args, says] of [
      [["log", "../j3"], '"../j3" is not a job id'],
      [["log", "j3", "--tail=-1"], "--tail must be a whole number"],
      [["log", "j3", "--tail", "x"], "--tail must be a whole number"],
      [["log"], "usage: roost log ID"],
    ] as const) {
      const r = await roost([...args], env);
      expect(r.code, args.join(" ")).toBe(64);
      expect(r.stderr, args.join(" ")).toContain(says);
    }
  });

  it("both commands have --help and are in the list", async () => {
    const env = homeWith("j3", {});
    expect(await ok(["attach", "--help"], env)).toContain("usage: roost attach ID [--watch]\n");
    const logHelp = await ok(["log", "--help"], env);
    expect(logHelp).toContain("usage: roost log ID [--plain] [--tail N] [--terminal] [--json]\n");
    // A job's conversation first, when it has one; its terminal's transcript for the asking.
    expect(logHelp).toContain(
      "--terminal prints its terminal's\ntranscript instead, as does a job without one.",
    );
    // --plain is the screen's text, not the program's output alone: the help says so.
    expect(logHelp).toContain("the prompt and the typed task echoed included");
    expect(logHelp).toContain("the screen as text (prompt and echo included)");
    expect(await ok(["attach", "--help"], env)).toContain("and its end detaches, exit 0");
    const all = await ok(["help"], env);
    expect(all).toMatch(/^ {2}attach +Show a job's live terminal/m);
    expect(all).toMatch(/^ {2}log +Print a job's conversation, or what it printed/m);
  });
});

describe("roost attach", () => {
  it("types into the job and shows its output; a watcher sees it too; the job outlives both", async () => {
    d = await shellDaemon();
    await ok(["dispatch", "shell", "--name", "term"], d.env);
    await until("j1 running", async () => (await rowOf(d!.env, "j1")).life === "running");

    const watcher = await attach(["--watch", "j1"], d.env);
    expect(watcher.stderr).toMatch(/^watching j1 \(shell\); Ctrl-C or Ctrl-\] ends it/);
    const user = await attach(["j1"], d.env);
    expect(user.stderr).toBe("attached to j1 (shell); detach with Ctrl-]\n");

    user.type("echo attached-$((6*7))\r");
    await until("the answer in the attached terminal", () => user.stdout.includes("attached-42"));
    await until("the answer in the watcher", () => watcher.stdout.includes("attached-42"));
    // The watcher's keys go nowhere.
    watcher.type("echo watched-$((2*2))\r");

    user.kill("SIGKILL");
    await user.exited;
    expect((await rowOf(d.env, "j1")).life).toBe("running");
    await ok(["reply", "j1", "echo still-$((1+1))"], d.env);
    await until("the job's next output in the watcher", () => watcher.stdout.includes("still-2"));
    expect(watcher.stdout).not.toContain("watched-4");

    watcher.kill("SIGINT");
    expect(await watcher.exited).toBe(0);
    expect(watcher.stderr).toMatch(/\ndetached from j1; it keeps running\n$/);
    expect((await rowOf(d.env, "j1")).life).toBe("running");

    // Its transcript outlives it.
    await ok(["stop", "j1"], d.env);
    expect(await ok(["log", "j1"], d.env)).toContain("attached-42");
    const plain = await ok(["log", "j1", "--plain"], d.env);
    expect(plain).toMatch(/^attached-42$/m);
    expect(plain).toMatch(/^still-2$/m);
    expect(plain).not.toContain(ESC);
  });

  it("the screen comes first: what the job showed before the attach is drawn", async () => {
    d = await shellDaemon();
    await ok(["dispatch", "shell", "echo before-$((3+4))"], d.env);
    await until("its output", async () => (await ok(["log", "j1", "--plain"], d!.env)).includes("before-7"));
    const user = await attach(["j1"], d.env);
    await until("the screen", () => user.stdout.includes("before-7"));
  });

  it("Ctrl-] detaches; the typing before it reaches the job", async () => {
    d = await shellDaemon();
    await ok(["dispatch", "shell"], d.env);
    const user = await attach(["j1"], d.env);
    user.type("echo typed-$((5*5))\r\u001d");
    expect(await user.exited).toBe(0);
    expect(user.stderr).toMatch(/\ndetached from j1; it keeps running\n$/);
    expect((await rowOf(d.env, "j1")).life).toBe("running");
    await until("the typing in its transcript", async () =>
      (await ok(["log", "j1", "--plain"], d!.env)).includes("typed-25"),
    );
  });

  it("a stdin that ends detaches, exit 0, once what came before it was typed (echo ... | roost attach)", async () => {
    d = await shellDaemon();
    await ok(["dispatch", "shell"], d.env);
    const piped = spawn(
      "bash",
      ["-c", `printf 'echo piped-$((2+3))\\r' | "${process.execPath}" "${CLI}" attach j1`],
      {
        env: d.env,
        stdio: "pipe",
      },
    );
    const user = new Attached(piped);
    running.push(user);
    expect(await user.exited).toBe(0);
    expect(user.stderr).toMatch(/\ndetached from j1; it keeps running\n$/);
    expect((await rowOf(d.env, "j1")).life).toBe("running");
    await until("the piped line in its transcript", async () =>
      (await ok(["log", "j1", "--plain"], d!.env)).includes("piped-5"),
    );
    // An empty stdin (`roost attach j1 < /dev/null`): attached, then detached at once.
    const empty = new Attached(spawn(process.execPath, [CLI, "attach", "j1"], { env: d.env, stdio: "pipe" }));
    running.push(empty);
    empty.proc.stdin!.end();
    expect(await empty.exited).toBe(0);
    expect(empty.stderr).toMatch(/^attached to j1 .*\ndetached from j1; it keeps running\n$/s);
  });

  it("a job stopped meanwhile: it says so; SIGTERM detaches", async () => {
    d = await shellDaemon();
    await ok(["dispatch", "shell"], d.env);
    await ok(["dispatch", "shell"], d.env);
    const one = await attach(["j1"], d.env);
    await ok(["stop", "j1"], d.env);
    expect(await one.exited).toBe(0);
    expect(one.stderr).toMatch(/\nj1 was stopped; `roost respawn j1` starts it again\n$/);

    const two = await attach(["j2"], d.env);
    two.kill("SIGTERM");
    expect(await two.exited).toBe(0);
    expect(two.stderr).toMatch(/\ndetached from j2; it keeps running\n$/);
  });

  it("at a terminal: its size, keys as typed (Ctrl-C too), a resize followed; Ctrl-] detaches", async () => {
    d = await shellDaemon();
    await ok(["dispatch", "shell"], d.env);
    const { term, seen, exited } = attachAtTerminal(["j1"], d.env, 70, 20);
    await until("attached", () => seen.text.includes("attached to j1 (shell); detach with Ctrl-]"));
    term.write("stty size\r");
    await until("the job's terminal at this one's size", () => /^20 70\r?$/m.test(seen.text));
    term.write("sleep 30\r");
    const { pid } = await rowOf(d.env, "j1");
    const sleeping = await until("the sleep running in the job", () => stepProcess(pid, "sleep 30"));
    term.write("\u0003"); // raw mode: Ctrl-C is the job's, not a signal to roost attach
    await untilGone(sleeping);
    term.write("echo interrupted-$((3*3))\r");
    await until("the shell back, after the sleep", () => seen.text.includes("interrupted-9"));
    // Its output as it is: a lone line feed stays one (no carriage return added on the way).
    term.write("stty -opost; printf 'lf-1\\nlf-2\\n'; stty opost\r");
    await until("the job's lone line feeds", () => seen.text.includes("lf-1\nlf-2\n"));
    term.resize(90, 30);
    // Typed once the job's terminal has the new size, so that stty reads that one.
    await until("the job's terminal resized", async () => (await terminalSize(d!, "j1")) === "90x30");
    term.write("stty size\r");
    await until("stty saying the new size", () => /^30 90\r?$/m.test(seen.text));
    term.write("\u001d");
    expect(await exited).toBe(0);
    // The modes a job may set are put back, then a line of its own says it runs on.
    expect(seen.text).toContain("\u001b[?25h");
    expect(seen.text).toMatch(/\r\n+detached from j1; it keeps running\r\n$/);
    expect((await rowOf(d.env, "j1")).life).toBe("running");

    // --watch: no resize, no typing; Ctrl-C ends it.
    const watch = attachAtTerminal(["j1", "--watch"], d.env, 50, 10);
    await until("watching", () => watch.seen.text.includes("watching j1 (shell)"));
    // The viewer that set 90x30 has left: the job is back to its own size.
    expect(watch.seen.text).toContain("(its terminal is 120x40, this one 50x10)");
    watch.term.write("echo nope\r\u0003");
    expect(await watch.exited).toBe(0);
    expect(watch.seen.text).toMatch(/detached from j1; it keeps running\r\n$/);
    expect(await ok(["log", "j1", "--plain"], d.env)).not.toContain("nope");
  });

  it("the daemon going away ends it: exit 1, saying the job keeps running", async () => {
    d = await shellDaemon();
    await ok(["dispatch", "shell"], d.env);
    const user = await attach(["j1"], d.env);
    await d.kill("SIGTERM");
    expect(await user.exited).toBe(1);
    expect(user.stderr).toMatch(
      /\nroost: the connection to roost closed \(the daemon stopped\?\); j1 keeps running\n$/,
    );
  });

  it("an unknown job: exit 1 and not_found; an ended one: exit 1, offering respawn and log", async () => {
    d = await shellDaemon();
    const unknown = await roost(["attach", "j99"], d.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('roost: no job "j99": `roost ls` lists the jobs\n');
    expect(unknown.stdout).toBe("");

    await ok(["dispatch", "shell"], d.env);
    await ok(["reply", "j1", "exit 0"], d.env); // a reply, not its task: a respawn does not type it again
    await until("j1 exited", async () => (await rowOf(d!.env, "j1")).life === "exited");
    const ended = await roost(["attach", "j1"], d.env);
    expect(ended.code).toBe(1);
    expect(ended.stderr).toBe(
      "roost: j1 has ended (done), so it has no live terminal: `roost respawn j1` starts it again, " +
        "`roost log j1` shows what it printed\n",
    );
    expect(ended.stdout).toBe("");
    // As it offers: respawn starts it again, and attach then shows it.
    await ok(["respawn", "j1"], d.env);
    const again = await attach(["j1"], d.env);
    expect(again.stderr).toMatch(/^attached to j1 \(shell\)/);
  });

  it("says roost is not running, exit 1, when nothing answers", async () => {
    const env = homeWith("j1", {});
    const r = await roost(["attach", "j1"], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^roost is not running/);
  });
});
