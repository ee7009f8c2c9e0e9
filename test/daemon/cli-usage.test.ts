/**
 * The `roost` CLI without a test daemon behind it: each command's --help, `roost help`, the exit
 * 64 of a wrong command line, "roost is not running" when nothing answers, and `roost start` /
 * `roost shutdown` (the daemon the CLI starts itself). The built command
 * (dist/server/cli/main.js, so run `npm run build` first), on a fresh temp ROOST_HOME each.
 * The jobs' commands are in cli-jobs.test.ts; the hub's links, tokens and feed in cli-hub.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { freshEnv, needsBuild, ok, roost } from "../helpers/cli.js";
import { isAlive, until } from "../helpers/daemon.js";
import { killPtyHost, killQuietly } from "../helpers/processes.js";

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
      // Each CLI run on its own: they are started together, nothing between them to wait for.
      const [short, long, all, bare, helpReply, wrongLine] = await Promise.all([
        roost(["reply", "-h"], env),
        ok(["reply", "--help"], env),
        roost(["help"], env),
        roost(["--help"], env),
        ok(["help", "reply"], env),
        roost(["dispatch", "--bogus", "--help"], env),
      ]);
      expect(short.stdout).toBe(long);
      expect(all.code).toBe(0);
      for (const name of COMMANDS.filter((c) => c !== "list" && c !== "schedules"))
        expect(all.stdout).toContain(`  ${name} `);
      expect(bare.stdout).toBe(all.stdout);
      expect(helpReply).toContain("usage: roost reply ID TEXT... [--steer]");
      // --help wins over a command line that is otherwise wrong
      expect(wrongLine.code).toBe(0);
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
      // Independent CLI runs (no daemon, nothing they change): started together, checked in order.
      const [asJson, ...ran] = await Promise.all([
        roost(["ls", "--stat", "blocked", "--json"], env),
        ...cases.map(([args]) => roost(args, env)),
      ]);
      for (const [i, [args, says]] of cases.entries()) {
        const r = ran[i]!;
        expect(r.code, args.join(" ")).toBe(64);
        expect(r.stderr, args.join(" ")).toContain(says);
        expect(r.stdout).toBe("");
      }
      // With --json, the usage error is one line of JSON too: no usage text around it.
      expect(asJson!.code).toBe(64);
      expect(asJson!.stdout).toBe("");
      expect(asJson!.stderr).toBe(
        `${JSON.stringify({ ok: false, code: "usage", error: "unknown option --stat: did you mean --state?" })}\n`,
      );
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("says roost is not running, exit 1, when nothing answers on the socket", async () => {
    const { home, env } = freshEnv();
    try {
      const lines = [["ls"], ["dispatch", "shell", "ls"], ["events", "--follow"]];
      // Each as the user types it and with --json, all started together: no daemon to change.
      const ran = await Promise.all(
        lines.map((args) => Promise.all([roost(args, env), roost([...args, "--json"], env)])),
      );
      for (const [r, asJson] of ran) {
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          `roost is not running (no answer on ${path.join(home, "roost.sock")}): start it with \`roost start\`\n`,
        );
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
