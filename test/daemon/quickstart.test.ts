/**
 * The README's install and quick start, as a reader runs them: `roost` put on the PATH by a real
 * `npm link` (into a temp prefix), then each command of the quick start's block, read from
 * README.md, run by bash in order on a temp HOME, so the test fails when the README drifts. The
 * ids are the ones `dispatch` printed; a line the README shows as printed (`# → ...`) must be
 * printed (a reader runs `ls` or `log` again until it is); `attach` runs at a terminal, typed
 * into as the README says, and `events --follow` until it has shown each job, then Ctrl-C.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type IPty, spawn as ptySpawn } from "@lydell/node-pty";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needsBuild, PLAIN_SHELL, userEnv } from "../helpers/cli.js";
import { CLI, ROOT, until } from "../helpers/daemon.js";
import { isAlive, killPtyHost, killQuietly } from "../helpers/processes.js";

/** One command of the quick start: its text (a heredoc's lines with it), and what it prints. */
interface Step {
  command: string;
  /** The lines the README shows it printing: `…` stands for any text, ids are the README's. */
  prints: string[];
}

/** The quick start's shell blocks in README.md, as steps. */
function quickStart(readme: string): Step[] {
  const section = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no "## Quick start" section');
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  if (blocks.length === 0) throw new Error("the quick start has no ```sh block");
  const steps: Step[] = [];
  for (const block of blocks) {
    const lines = block.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const printed = /^# →(?: (.*))?$/.exec(line);
      if (printed) {
        const last = steps.at(-1);
        if (!last) throw new Error(`output before any command: ${line}`);
        last.prints.push(printed[1] ?? "");
      } else if (line.trim() && !line.startsWith("#")) {
        let command = line;
        const heredoc = /<<-?'?(\w+)'?/.exec(line);
        if (heredoc) {
          while (i + 1 < lines.length && lines[i] !== heredoc[1]) command += `\n${lines[++i]}`;
          if (lines[i] !== heredoc[1]) throw new Error(`heredoc not ended: ${line}`);
        }
        steps.push({ command, prints: [] });
      }
    }
  }
  return steps;
}

const literally = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The README's ids (j1) as `dispatch` printed them here. */
class Ids {
  private readonly actual = new Map<string, string>();
  /** Every id learnt so far, as printed here. */
  all(): string[] {
    return [...this.actual.values()];
  }
  /** `text` with the README's ids replaced by the ones printed. */
  in(text: string): string {
    return text.replace(/\bj\d+\b/g, (id) => this.actual.get(id) ?? id);
  }
  /**
   * Whether `shown` (the README's lines, in order) are among `output`'s lines; the ids the README
   * names first in them are learnt from what matched.
   */
  match(shown: readonly string[], output: string): boolean {
    const lines = output.split("\n").map((l) => l.trimEnd());
    let from = 0;
    const learnt = new Map<string, string>();
    for (const want of shown) {
      const ids: string[] = [];
      const source = want
        .split(/(\bj\d+\b|…|\s+)/)
        .map((part) => {
          if (part === "…") return ".*?";
          if (/^\s+$/.test(part)) return "\\s+";
          if (/^j\d+$/.test(part)) {
            const known = this.actual.get(part) ?? learnt.get(part);
            if (known) return literally(known);
            ids.push(part);
            return "(j\\d+)";
          }
          return literally(part);
        })
        .join("");
      const re = new RegExp(`^${source}$`);
      const at = lines.findIndex((l, i) => i >= from && re.test(l));
      if (at === -1) return false;
      const m = re.exec(lines[at]!)!;
      for (const [k, id] of ids.entries()) learnt.set(id, m[k + 1]!);
      from = at + 1;
    }
    for (const [k, v] of learnt) this.actual.set(k, v);
    return true;
  }
}

/** A reader runs these again until they show what the README says: they only read. */
const READS = /^roost (ls|log|profiles)\b/;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const sh = (command: string, env: Record<string, string>, cwd: string): Promise<Ran> =>
  new Promise((resolve) => {
    execFile("bash", ["-c", command], { env, cwd, timeout: 120000 }, (err, stdout, stderr) => {
      const code = err ? (err as { code?: unknown }).code : 0;
      resolve({ code: typeof code === "number" ? code : -1, stdout, stderr });
    });
  });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "roost-quickstart-"));
const prefix = path.join(tmp, "npm-prefix");
const home = path.join(tmp, "home");
const scratch = path.join(tmp, "tmp");
/** The reader's environment: their PATH with npm's bin first, a HOME of their own, no ROOST_ variables. */
const env: Record<string, string> = {
  ...userEnv(),
  ...PLAIN_SHELL,
  HOME: home,
  TMPDIR: scratch,
  // Not 7777: a roost the machine runs already may hold it.
  ROOST_PORT: "0",
  PATH: `${path.join(prefix, "bin")}:${process.env.PATH}`,
};
let daemonPid = 0;
const terminals: IPty[] = [];
const followers: ChildProcess[] = [];

beforeAll(() => {
  needsBuild();
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(scratch, { recursive: true });
});

afterAll(async () => {
  for (const t of terminals) {
    try {
      t.kill("SIGKILL");
    } catch {}
  }
  for (const f of followers) if (f.pid && f.exitCode === null) killQuietly(f.pid);
  const roostHome = path.join(home, ".roost");
  // The pid `roost start` printed, or else the one the daemon logged.
  const pid =
    daemonPid || Number(/pid (\d+)/.exec(readQuietly(path.join(roostHome, "daemon.log")))?.[1] ?? 0);
  if (pid) {
    killQuietly(pid);
    await until("the daemon's exit", () => !isAlive(pid));
  }
  killPtyHost(roostHome);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("the README's install and quick start", () => {
  it("npm link puts a `roost` on the PATH that runs from anywhere, through its symlinks", () => {
    // --ignore-scripts: no build (the test runs what `npm run build` made), only npm's links.
    execFileSync("npm", ["link", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: ROOT,
      env: { ...process.env, npm_config_prefix: prefix },
      stdio: "pipe",
    });
    const bin = path.join(prefix, "bin", "roost");
    expect(fs.lstatSync(bin).isSymbolicLink()).toBe(true);
    expect(fs.realpathSync(bin)).toBe(fs.realpathSync(CLI));
    expect(fs.readFileSync(CLI, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
    const version = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version;
    expect(execFileSync("roost", ["--version"], { env, cwd: scratch, encoding: "utf8" })).toBe(
      `roost ${version}\n`,
    );
  });

  it("runs top to bottom as written", async () => {
    const steps = quickStart(fs.readFileSync(path.join(ROOT, "README.md"), "utf8"));
    expect(steps.map((s) => s.command.split(/\s+/).slice(0, 2).join(" "))).toEqual(
      expect.arrayContaining([
        "roost start",
        "roost dispatch",
        "roost reply",
        "roost attach",
        "roost events",
      ]),
    );
    // attach and events --follow come last: they are the two that do not return by themselves.
    expect(steps.slice(-2).map((s) => s.command.split(/\s+/).slice(0, 2).join(" "))).toEqual([
      "roost attach",
      "roost events",
    ]);
    const ids = new Ids();
    let cwd = scratch;
    for (const step of steps) {
      const command = ids.in(step.command);
      if (/^cd /.test(command)) {
        const r = await sh(`${command} && pwd`, env, cwd);
        expect(r.code, `${command}: ${r.stderr}`).toBe(0);
        cwd = r.stdout.trim();
        expect(cwd.startsWith(scratch), `${command} went to ${cwd}, not a scratch directory`).toBe(true);
      } else if (/^roost attach /.test(command)) await attachAsReader(command, cwd);
      else if (/^roost events .*--follow/.test(command)) await follow(command, cwd, ids);
      else if (READS.test(command) && step.prints.length > 0) {
        await until(`${command} to print ${step.prints.join(" / ")}`, async () => {
          const r = await sh(command, env, cwd);
          expect(r.code, `${command}: ${r.stderr}`).toBe(0);
          return ids.match(step.prints, r.stdout);
        });
      } else {
        const r = await sh(command, env, cwd);
        expect(r.code, `${command}: ${r.stderr}${r.stdout}`).toBe(0);
        expect(ids.match(step.prints, r.stdout), `${command} printed:\n${r.stdout}`).toBe(true);
        const started = /^roost started \(pid (\d+)\)/m.exec(r.stdout);
        if (started) daemonPid = Number(started[1]);
      }
    }
    expect(daemonPid, "the quick start starts roost").toBeGreaterThan(0);
    // The example's files landed in the scratch directory, not in the checkout.
    expect(fs.existsSync(path.join(ROOT, "note.txt"))).toBe(false);
  });
});

/**
 * `roost attach ID` at a terminal: it draws the job's screen; what the README says to type
 * (`type \`...\``) is typed, and shown by the job; Ctrl-] detaches, exit 0.
 */
async function attachAsReader(command: string, cwd: string): Promise<void> {
  const typed = /type `([^`]+)`/.exec(command)?.[1];
  const term = ptySpawn("bash", ["-c", `exec ${command}`], { cols: 100, rows: 30, cwd, env });
  terminals.push(term);
  let seen = "";
  term.onData((data) => {
    seen += data;
  });
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  await until(`${command} to attach`, () => seen.includes("detach with Ctrl-]"));
  if (typed) {
    const before = seen.length;
    term.write(`${typed}\r`);
    // Its echo, then what the job printed after it: the job read the line.
    await until(`${command} to show what was typed run`, () => {
      const after = seen.slice(before);
      const echoed = after.indexOf(typed);
      return echoed !== -1 && after.slice(echoed + typed.length).trim().length > 0;
    });
  }
  term.write("\u001d"); // Ctrl-]
  expect(await exited).toBe(0);
  expect(seen).toMatch(/detached from j\d+; it keeps running/);
}

/** `roost events --follow`: the dispatch of every job the quick start made is shown; Ctrl-C ends it, exit 0. */
async function follow(command: string, cwd: string, ids: Ids): Promise<void> {
  const f = spawn("bash", ["-c", `exec ${command}`], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  followers.push(f);
  let output = "";
  f.stdout!.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => f.once("exit", (code) => resolve(code)));
  const dispatched = ids.all();
  expect(dispatched.length, "the jobs the quick start dispatched").toBeGreaterThan(0);
  await until(`${command} to show each dispatch`, () =>
    dispatched.every((id) => new RegExp(`^\\S+ ${id} +dispatch `, "m").test(output)),
  );
  f.kill("SIGINT");
  expect(await exited).toBe(0);
}

function readQuietly(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
