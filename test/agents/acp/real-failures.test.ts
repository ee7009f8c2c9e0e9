/**
 * The real ACP agents failing, and steered, inside roost (docs/agents.md, "ACP agents"): codex-acp
 * and Gemini CLI without a key (the row fails with the agent's words within seconds), codex-acp
 * logged in by `authenticate` with its key, codex-acp's npm wrapper killed and the agent under it
 * killed (the row fails at once, nothing left running), and `--steer` with claude-agent-acp, whose
 * cancel answers early. Each agent runs against the scripted model server (test/helpers/
 * scripted-model.ts) under a real daemon. `npm run build` first; the agents installed
 * (scripts/real-agents.mjs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACP_WAIT } from "../../helpers/acp.js";
import { childPids, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { untilGone, untilRow } from "../../helpers/jobs.js";
import { descendants } from "../../helpers/processes.js";
import type { RawClient } from "../../helpers/raw-client.js";
import { claudeEnv, codexEnv, geminiEnv, realAgent } from "../../helpers/real-agents.js";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.js";

let model: ScriptedModel;
let d: TestDaemon;
let c: RawClient;
let base: string;
const work = (name: string) => {
  const dir = path.join(base, "work", name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};
const emptyDir = (dir: string) => {
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};
const without = (env: Record<string, string>, ...keys: string[]) =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !keys.includes(k)));

beforeAll(async () => {
  model = await startScriptedModel();
  base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-real-acp-"));
  const home = (name: string) => path.join(base, "home", name);
  const codex = codexEnv(model.origin, home("codex"), [path.join(base, "work")]);
  const gemini = geminiEnv(model.origin, home("gemini"));
  const acp = (command: string[], env: Record<string, string>) => ({ command, acp: true, env });
  d = await startDaemon({
    config: {
      agentProfiles: {
        claude: acp([realAgent("claude-agent-acp")], claudeEnv(model.origin, home("claude"))),
        codex: acp([realAgent("codex-acp")], codex),
        // Codex's own provider (no config.toml of the test's): its login is asked for at session/new.
        "codex-keyed": acp([realAgent("codex-acp")], { ...codex, CODEX_HOME: emptyDir(home("codex-keyed")) }),
        "codex-nokey": acp([realAgent("codex-acp")], {
          ...without(codex, "OPENAI_API_KEY"),
          CODEX_HOME: emptyDir(home("codex-nokey")),
        }),
        "gemini-nokey": acp([realAgent("gemini"), "--acp"], without(gemini, "GEMINI_API_KEY")),
      },
    },
  });
  c = await d.client();
});

afterAll(async () => {
  await d?.cleanup();
  await model?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

const dispatch = async (profile: string, task: string) => {
  const { job } = await c.ok("dispatch", { profile, task, cwd: work(profile) });
  return job.id as string;
};
const untilJob = (id: string, what: string, pred: (r: any) => boolean) =>
  untilRow(c, id, what, pred, ACP_WAIT);

describe("the real ACP agents", { timeout: 4 * ACP_WAIT }, () => {
  it("claude-agent-acp steered: the steer is handed the turn, the row done only with the steered answer", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    model.script("st", { hold: held, text: "An essay, at length." }, { text: "Steered: the other way." });
    const id = await dispatch("claude", "[st] write a long essay");
    await until("the first request held", () => model.requestsFor("st").length === 1, 2 * ACP_WAIT);
    await c.ok("reply", { id, text: "[st] stop that, go the other way", mode: "steer" });
    await untilJob(id, "the steer prompted", (r) => r.lastSeq === 2 && r.pending === 0);
    release();
    const seen: string[] = [];
    const done = await untilJob(id, "the steered answer", (r) => {
      seen.push(`${r.state}: ${r.summary}`);
      return r.state === "done";
    });
    // Never done over the running turn: the first done is the steered answer's (the agent's
    // updates carry no turn: the first turn's last words may come joined to it).
    expect(done.summary).toMatch(/Steered: the other way\.$/);
    expect(seen.filter((s) => s.startsWith("done"))).toEqual([`done: ${done.summary}`]);
    const [, steered] = model.requestsFor("st");
    expect(steered?.text).toContain("stop that, go the other way");
  });

  /** The processes under the job's bridge while `pred` is awaited, and the row that met it. */
  async function watchTree(id: string, what: string, pred: (r: any) => boolean) {
    const seen = new Set<number>();
    const row = await untilJob(id, what, (r) => {
      if (r.pid && r.life === "running") for (const p of descendants(r.pid)) seen.add(p);
      return pred(r);
    });
    return { row, seen: [...seen] };
  }

  it("codex-acp with no key: the row fails within seconds with its words and what it offers, nothing left running", async () => {
    const started = Date.now();
    const id = await dispatch("codex-nokey", "[nk] hello");
    const { row, seen } = await watchTree(id, "failed", (r) => r.state === "failed");
    expect(row.error).toBe(
      "codex-acp did not start its ACP session: Authentication required (it offers: Login with ChatGPT; Use CODEX_API_KEY: set CODEX_API_KEY in the profile's env; Use OPENAI_API_KEY: set OPENAI_API_KEY in the profile's env)",
    );
    expect(Date.now() - started).toBeLessThan(ACP_WAIT / 2);
    await untilJob(id, "ended", (r) => r.life === "exited");
    for (const pid of seen) await untilGone(pid);
    expect(model.requestsFor("nk")).toEqual([]);
  });

  it("Gemini CLI with no key: the row fails within seconds with its words, its relaunched self (deaf to SIGTERM) ended", async () => {
    const started = Date.now();
    const id = await dispatch("gemini-nokey", "[gk] hello");
    const { row, seen } = await watchTree(id, "failed", (r) => r.state === "failed");
    expect(row.error).toMatch(
      /^gemini did not start its ACP session: Gemini API key is missing or not configured\. \(it offers: .*Gemini API key: set GEMINI_API_KEY in the profile's env/,
    );
    expect(Date.now() - started).toBeLessThan(ACP_WAIT / 2);
    await untilJob(id, "ended", (r) => r.life === "exited");
    for (const pid of seen) await untilGone(pid);
  });

  it("codex-acp with its key in the environment is logged in (authenticate): its session is made", async () => {
    // Codex's own provider, which asks for a login at session/new: no turn, no model reached.
    const { job } = await c.ok("dispatch", { profile: "codex-keyed", cwd: work("codex-keyed") });
    const id = job.id as string;
    expect(await untilJob(id, "ready", (r) => r.state !== "working")).toMatchObject({
      state: "done",
      summary: "ready for a task",
      error: null,
    });
    await c.ok("stop", { id });
  });

  /** A codex-acp job in a held turn: its bridge, the npm wrapper under it, the agent under that. */
  async function heldCodex(tag: string) {
    model.script(tag, { hold: new Promise(() => {}) });
    const id = await dispatch("codex", `[${tag}] a long job`);
    await until("the turn's request", () => model.requestsFor(tag).length === 1, 2 * ACP_WAIT);
    const bridge = (await c.ok("list", { id })).rows[0].pid as number;
    const [wrapper] = childPids(bridge);
    const [agent] = childPids(wrapper!);
    expect(procComm(wrapper!)).toBe("node");
    expect(procComm(agent!)).toBe("codex-acp");
    return { id, wrapper: wrapper!, agent: agent! };
  }

  it("codex-acp's wrapper killed: the row fails at once, the agent under it ended", async () => {
    const { id, wrapper, agent } = await heldCodex("kw");
    process.kill(wrapper, "SIGKILL");
    const failed = await untilJob(id, "failed", (r) => r.state === "failed");
    expect(failed.error).toMatch(/^codex-acp was killed by SIGKILL(: .*)?; \d+ leftover process(es)? ended$/);
    await untilGone(agent);
    expect(await untilJob(id, "ended", (r) => r.life === "exited")).toMatchObject({ state: "failed" });
  });

  it("the agent under codex-acp's wrapper killed: the row fails at once, nothing left", async () => {
    const { id, wrapper, agent } = await heldCodex("ka");
    process.kill(agent, "SIGKILL");
    const failed = await untilJob(id, "failed", (r) => r.state === "failed");
    // The wrapper waits for its agent and exits with its status (0 for one killed by a signal).
    expect(failed.error).toMatch(/^codex-acp exited with code \d+/);
    await untilGone(wrapper);
    await untilJob(id, "ended", (r) => r.life === "exited");
  });
});

/** A process's program name (/proc/PID/comm). */
const procComm = (pid: number) => fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
