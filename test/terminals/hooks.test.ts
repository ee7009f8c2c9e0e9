/**
 * A terminal agent's own hooks (docs/agents.md, "Terminal agents' hooks") under a real daemon: the
 * job's settings file given with `--settings`, its hooks run as Claude Code runs them (a stand-in,
 * test/fixtures/fake-claude.mjs, that runs the hooks the file names at Claude Code's steps), each a
 * real `roost hook claude EVENT` that speaks for the job; the row from what they say, a permission
 * prompt's menu as the row's choices answered by one key, usage and cost from the transcript, the
 * session resumed by a respawn. And `hook`'s refusals, and `roost hook` that never fails its agent.
 * `npm run build` first.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenOf } from "../helpers/board.js";
import { CLI, FIXTURES, startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { jobDir, lines, QUIET_MS, rmTemp, silentProfile, tempDir, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const run = promisify(execFile);
let d: TestDaemon;
let c: RawClient;
let cwd: string;

beforeAll(async () => {
  cwd = tempDir();
  d = await startDaemon({
    config: {
      agentProfiles: {
        "fake-claude": {
          command: [path.join(FIXTURES, "fake-claude.mjs")],
          task: "argv",
          hooks: "claude",
          messages: true,
          quietMs: QUIET_MS,
        },
        // Its task typed, once it takes keys: it starts up quiet for three quiet spells first.
        "slow-claude": {
          command: [path.join(FIXTURES, "fake-claude.mjs")],
          task: "type",
          hooks: "claude",
          messages: true,
          quietMs: QUIET_MS,
          env: { FAKE_SLOW_START_MS: String(3 * QUIET_MS) },
        },
        silent: silentProfile(),
      },
    },
  });
  c = await d.client();
}, 30_000);
afterAll(async () => {
  await d?.cleanup();
  if (cwd) rmTemp(cwd);
});

/** What the stand-in was given, in order: its argv at each start, each prompt, each key. */
const given = (id: string) => lines(path.join(jobDir(d, id), "fake-claude.jsonl"));

describe("Claude Code's hooks in a terminal job", () => {
  it("make its row: the turn's end with its last message, a permission's question with the menu's choices answered by its key, usage and cost; a respawn resumes its session", async () => {
    const { job } = await c.ok("dispatch", { profile: "fake-claude", task: "[t] hello there", cwd });
    const id = job.id;
    // The hooks of the job's own settings, given with --settings; the task after them.
    const settings = path.join(jobDir(d, id), "claude-settings.json");
    const first = await untilRow(c, id, "its turn's end", (r) => r.summary === "You said: [t] hello there");
    expect(given(id)[0].argv).toEqual(["--settings", settings, "[t] hello there"]);
    const hooks = JSON.parse(fs.readFileSync(settings, "utf8")).hooks;
    expect(hooks.PreToolUse[0].hooks[0].command).toContain("'hook' 'claude' 'PreToolUse'");
    expect(first).toMatchObject({ view: "your turn", state: "done", conversation: "new" });
    expect(first.usage).toMatchObject({
      messages: 1,
      input: 1000,
      output: 100,
      cost: { total: 0.0045, currency: "USD" },
    });
    expect(first.context).toEqual({ tokens: 1100 });

    // A permission asked: the question names the tool's input, the menu's options are the choices.
    await c.ok("reply", { id, text: "use a tool" });
    // The hook says it before the menu is drawn: the choices come with the screen's next word.
    const asked = await untilRow(c, id, "blocked, with choices", (r) => r.state === "blocked" && r.choices);
    expect(asked).toMatchObject({
      view: "blocked",
      tool: "Bash",
      question: "Claude needs your permission to use Bash: echo hi > made.txt",
      choices: ["Yes", "No"],
    });
    // A reply naming a choice is typed as its key alone: the menu takes it, the tool runs.
    await c.ok("reply", { id, text: "yes" });
    const done = await untilRow(
      c,
      id,
      "the tool's turn ended",
      (r) => r.summary === "All done: wrote made.txt",
    );
    expect(fs.readFileSync(path.join(cwd, "made.txt"), "utf8")).toBe("hi\n");
    expect(done).toMatchObject({ view: "your turn", question: null, choices: null, tool: null });
    expect(done.usage).toMatchObject({ messages: 3, cost: { total: 0.0135 } });

    // By its number: `2` alone; and the prompt after it comes whole, with no Enter typed between.
    await c.ok("reply", { id, text: "another tool" });
    await untilRow(c, id, "blocked again", (r) => r.state === "blocked" && r.choices);
    await c.ok("reply", { id, text: "2" });
    await untilRow(c, id, "refused", (r) => r.summary === "Not done: you said no");
    await c.ok("reply", { id, text: "bye" });
    await untilRow(c, id, "the last turn", (r) => r.summary === "You said: bye");
    const said = given(id).slice(1);
    expect(said).toEqual([
      { prompt: "[t] hello there" },
      { prompt: "use a tool" },
      { key: "1" },
      { prompt: "another tool" },
      { key: "2" },
      { prompt: "bye" },
    ]);

    // The session the SessionStart hook said is the job's: a respawn goes on with it, its task not
    // given again (the session has it).
    await c.ok("respawn", { id });
    const resumed = await untilRow(c, id, "resumed", (r) => r.conversation === "resumed");
    expect(resumed.view).toBe("your turn");
    const argv = given(id).find((e, i) => i > 0 && e.argv)?.argv;
    expect(argv).toEqual(["--settings", settings, "--resume", "11111111-2222-3333-4444-555555555555"]);
  }, 60_000);

  it("its task is typed once its SessionStart hook said it takes keys, not while it starts up quiet", async () => {
    const { job } = await c.ok("dispatch", { profile: "slow-claude", task: "[t] once it listens", cwd });
    const r = await untilRow(
      c,
      job.id,
      "its turn's end",
      (x) => x.summary === "You said: [t] once it listens",
    );
    expect(r.view).toBe("your turn");
    // Typed once, after its start: nothing of it was dropped while it started up.
    expect(given(job.id).slice(1)).toEqual([{ prompt: "[t] once it listens" }]);
  }, 30_000);

  it("a menu answered in the terminal itself ends the row's question: the screen says so", async () => {
    const { job } = await c.ok("dispatch", { profile: "fake-claude", cwd });
    await untilRow(c, job.id, "your turn", (r) => r.view === "your turn");
    await c.ok("reply", { id: job.id, text: "a tool please" });
    await untilRow(c, job.id, "blocked", (r) => r.state === "blocked" && r.choices);
    await c.ok("input", { id: job.id, data: "1" }); // typed at the terminal, not a reply
    const r = await untilRow(c, job.id, "its turn's end", (x) => x.summary === "All done: wrote made.txt");
    expect(r).toMatchObject({ view: "your turn", question: null });
  }, 30_000);
});

describe("hook", () => {
  it("is refused for a job that speaks roost's protocol, with a wrong token, for no job", async () => {
    const { job } = await c.ok("dispatch", { profile: "silent" });
    const token = await tokenOf(c, job.id);
    const protocol = await c.request("hook", { id: job.id, token, event: "tool", tool: "Bash" });
    expect(protocol).toMatchObject({ ok: false, code: "bad_request" });
    expect(protocol.error).toMatch(/speaks roost's protocol: its own reports make its row/);
    const wrong = await c.request("hook", { id: job.id, token: "x".repeat(32), event: "turn-end" });
    expect(wrong).toMatchObject({ ok: false, code: "unauthorized" });
    const none = await c.request("hook", { id: "j999", token, event: "turn-end" });
    expect(none).toMatchObject({ ok: false, code: "not_found" });
    const bad = await c.request("hook", { id: job.id, token, event: "lunch" });
    expect(bad).toMatchObject({ ok: false, code: "bad_request" });
  });

  it("`roost hook` exits 0 at once, saying nothing on stdout, whatever it meets: no daemon, a bad input, an unknown agent", async () => {
    const input = fs.readFileSync(path.join(FIXTURES, "hooks/claude/PreToolUse.json"), "utf8");
    const nobody = {
      ...process.env,
      ROOST_JOB_ID: "j1",
      ROOST_JOB_TOKEN: "t",
      ROOST_SOCKET: path.join(cwd, "none.sock"),
    };
    const cases: [string[], string][] = [
      [["claude", "PreToolUse"], input],
      [["claude", "PreToolUse"], "not json"],
      [["nobody", "PreToolUse"], input],
    ];
    // "At once" beside a `roost` that does nothing (--version), timed just before: a loaded machine
    // slows both alike; a hook that waited for a daemon (a retry, a timeout) would be seconds late.
    const timed = async (argv: string[], stdin: string) => {
      const started = Date.now();
      const child = run(process.execPath, [CLI, ...argv], { env: nobody });
      child.child.stdin!.end(stdin);
      const { stdout } = await child; // rejects on a non-zero exit
      return { stdout, ms: Date.now() - started };
    };
    for (const [args, stdin] of cases) {
      const nothing = await timed(["--version"], "");
      const hook = await timed(["hook", ...args], stdin);
      expect(hook.stdout).toBe("");
      expect(hook.ms).toBeLessThan(nothing.ms + 2000);
    }
  });
});
