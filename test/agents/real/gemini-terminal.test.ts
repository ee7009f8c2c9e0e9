/**
 * The real Gemini CLI in a terminal job (the `gemini-cli` profile), as its users run it, against the
 * scripted model: roost's hooks for the job (its system defaults file) make the row: its tool's
 * permission `blocked` with its own menu's options, a reply by number typed as the option's key, the
 * tool run, `your turn` with its last message, its session said; and its conversation, read from its
 * session file: the task, the thought, the words, the shell command with its output, the answer.
 * `npm run build` first.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { untilRow } from "../../helpers/jobs.js";
import type { RawClient } from "../../helpers/raw-client.js";
import { geminiEnv, realAgent } from "../../helpers/real-agents.js";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.js";

let model: ScriptedModel;
let d: TestDaemon;
let c: RawClient;
let base: string;
let work: string;
let roostHome: string;

beforeAll(async () => {
  model = await startScriptedModel();
  base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-gemini-term-"));
  work = path.join(base, "work");
  fs.mkdirSync(work);
  // roost's home where Gemini CLI takes a settings file from: not below /tmp, which others may
  // write (Gemini CLI skips a system defaults file there, and roost's hooks with it).
  const homes = path.join(os.homedir(), ".cache", "roost-tests");
  fs.mkdirSync(homes, { recursive: true, mode: 0o700 });
  roostHome = fs.mkdtempSync(path.join(homes, "gemini-"));
  d = await startDaemon({
    home: roostHome,
    config: {
      agentProfiles: {
        "gemini-cli": {
          command: [realAgent("gemini")],
          task: "type",
          messages: true,
          env: geminiEnv(model.origin, path.join(base, "home")),
        },
      },
    },
  });
  c = await d.client();
}, 60_000);
afterAll(async () => {
  await d?.cleanup();
  await model?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
  if (roostHome) fs.rmSync(roostHome, { recursive: true, force: true });
});

/** What the job's terminal shows, for a failure's message. */
const screen = (id: string) =>
  execFileSync(process.execPath, [CLI, "log", id, "--plain", "--tail", "60"], {
    env: { ...process.env, ...d.env },
  })
    .toString()
    .slice(-4000);

const orScreen = (id: string) => async (err: Error) => {
  const { rows } = await c.ok("list", { id });
  throw new Error(`${err.message}\n${JSON.stringify(rows[0])}\n${screen(id)}`);
};

describe("Gemini CLI in a terminal, its row from its hooks", () => {
  it("asks permission with its own menu, takes a reply by number, ends its turn with its answer", async () => {
    model.script(
      "gt",
      {
        thinking: "A file, then.",
        text: "Writing the file.",
        tools: [{ name: "run_shell_command", args: { command: "echo hooked > made.txt" } }],
      },
      { text: "All done: wrote made.txt" },
    );
    const { job } = await c.ok("dispatch", { profile: "gemini-cli", task: "[gt] write made.txt", cwd: work });
    const id = job.id;
    const asked = await untilRow(c, id, "blocked", (r) => r.state === "blocked" && r.choices, 90_000).catch(
      orScreen(id),
    );
    expect(asked.question).toContain("echo hooked > made.txt");
    await c.ok("reply", { id, text: "1" });
    // Gemini CLI's AfterAgent says the whole turn's text, the words before the tool's run too.
    const done = await untilRow(
      c,
      id,
      "its answer",
      (r) => r.summary?.endsWith("All done: wrote made.txt"),
      60_000,
    ).catch(orScreen(id));
    expect(fs.readFileSync(path.join(work, "made.txt"), "utf8")).toBe("hooked\n");
    expect(done).toMatchObject({ view: "your turn", question: null, tool: null, conversation: "new" });

    // The session file's news is sent by the hook after what the hook said: waited for.
    const said = (e: any) => [e.kind, e.role ?? e.tool?.status, e.text, e.tool?.output];
    const entries = await until("the answer in the conversation", async () => {
      const { entries } = await c.ok("conversation", { id });
      return entries.some((e: any) => e.text === "All done: wrote made.txt") && entries;
    });
    expect(entries.map(said)).toEqual([
      ["message", "user", "[gt] write made.txt", undefined],
      ["thinking", "agent", "A file, then.", undefined],
      ["message", "agent", "Writing the file.", undefined],
      [
        "tool",
        "completed",
        "echo hooked > made.txt",
        expect.stringMatching(/^Output: \(empty\)\nProcess Group PGID: \d+$/),
      ],
      ["message", "agent", "All done: wrote made.txt", undefined],
    ]);
    expect(entries[3].tool).toMatchObject({
      name: "run_shell_command",
      input: JSON.stringify({ command: "echo hooked > made.txt" }, null, 2),
    });
  }, 240_000);
});
