/**
 * The real Codex in a terminal job, as its users run it, against the scripted model: roost's hooks
 * for the job (`-c hooks.…` overrides of its run, trusted for that run alone) make the row: its
 * approval `blocked` with its own menu's options, a reply by number typed as the option's key, the
 * tool run, `your turn` with its last message, its session said; and its rollout file read as the
 * job's conversation (server/cli/hooks/codex-conversation.ts). `npm run build` first.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { untilRow } from "../../helpers/jobs.js";
import type { RawClient } from "../../helpers/raw-client.js";
import { codexEnv, realAgent } from "../../helpers/real-agents.js";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.js";

let model: ScriptedModel;
let d: TestDaemon;
let c: RawClient;
let base: string;
let work: string;

beforeAll(async () => {
  model = await startScriptedModel();
  base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-codex-term-"));
  work = path.join(base, "work");
  fs.mkdirSync(work);
  d = await startDaemon({
    config: {
      agentProfiles: {
        codex: {
          // The model's upgrade taken as seen, as after a first run (else Codex offers it first).
          command: [realAgent("codex"), "-c", 'notice.model_migrations={"gpt-5.3-codex"="gpt-5.4"}'],
          task: "argv",
          messages: true,
          env: codexEnv(model.origin, path.join(base, "home"), [work]),
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
});

/** What the job's terminal shows, for a failure's message. */
const screen = (id: string) =>
  execFileSync(process.execPath, [CLI, "log", id, "--plain", "--tail", "40"], {
    env: { ...process.env, ...d.env },
  })
    .toString()
    .slice(-3000);

describe("Codex in a terminal, its row from its hooks", () => {
  it("asks approval with its own menu, takes a reply by number, ends its turn with its answer; a follow-up", async () => {
    model.script(
      "cx",
      {
        text: "Writing the file.",
        tools: [
          {
            name: "exec_command",
            args: {
              cmd: "echo hooked > made.txt && cat made.txt",
              sandbox_permissions: "require_escalated",
              justification: "Write made.txt",
            },
          },
        ],
      },
      { text: "All done: wrote made.txt" },
      { text: "You are welcome." },
      { text: "Still here." },
    );
    const { job } = await c.ok("dispatch", { profile: "codex", task: "[cx] write made.txt", cwd: work });
    const id = job.id;
    const asked = await untilRow(c, id, "blocked", (r) => r.state === "blocked" && r.choices, 60_000).catch(
      (err) => {
        throw new Error(`${err.message}\n${screen(id)}`);
      },
    );
    expect(asked.question).toMatch(/Codex needs your permission to use .*: .*echo hooked > made.txt/);
    expect(asked.conversation).toBe("new");
    await c.ok("reply", { id, text: "1" });
    const done = await untilRow(
      c,
      id,
      "its answer",
      (r) => r.summary === "All done: wrote made.txt",
      60_000,
    ).catch((err) => {
      throw new Error(`${err.message}\n${screen(id)}`);
    });
    expect(fs.readFileSync(path.join(work, "made.txt"), "utf8")).toBe("hooked\n");
    expect(done).toMatchObject({ view: "your turn", question: null, tool: null });

    expect(done.conversation).toBe("new");

    // Its rollout as the conversation, sent by the Stop hook just after the turn's end it said.
    const said = await until("the agent's last words in the conversation", async () => {
      const { entries } = await c.ok("conversation", { id });
      return entries.some((e: any) => e.text === "All done: wrote made.txt") ? entries : undefined;
    });
    expect(said.map((e: any) => [e.kind, e.role ?? e.tool?.status, e.text ?? e.tool?.output])).toEqual([
      ["message", "user", "[cx] write made.txt"],
      ["message", "agent", "Writing the file."],
      ["tool", "running", "echo hooked > made.txt && cat made.txt"],
      ["tool", "completed", "hooked"],
      ["message", "agent", "All done: wrote made.txt"],
    ]);
    expect(said[2].tool).toMatchObject({ name: "exec_command", id: said[3].tool.id });
    expect(JSON.parse(said[2].tool.input)).toMatchObject({ cmd: "echo hooked > made.txt && cat made.txt" });

    // A follow-up, typed once its Stop hook said the turn ended.
    await c.ok("reply", { id, text: "thanks" });
    await untilRow(c, id, "the follow-up's answer", (r) => r.summary === "You are welcome.", 60_000).catch(
      (err) => {
        throw new Error(`${err.message}\n${screen(id)}`);
      },
    );

    // A respawn goes on with the session its hook said (`codex resume ID`), without its task again.
    // Its SessionStart hook runs only at its first turn: until then the row is read off its screen,
    // idle at its `› ` prompt (its npm launcher looked through), so the reply is typed.
    const { pid } = (await c.ok("list", { id })).rows[0];
    await c.ok("respawn", { id });
    await untilRow(
      c,
      id,
      "started again, at its prompt",
      (r) => r.pid !== pid && r.view === "your turn",
      60_000,
    ).catch((err) => {
      throw new Error(`${err.message}\n${screen(id)}`);
    });
    await c.ok("reply", { id, text: "are you there?" });
    const again = await untilRow(
      c,
      id,
      "an answer after the respawn",
      (r) => r.summary === "Still here.",
      60_000,
    ).catch((err) => {
      throw new Error(`${err.message}\n${screen(id)}`);
    });
    expect(again.conversation).toBe("resumed");
    const last = model.requestsFor("cx").at(-1)!.text;
    expect(last).toContain("thanks");
    expect(last.split("[cx] write made.txt")).toHaveLength(2);
  }, 300_000);
});
