/**
 * `roost ls` as a user reads it: the same state words and tones as every face (row-state.ts),
 * at a real terminal and in a pipe, against a real daemon with real jobs.
 */
import { spawn as ptySpawn } from "@lydell/node-pty";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { viewState } from "../sdk/ts/protocol/index.js";
import { json, needsBuild, ok, PLAIN_SHELL, rowOf } from "./helpers/cli.js";
import { agentProfile, CLI, startDaemon, type TestDaemon, until } from "./helpers/daemon.js";

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});
beforeAll(needsBuild);

/** `roost ARGS...` at a terminal of its own: everything it wrote there, once it has exited. */
function atTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const term = ptySpawn(process.execPath, [CLI, ...args], { cols: 160, rows: 40, env });
  let seen = "";
  term.onData((data) => {
    seen += data;
  });
  return new Promise((resolve) => term.onExit(() => resolve(seen)));
}

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

describe("the state words", () => {
  it("ls shows each row's word from viewState, an exit code beside it, coloured by its tone", async () => {
    d = await startDaemon({ env: PLAIN_SHELL, config: { agentProfiles: { agent: agentProfile() } } });
    const ids = await oneOfEach(d.env);

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
});
