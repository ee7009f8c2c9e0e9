/**
 * `roost ls` as a user reads it: the same state words and tones as every face (row-state.ts),
 * at a real terminal and in a pipe, against a real daemon with real jobs.
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { viewState } from "../../sdk/ts/protocol/index.js";
import { atTerminal, json, needsBuild, ok, PLAIN_SHELL, roost, rowOf } from "../helpers/cli.js";
import { agentProfile, until } from "../helpers/daemon.js";
import { type DaemonHere, startDaemonHere } from "../helpers/daemon-here.js";
import { rawAgent } from "../helpers/jobs.js";

/** A protocol job whose process does nothing: a raw client speaks for it. */
const INERT = { command: ["sleep", "600"], task: "type", protocol: true };

beforeAll(needsBuild);

/** One job of each state, named after the word `roost ls` must show for it. */
async function oneOfEach(env: Record<string, string>): Promise<Record<string, string>> {
  const jobs: [name: string, profile: string, task: string, word: string][] = [
    ["turn", "agent", "done", "your turn"],
    ["ask", "agent", "block Deploy now?|yes,no", "blocked"],
    ["broke", "agent", "fail it broke", "failed"],
    ["busy", "agent", "sleep 600000", "working"],
    ["seven", "shell", "exit 7", "failed"],
    ["zero", "shell", "exit 0", "done"],
    ["halted", "shell", "sleep 100", "stopped"],
  ];
  const ids: Record<string, string> = {};
  for (const [name, profile, task] of jobs)
    ids[name] = (await json(["dispatch", profile, task, "--name", name], env)).job.id;
  await ok(["stop", ids.halted!], env);
  for (const [name, , , word] of jobs)
    await until(`${name} ${word}`, async () => viewState(await rowOf(env, ids[name]!)) === word);
  return ids;
}

describe("the state words, the filters and triage", () => {
  let d: DaemonHere;
  let ids: Record<string, string>;
  beforeAll(async () => {
    d = await startDaemonHere({ env: PLAIN_SHELL, config: { agentProfiles: { agent: agentProfile() } } });
    ids = await oneOfEach(d.env);
  }, 120_000); // seven jobs, each to its state: long on a loaded machine
  afterAll(() => d?.cleanup());
  /** The names of the rows `roost ls ARGS --json` prints, in its order. */
  const names = async (...args: string[]) =>
    (await json(["ls", ...args], d.env)).rows.map((r: { name: string }) => r.name);

  it("ls shows each row's word from viewState, an exit code beside it, coloured by its tone", async () => {
    const table = await ok(["ls"], { ...d.env, COLUMNS: "160" });
    const wordOf = (name: string) =>
      new RegExp(`^${ids[name]} +${name} +(\\S+(?: \\S+)*?)  `, "m").exec(table)?.[1];
    expect(wordOf("turn")).toBe("your turn");
    expect(wordOf("ask")).toBe("blocked");
    expect(wordOf("broke")).toBe("failed");
    expect(wordOf("busy")).toBe("working");
    expect(wordOf("seven")).toBe("failed (exit 7)");
    expect(wordOf("zero")).toBe("done");
    expect(wordOf("halted")).toBe("stopped");
    expect(table).toMatch(/ broke +failed +\S+ +it broke$/m);
    expect(table).toMatch(/ ask +blocked +\S+ +Deploy now\? \[yes \| no\]$/m);

    // Every row's word is the one the shared function gives, as the hub shows it.
    for (const row of (await json(["ls"], d.env)).rows)
      expect(table).toMatch(new RegExp(`^${row.id} +${row.name} +${viewState(row)}\\b`, "m"));

    const coloured = await atTerminal(["ls"], d.env);
    for (const [colour, word] of [
      [35, "your turn"],
      [33, "blocked"],
      [31, "failed (exit 7)"],
      [36, "working"],
      [32, "done"],
      [2, "stopped"],
    ] as const)
      expect(coloured, word).toContain(`\u001b[${colour}m${word}`);
    // the running job that said it failed
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the colour's escape is what it looks for
    expect(coloured).toMatch(/\u001b\[31mfailed +\u001b\[39m/);
    expect(await atTerminal(["ls"], { ...d.env, NO_COLOR: "1" })).not.toContain("\u001b[3");
  });

  it("rows come in triage's order, pinned first; --sort list keeps the daemon's", async () => {
    // Newest first within a state, as the daemon lists them: seven was dispatched after broke.
    const triage = ["ask", "seven", "broke", "turn", "busy", "zero", "halted"];
    expect(await names()).toEqual(triage);
    const table = await ok(["ls"], { ...d.env, COLUMNS: "160" });
    expect(
      table
        .trimEnd()
        .split("\n")
        .slice(1)
        .map((l) => l.split(/ +/)[1]),
    ).toEqual(triage);
    expect(await names("--sort", "list")).toEqual([
      "halted",
      "zero",
      "seven",
      "busy",
      "broke",
      "ask",
      "turn",
    ]);

    await ok(["pin", ids.zero!], d.env);
    try {
      expect(await names()).toEqual(["zero", "ask", "seven", "broke", "turn", "busy", "halted"]);
      expect((await names("--sort", "list"))[0]).toBe("zero");
    } finally {
      await ok(["unpin", ids.zero!], d.env);
    }
  });

  it("--state takes the words of every face, --profile the profiles', and both together", async () => {
    expect(await names("--state", "blocked,idle")).toEqual(["ask", "turn"]);
    expect(await names("--state", "your-turn")).toEqual(["turn"]);
    expect(await names("--state", "need")).toEqual(["ask", "seven", "broke"]);
    expect(await names("--state", "failed, done")).toEqual(["seven", "broke", "zero"]);
    expect(await names("--state", "ended")).toEqual(["zero", "halted"]);
    expect(await names("--state", "running")).toEqual(["ask", "turn", "busy"]);
    expect(await names("--profile", "shell")).toEqual(["seven", "zero", "halted"]);
    expect(await names("--profile", "shell,agent", "--state", "failed")).toEqual(["seven", "broke"]);
    expect(await names("--profile", "nope")).toEqual([]);
    expect(await names(ids.ask!, "--state", "blocked")).toEqual(["ask"]);

    const table = await ok(["ls", "--state", "BLOCKED,Your-Turn"], { ...d.env, COLUMNS: "160" });
    expect(table).toMatch(/^ID +NAME +STATE +UPDATED +SUMMARY\n\S+ +ask +blocked .*\n\S+ +turn +your turn /);
    expect(table.trimEnd().split("\n")).toHaveLength(3);
    expect(await ok(["ls", "--state", "starting"], d.env)).toBe("no job matches; `roost ls` shows all 7\n");
  });

  it("a word --state does not know, or a --sort it does not take: exit 64, listing what it takes", async () => {
    const words =
      "blocked, failed, your-turn, waiting, working, starting, done, stopped, idle, ended, need, running";
    for (const word of words.split(", "))
      expect((await roost(["ls", "--state", word], d.env)).code, word).toBe(0);
    const r = await roost(["ls", "--state", "blocked,idel"], d.env);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(new RegExp(`^roost: --state: no state "idel"; the words are ${words}\n`));
    expect(r.stdout).toBe("");
    const empty = await roost(["ls", "--state", ","], d.env);
    expect([empty.code, empty.stderr]).toEqual([
      64,
      expect.stringMatching(/^roost: --state needs a word: blocked, /),
    ]);
    const sort = await roost(["ls", "--sort", "age"], d.env);
    expect([sort.code, sort.stderr]).toEqual([
      64,
      expect.stringMatching(/^roost: --sort takes triage or list, not "age"\n/),
    ]);
  });
});

describe("several jobs at once", () => {
  let d: DaemonHere | undefined;
  afterEach(async () => {
    await d?.cleanup();
    d = undefined;
  });

  it("stop, pin, unpin and rm take several ids: each said on a line, a failed one on stderr, exit 1", async () => {
    d = await startDaemonHere({ env: PLAIN_SHELL });
    for (let i = 0; i < 4; i++) await ok(["dispatch", "shell", "sleep 100"], d.env);
    expect(await ok(["pin", "j1", "j2", "j1"], d.env)).toBe("pinned j1\npinned j2\n");
    expect((await json(["ls", "--sort", "list"], d.env)).rows.map((r: any) => [r.id, r.pinned])).toEqual([
      ["j2", true],
      ["j1", true],
      ["j4", false],
      ["j3", false],
    ]);
    expect(await ok(["unpin", "j1", "j2"], d.env)).toBe("unpinned j1\nunpinned j2\n");

    const some = await roost(["stop", "j1", "j99", "j2"], d.env);
    expect(some.code).toBe(1);
    expect(some.stdout).toBe("stopped j1\nstopped j2\n");
    expect(some.stderr).toBe('roost: j99: no job "j99": `roost ls` lists the jobs\n');
    for (const id of ["j1", "j2"]) expect((await rowOf(d.env, id)).life).toBe("stopped");
    expect((await rowOf(d.env, "j3")).life).toBe("running");

    const asJson = await roost(["rm", "j1", "j2", "j3", "--json"], d.env);
    expect(asJson.code).toBe(0);
    expect(
      asJson.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { ok: true, id: "j1" },
      { ok: true, id: "j2" },
      { ok: true, id: "j3" },
    ]);
    expect((await json(["ls"], d.env)).rows.map((r: any) => r.id)).toEqual(["j4"]);
  });

  it("the stops are sent together: jobs that each end only once all were told to stop, all stop", async () => {
    // Each job, told to stop, waits until every one of them was told: stopped one after another,
    // the first would wait for the others (its grace is ten minutes) and the command would hang.
    const told = fs.mkdtempSync(path.join(os.tmpdir(), "roost-told-"));
    // Each says it is ready once its trap is set: a job is running before its shell has read
    // the script, and a TERM before the trap would end it at once, leaving the others waiting.
    const ready = `${told}-ready`;
    fs.mkdirSync(ready);
    const script = path.join(told, "..", `${path.basename(told)}.sh`);
    fs.writeFileSync(
      script,
      `trap 'touch "${told}/$$"; until [ "$(ls "${told}" | wc -l)" -ge 3 ]; do sleep 0.05; done; exit 0' TERM\n` +
        `touch "${ready}/$$"\n` +
        "while :; do sleep 1; done\n",
    );
    try {
      d = await startDaemonHere({
        env: { ...PLAIN_SHELL, ROOST_STOP_GRACE_MS: "600000" },
        config: { agentProfiles: { waits: { command: ["/bin/sh", script] } } },
      });
      for (let i = 0; i < 3; i++) await ok(["dispatch", "waits"], d.env);
      await until("the three traps set", () => fs.readdirSync(ready).length === 3);
      const started = Date.now();
      expect(await ok(["stop", "j1", "j2", "j3"], d.env)).toBe("stopped j1\nstopped j2\nstopped j3\n");
      console.log(`stop of 3 jobs that each wait for the others: ${Date.now() - started} ms`);
      expect(fs.readdirSync(told)).toHaveLength(3);
    } finally {
      for (const dir of [told, ready]) fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(script, { force: true });
    }
  });
});

describe("the trees", () => {
  let d: DaemonHere;
  afterAll(() => d?.cleanup());

  it("ls shows a spawned job under its parent, indented; the tree goes where its most urgent job would", async () => {
    d = await startDaemonHere({ env: PLAIN_SHELL, config: { agentProfiles: { inert: INERT } } });
    const hub = await d.client();
    const dispatched = async (name: string) => (await hub.ok("dispatch", { profile: "inert", name })).job.id;
    const boss = await dispatched("boss");
    const calm = await dispatched("calm");
    const { agent } = await rawAgent(d, hub, boss);
    const { job } = await agent.ok("spawn", { profile: "inert", task: "look", name: "helper" });
    const helper = await rawAgent(d, hub, job.id);
    // The child asks; its parent works: the whole tree goes up, the child right under its parent.
    await helper.agent.ok("report", {
      id: job.id,
      token: helper.token,
      report: { state: "blocked", question: "Deploy now?" },
    });
    await rawAgent(d, hub, calm);
    await until("the child blocked", async () => (await rowOf(d.env, job.id)).state === "blocked");
    const table = (await ok(["ls"], { ...d.env, COLUMNS: "160" })).trimEnd().split("\n");
    expect(table.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 2))).toEqual([
      [boss, "boss"],
      [job.id, "└ helper"],
      [calm, "calm"],
    ]);
    // --json: the rows in the same order; --sort list: the daemon's order, the child still under its parent.
    expect((await json(["ls"], d.env)).rows.map((r: any) => r.id)).toEqual([boss, job.id, calm]);
    expect((await json(["ls", "--sort", "list"], d.env)).rows.map((r: any) => r.id)).toEqual([
      calm,
      boss,
      job.id,
    ]);
    // Its parent filtered out, the child stands alone.
    const blocked = (await ok(["ls", "--state", "blocked"], { ...d.env, COLUMNS: "160" }))
      .trimEnd()
      .split("\n");
    expect(blocked.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 2))).toEqual([[job.id, "helper"]]);
  });
});
