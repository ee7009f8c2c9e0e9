/**
 * The `roost` CLI, as a user runs it: the built command (dist/server/cli/main.js, so run
 * `npm run build` first) against a real daemon on a fresh temp ROOST_HOME.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { freshEnv, json, needsBuild, ok, PLAIN_SHELL, roost, rowOf } from "../helpers/cli.js";
import {
  agentProfile,
  CLI,
  type DaemonOptions,
  isAlive,
  startDaemon,
  type TestDaemon,
  until,
} from "../helpers/daemon.js";
import { killPtyHost, killQuietly } from "../helpers/processes.js";

const daemon = (opts: DaemonOptions = {}) => startDaemon({ ...opts, env: { ...PLAIN_SHELL, ...opts.env } });

const COMMANDS = [
  "ls",
  "list",
  "dispatch",
  "reply",
  "stop",
  "rm",
  "respawn",
  "pin",
  "unpin",
  "rename",
  "profiles",
  "pi",
  "mcp",
  "events",
  "schedule",
  "schedules",
  "open",
  "token",
  "remote",
  "start",
  "shutdown",
  "daemon",
  "help",
];

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

beforeAll(needsBuild);

describe("help and usage", () => {
  // One test a command: a CLI start is a second or more on a loaded machine, and there are many.
  it.each(COMMANDS)("%s --help prints its usage, options and examples, exit 0", async (name) => {
    const { home, env } = freshEnv();
    try {
      const r = await roost([name, "--help"], env);
      expect(r.code, name).toBe(0);
      const shown = name === "list" ? "ls" : name === "schedules" ? "schedule" : name;
      expect(r.stdout, name).toContain(`usage: roost ${shown}`);
      expect(r.stdout, name).toContain("options:");
      expect(r.stdout, name).toMatch(/examples?:\n {2}roost/);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("help lists every command; -h, help COMMAND and --help on a wrong line print the usage", async () => {
    const { home, env } = freshEnv();
    try {
      expect((await roost(["reply", "-h"], env)).stdout).toBe(await ok(["reply", "--help"], env));
      const all = await roost(["help"], env);
      expect(all.code).toBe(0);
      for (const name of COMMANDS.filter((c) => c !== "list" && c !== "schedules"))
        expect(all.stdout).toContain(`  ${name} `);
      expect((await roost(["--help"], env)).stdout).toBe(all.stdout);
      expect(await ok(["help", "reply"], env)).toContain("usage: roost reply ID TEXT... [--steer]");
      // --help wins over a command line that is otherwise wrong
      expect((await roost(["dispatch", "--bogus", "--help"], env)).code).toBe(0);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("exits 64 with the command's usage when the command line is wrong", async () => {
    const { home, env } = freshEnv();
    try {
      const cases: [string[], string][] = [
        [["dispatch"], "usage: roost dispatch PROFILE"],
        [["ls", "--bogus"], "unknown option --bogus"],
        [["reply", "j1"], "usage: roost reply ID TEXT..."],
        [["stop"], "usage: roost stop ID..."],
        [["ls", "j1", "j2"], "ls takes [ID], not 2 arguments"],
        [["events", "--limit", "0"], "--limit must be a whole number"],
        [["dispatch", "shell", "--cwd"], "usage: roost dispatch"],
        [["frobnicate"], 'roost: no command "frobnicate" (`roost help` lists them)\n'],
        [
          ["dispach", "shell"],
          'roost: no command "dispach": did you mean `roost dispatch`? (`roost help` lists them)\n',
        ],
        [["sotp", "j1"], 'roost: no command "sotp": did you mean `roost stop`?'],
        [["lst"], 'roost: no command "lst": did you mean `roost ls`?'],
        [["help", "profils"], 'roost: no command "profils": did you mean `roost profiles`?'],
        [
          ["ls", "--stat", "blocked"],
          "roost: unknown option --stat: did you mean --state?\nusage: roost ls ",
        ],
        [["events", "--folow"], "roost: unknown option --folow: did you mean --follow?\n"],
        [["events", "--foll"], "roost: unknown option --foll: did you mean --follow?\n"],
        [["ls", "--jsn"], "roost: unknown option --jsn: did you mean --json?\n"],
        [["reply", "j1", "-x"], 'roost: unknown option -x (a TEXT that starts with "-" goes after `--`)\n'],
        [
          ["ls", "--frobnicate"],
          'roost: unknown option --frobnicate (a TEXT that starts with "-" goes after `--`)\n',
        ],
        [[], "usage: roost COMMAND"],
      ];
      for (const [args, says] of cases) {
        const r = await roost(args, env);
        expect(r.code, args.join(" ")).toBe(64);
        expect(r.stderr, args.join(" ")).toContain(says);
        expect(r.stdout).toBe("");
      }
      // With --json, the usage error is one line of JSON too: no usage text around it.
      const asJson = await roost(["ls", "--stat", "blocked", "--json"], env);
      expect(asJson.code).toBe(64);
      expect(asJson.stdout).toBe("");
      expect(asJson.stderr).toBe(
        `${JSON.stringify({ ok: false, code: "usage", error: "unknown option --stat: did you mean --state?" })}\n`,
      );
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("says roost is not running, exit 1, when nothing answers on the socket", async () => {
    const { home, env } = freshEnv();
    try {
      for (const args of [["ls"], ["dispatch", "shell", "ls"], ["events", "--follow"]]) {
        const r = await roost(args, env);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          `roost is not running (no answer on ${path.join(home, "roost.sock")}): start it with \`roost start\`\n`,
        );
        const asJson = await roost([...args, "--json"], env);
        expect(asJson.code).toBe(1);
        expect(JSON.parse(asJson.stderr)).toEqual({
          ok: false,
          code: "not_running",
          error: r.stderr.trimEnd(),
        });
      }
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("jobs", () => {
  it("ls: a hint when empty, and {rows: []} as JSON", async () => {
    d = await daemon();
    expect(await ok(["ls"], d.env)).toBe("no jobs yet: try `roost dispatch shell 'ls'`\n");
    expect(await json(["ls"], d.env)).toEqual({ rows: [] });
    expect(await json(["list"], d.env)).toEqual({ rows: [] });
  });

  it("dispatch starts a shell job in this directory, and ls shows it", async () => {
    d = await daemon();
    const cwd = fs.realpathSync(os.tmpdir());
    expect(await ok(["dispatch", "shell", "echo", "hello", "there"], d.env, cwd)).toBe(
      `started j1 (shell) in ${cwd}\n`,
    );
    const result = await json(["dispatch", "shell", "true", "--name", "second", "--cwd", d.home], d.env);
    expect(result.job).toMatchObject({ id: "j2", name: "second", profile: "shell", cwd: d.home });

    // The hub's order (newest first); the default, triage's, depends on how far each job got.
    const { rows } = await json(["ls", "--sort", "list"], d.env);
    expect(rows.map((r: any) => r.id)).toEqual(["j2", "j1"]);
    expect(rows[1]).toMatchObject({ name: "echo hello there", cwd, kind: "terminal" });

    const table = await ok(["ls", "--sort", "list"], { ...d.env, COLUMNS: "80" });
    const [head, ...lines] = table.trimEnd().split("\n");
    expect(head).toMatch(/^ID +NAME +STATE +UPDATED/);
    expect(lines[0]).toMatch(/^j2 +second +\S/);
    expect(lines[1]).toMatch(/^j1 +echo hello there +\S/);
    expect(table).not.toContain("\u001b"); // not a terminal: no colour
    for (const line of table.split("\n")) expect(line.length).toBeLessThanOrEqual(80);

    const again = await json(["dispatch", "shell", "true", "--request-id", "once"], d.env);
    const dup = await ok(["dispatch", "shell", "true", "--request-id", "once"], d.env);
    expect(dup).toBe(`already started ${again.job.id} (shell) in ${again.job.cwd} (duplicate)\n`);
  });

  it("dispatch fails with the daemon's code; a job that could not start is failed", async () => {
    // A program that is there at dispatch and gone by the respawn: the one way left for a job
    // to reach the pty host and fail to start (dispatch refuses a program that is missing).
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "roost-prog-"));
    const prog = path.join(bin, "prog");
    fs.writeFileSync(prog, "#!/bin/sh\nexec sleep 100\n", { mode: 0o755 });
    try {
      d = await daemon({ config: { agentProfiles: { broken: { command: [prog] } } } });
      const r = await roost(["dispatch", "nope", "x"], d.env);
      expect(r.code).toBe(1);
      // For a person, the daemon's words alone; the code is for scripts, in --json's line.
      expect(r.stderr).toMatch(/^roost: no profile "nope"; the profiles are: [^\n]*\bshell\b[^\n]*\n$/);
      expect(r.stdout).toBe("");
      const asJsonNope = await roost(["dispatch", "nope", "x", "--json"], d.env);
      expect(asJsonNope.code).toBe(1);
      expect(asJsonNope.stdout).toBe("");
      expect(JSON.parse(asJsonNope.stderr)).toEqual({
        ok: false,
        code: "bad_request",
        error: r.stderr.slice("roost: ".length, -1),
      });

      expect(await ok(["dispatch", "broken"], d.env)).toMatch(/^started j1 \(broken\)/);
      await ok(["dispatch", "broken"], d.env);
      fs.rmSync(prog);
      const broken = await roost(["respawn", "j1"], d.env);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toBe(`roost: j1 (broken) failed: could not start: command not found: ${prog}\n`);
      const asJson = await roost(["respawn", "j2", "--json"], d.env);
      expect(asJson.code).toBe(1);
      expect(JSON.parse(asJson.stdout).job).toMatchObject({ id: "j2", life: "exited", state: "failed" });
      const table = await ok(["ls"], { ...d.env, COLUMNS: "200" });
      expect(table).toMatch(/^j2 +\S+ +failed +\S+ +could not start: command not found/m);
      expect(table).toMatch(/^j1 +\S+ +failed +\S+ +could not start: command not found/m);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it("ls shows how a job ended, a blocked job's question and choices, and fits the width", async () => {
    d = await daemon({ config: { agentProfiles: { agent: agentProfile() } } });
    await ok(["dispatch", "shell", "exit 7"], d.env);
    await until("j1 exited", async () => (await rowOf(d!.env, "j1")).life === "exited");
    await ok(["dispatch", "agent", "block Deploy to production now?|yes,no,later"], d.env);
    await until("j2 blocked", async () => (await rowOf(d!.env, "j2")).state === "blocked");

    const table = await ok(["ls"], { ...d.env, COLUMNS: "120" });
    expect(table).toMatch(/j1 .*failed \(exit 7\) .*exited with code 7/);
    expect(table).toMatch(/j2 .*blocked .*Deploy to production now\? \[yes \| no \| later\]/);

    const narrow = await ok(["ls"], { ...d.env, COLUMNS: "60" });
    for (const line of narrow.trimEnd().split("\n")) expect(line.length).toBeLessThanOrEqual(60);
    expect(narrow).toContain("…");
  });

  it("reply: saved with its seq, a resend is a duplicate, /stop stops", async () => {
    d = await daemon({ config: { agentProfiles: { agent: agentProfile() } } });
    await ok(["dispatch", "agent", "first"], d.env);
    expect(await ok(["reply", "j1", "second", "one"], d.env)).toBe("saved as reply 2 to j1\n");
    await until("reply 2 handled", async () => (await rowOf(d!.env, "j1")).summary === "did: second one");
    expect(await ok(["reply", "j1", "--steer", "third", "--request-id", "r-1"], d.env)).toBe(
      "saved as reply 3 to j1\n",
    );
    expect(await ok(["reply", "j1", "third", "--request-id", "r-1"], d.env)).toBe(
      "already saved (duplicate)\n",
    );
    expect(await json(["reply", "j1", "fourth"], d.env)).toEqual({ saved: true, seq: 4 });
    expect(await ok(["reply", "j1", "/stop"], d.env)).toBe("j1 stopped\n");
    expect((await rowOf(d.env, "j1")).life).toBe("stopped");
  });

  it("stop, respawn and rm a shell job", async () => {
    d = await daemon();
    await ok(["dispatch", "shell", "sleep 100"], d.env);
    expect(await ok(["stop", "j1"], d.env)).toBe("stopped j1\n");
    expect((await rowOf(d.env, "j1")).life).toBe("stopped");
    expect(await ok(["ls"], d.env)).toMatch(/j1 .* stopped /);

    expect(await ok(["respawn", "j1"], d.env)).toMatch(/^respawned j1 \(shell\) in \//);
    expect((await rowOf(d.env, "j1")).life).toBe("running");
    expect((await json(["respawn", "j1"], d.env)).job).toMatchObject({ id: "j1", life: "running" });

    expect(await ok(["rm", "j1"], d.env)).toBe("removed j1\n");
    expect(await json(["ls"], d.env)).toEqual({ rows: [] });
  });

  it("pin, unpin and rename", async () => {
    d = await daemon();
    await ok(["dispatch", "shell", "--name", "first"], d.env);
    await ok(["dispatch", "shell", "--name", "second"], d.env);
    expect(await ok(["pin", "j1"], d.env)).toBe("pinned j1\n");
    const { rows } = await json(["ls"], d.env);
    expect(rows.map((r: any) => [r.id, r.pinned])).toEqual([
      ["j1", true],
      ["j2", false],
    ]);
    expect(await ok(["ls"], d.env)).toMatch(/\n\* +j1 +first/);

    expect(await json(["unpin", "j1"], d.env)).toEqual({ ok: true, id: "j1" });
    expect((await rowOf(d.env, "j1")).pinned).toBe(false);
    expect(await ok(["ls"], d.env)).not.toContain("*");

    expect(await ok(["rename", "j2", "the", "new", "name"], d.env)).toBe("renamed j2 to the new name\n");
    expect((await rowOf(d.env, "j2")).name).toBe("the new name");
  });

  it("an unknown job: exit 1 and what to do on stderr; with --json, not_found as JSON", async () => {
    d = await daemon();
    const said = 'no job "j99": `roost ls` lists the jobs';
    for (const args of [
      ["stop", "j99"],
      ["reply", "j99", "hi"],
      ["rm", "j99"],
      ["ls", "j99"],
      ["pin", "j99"],
    ]) {
      const r = await roost(args, d.env);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr, args.join(" ")).toBe(`roost: ${said}\n`);
      expect(r.stdout, args.join(" ")).toBe("");
      const asJson = await roost([...args, "--json"], d.env);
      expect(asJson.code, args.join(" ")).toBe(1);
      expect(asJson.stderr, args.join(" ")).toBe(
        `${JSON.stringify({ ok: false, code: "not_found", error: said })}\n`,
      );
      expect(asJson.stdout, args.join(" ")).toBe("");
    }
  });
});

describe("the hub's links and tokens", () => {
  it("open --print prints the login link; token makes, lists and revokes named tokens", async () => {
    d = await daemon();
    const link = (await ok(["open", "--print"], d.env)).trim();
    expect(link).toBe(`${d.url}login?token=${encodeURIComponent(d.token)}`);
    expect((await ok(["token"], d.env)).trim()).toBe(link);

    const made = await ok(["token", "--read-only", "--name", "dash"], d.env);
    expect(made).toMatch(/^made a read-only token dash \(shown once\):\n/);
    const secret = new URL(made.trim().split("\n")[1]!).searchParams.get("token")!;
    expect(secret).not.toBe(d.token);
    const asDash = await fetch(`${d.url}api/whoami`, { headers: { authorization: `Bearer ${secret}` } });
    expect((await asDash.json()).result).toMatchObject({ token: "dash", readOnly: true });

    const full = await json(["token", "--name", "laptop"], d.env);
    expect(full.token).toMatchObject({ name: "laptop", readOnly: false });
    expect(await ok(["token", "--list"], d.env)).toMatch(/^dash +read-only .*\nlaptop +full /);
    const again = await roost(["token", "--name", "dash"], d.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("roost: a token named dash exists: revoke it first, or choose another name\n");

    expect(await ok(["token", "--revoke", "dash"], d.env)).toBe("revoked dash\n");
    const revoked = await fetch(`${d.url}api/whoami`, { headers: { authorization: `Bearer ${secret}` } });
    expect(revoked.status).toBe(401);
    expect((await json(["token", "--list"], d.env)).tokens.map((t: any) => t.name)).toEqual(["laptop"]);

    // A usage error is 64 with the usage; a name the daemon refuses, 1 with its answer.
    const usage =
      "usage: roost token [--name NAME] [--read-only] [--revoke NAME] [--list] [--json]\n" +
      "(`roost token --help` says more)\n";
    for (const [args, code, says] of [
      [["token", "--read-only"], 64, `roost: --read-only goes with --name NAME\n${usage}`],
      [["token", "--name", "a", "--list"], 64, `roost: use one of --name, --revoke and --list\n${usage}`],
      [["token", "--name", "a b"], 1, 'roost: token: name must match pattern "^[A-Za-z0-9_.-]{1,64}$"\n'],
    ] as const) {
      const r = await roost([...args], d.env);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr, args.join(" ")).toBe(says);
      expect(r.stdout, args.join(" ")).toBe("");
    }
    expect((await json(["token", "--list"], d.env)).tokens.map((t: any) => t.name)).toEqual(["laptop"]);
  });
});

describe("events", () => {
  it("prints the feed, readable and as JSON, for all jobs or one", async () => {
    d = await daemon();
    expect(await ok(["events"], d.env)).toBe("no events yet\n");
    await ok(["dispatch", "shell", "echo one"], d.env);
    await ok(["dispatch", "shell", "echo two"], d.env);

    const text = await ok(["events"], d.env);
    expect(text).toMatch(/^\d\d:\d\d:\d\d j1 +dispatch +shell: echo one \(user\)$/m);
    expect(text).toMatch(/^\d\d:\d\d:\d\d j2 +dispatch +shell: echo two \(user\)$/m);

    const all = await json(["events"], d.env);
    expect(all.cursor).toBe(4); // two jobs: a dispatch and a start each
    expect(all.events.filter((e: any) => e.kind === "dispatch").map((e: any) => e.id)).toEqual(["j1", "j2"]);

    const one = await json(["events", "--job", "j1"], d.env);
    expect(one.events.map((e: any) => [e.cursor, e.id, e.kind, e.who])).toEqual([
      [1, "j1", "dispatch", "user"],
      [2, "j1", "start", "roost"],
    ]);
    expect(one.events[0].text).toBe("shell: echo one");
    expect(one.events[1].text).toMatch(/^started \/bin\/sh \(pid \d+\)$/);
    expect(one.cursor).toBe(2);
    expect((await json(["events", "--limit", "1"], d.env)).events).toHaveLength(1);
  });

  it("--follow --json prints the recent entries, then each new one as it happens", async () => {
    d = await daemon();
    await ok(["dispatch", "shell", "echo before"], d.env);
    let follower: ChildProcess | undefined;
    try {
      follower = spawn(process.execPath, [CLI, "events", "--follow", "--json"], {
        env: d.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      follower.stdout!.on("data", (chunk) => {
        output += chunk;
      });
      const entries = () =>
        output
          .split("\n")
          .filter((l) => l.endsWith("}"))
          .map((l) => JSON.parse(l));
      await until("the recent dispatch", () => entries().some((e) => e.id === "j1" && e.kind === "dispatch"));

      await ok(["dispatch", "shell", "echo after"], d.env);
      const pushed = await until("the pushed dispatch", () =>
        entries().find((e) => e.id === "j2" && e.kind === "dispatch"),
      );
      expect(pushed).toMatchObject({ text: "shell: echo after", who: "user" });
      const cursors = entries().map((e) => e.cursor);
      expect(new Set(cursors).size).toBe(cursors.length); // none printed twice

      // Ctrl-C ends it, cleanly
      const exited = new Promise<number | null>((resolve) => follower!.once("exit", (code) => resolve(code)));
      follower.kill("SIGINT");
      expect(await exited).toBe(0);
    } finally {
      if (follower?.pid && follower.exitCode === null) killQuietly(follower.pid);
    }
  });
});

describe("start and shutdown", () => {
  it("start runs the daemon in the background; shutdown stops it", async () => {
    const { home, env } = freshEnv();
    let daemonPid = 0;
    try {
      const started = await roost(["start"], env);
      expect(started.code, started.stderr).toBe(0);
      const socket = path.join(home, "roost.sock");
      const m = /^roost started \(pid (\d+)\): listening on (\S+);/.exec(started.stdout);
      expect(m, started.stdout).not.toBeNull();
      daemonPid = Number(m![1]);
      expect(m![2]).toBe(socket);
      expect(isAlive(daemonPid)).toBe(true);
      expect(fs.readFileSync(path.join(home, "daemon.log"), "utf8")).toContain(`listening on ${socket}`);

      expect(await ok(["start"], env)).toBe(`roost is already running (listening on ${socket})\n`);
      expect(await ok(["dispatch", "shell", "echo hi"], env)).toMatch(/^started j1/);

      expect(await ok(["shutdown"], env)).toBe("roost stopped (the jobs keep running)\n");
      await until("the daemon's exit", () => !isAlive(daemonPid));
      const after = await roost(["ls"], env);
      expect(after.code).toBe(1);
      expect(after.stderr).toContain("roost is not running");
      expect(await ok(["shutdown"], env)).toBe(`roost is not running (no answer on ${socket})\n`);
    } finally {
      // The pid `start` printed, or else the one the daemon logged, should `start` have said nothing.
      const logged = /pid (\d+)/.exec(readQuietly(path.join(home, "daemon.log")));
      killQuietly(daemonPid || Number(logged?.[1] ?? 0));
      killPtyHost(home);
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("start of a daemon that exits at once: exit 1 with the end of its log", async () => {
    const { home, env } = freshEnv();
    try {
      fs.writeFileSync(
        path.join(home, "roost.json"),
        JSON.stringify({ agentProfiles: { bad: { command: [] } } }),
      );
      const r = await roost(["start"], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^roost: the daemon exited with code 2; the end of .*daemon\.log:\n/);
      expect(r.stderr).toContain("roost: bad config:");
      expect(r.stderr).toContain("roost.json");
    } finally {
      killPtyHost(home);
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

function readQuietly(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
