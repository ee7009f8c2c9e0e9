/**
 * The real ACP agents inside roost (claude-agent-acp, codex-acp, Gemini CLI's `--acp`), for the
 * tests of test/agents/real/: a scripted model server (scripted-model.ts), a daemon whose roost.json
 * points the built-in profile (`claude-acp`, `codex-acp`, `gemini`) at the installed program with
 * that agent's environment (real-agents.ts: a HOME of the file's own, the model's address, a key),
 * and a working folder per job. One daemon and one model serve a file; each test's jobs are stopped
 * after it. A job's script is keyed by the tag its task starts with (`[t1] …`). `npm run build`
 * first: the bridge and `roost mcp` run from dist/.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { startDaemon, type TestDaemon } from "./daemon.js";
import { untilRow } from "./jobs.js";
import type { RawClient } from "./raw-client.js";
import { claudeEnv, codexEnv, geminiEnv, realAgent } from "./real-agents.js";
import { type ScriptedModel, startScriptedModel } from "./scripted-model.js";

export type RealAcpProfile = "claude-acp" | "codex-acp" | "gemini";

/** How long a test waits for what a real agent does (two node processes and the agent's own start). */
export const REAL_WAIT = 90_000;

export interface RealAcpWorld {
  d: TestDaemon;
  c: RawClient;
  model: ScriptedModel;
  /** The agent's HOME (its settings, sessions, logs). */
  home: string;
  /** Dispatches the profile in a working folder of its own; the job's id and that folder. */
  dispatch(task: string | undefined, extra?: Record<string, unknown>): Promise<{ id: string; work: string }>;
  /** Polls the job's row until `pred` holds (for as long as a real agent may take). */
  until(id: string, what: string, pred: (r: any) => boolean): Promise<any>;
}

/** How a profile's agent is set up, where a test wants it other than the recipe's. */
export interface AgentSetup {
  /** Gemini: `false` leaves the folder's trust to roost (no `GEMINI_CLI_TRUST_WORKSPACE`). */
  trust?: boolean;
  /** Codex: its built-in `openai` provider (a login wanted) rather than a provider of its own. */
  provider?: "scripted" | "openai";
  /** `false`: no key for the model in the agent's environment (a user who has not given one). */
  key?: false;
  /** More of the agent's environment. */
  env?: Record<string, string>;
}

/** The variables that carry each agent's key (the recipes set them). */
const KEY_VARS: Record<RealAcpProfile, string> = {
  "claude-acp": "ANTHROPIC_API_KEY",
  "codex-acp": "OPENAI_API_KEY",
  gemini: "GEMINI_API_KEY",
};

/** The profile's command and environment: the installed program, pointed at the model. */
function profileOf(name: RealAcpProfile, origin: string, home: string, work: string, setup: AgentSetup) {
  const [command, env] =
    name === "claude-acp"
      ? [[realAgent("claude-agent-acp")], claudeEnv(origin, home)]
      : name === "codex-acp"
        ? [[realAgent("codex-acp")], codexEnv(origin, home, [work], setup.provider)]
        : [[realAgent("gemini"), "--acp"], geminiEnv(origin, home, { trust: setup.trust })];
  if (setup.key === false) delete env[KEY_VARS[name]];
  return { command, acp: true, env: { ...env, ...setup.env } };
}

/**
 * One world for the file: `profile` as the user has it, but for its program (the installed one)
 * and its environment; `variants` are more profiles of the same agent set up otherwise (each
 * with a HOME of its own), dispatched with `{profile: name}`.
 */
export function realAcpWorldPerFile(
  profile: RealAcpProfile,
  opts: AgentSetup & { variants?: Record<string, AgentSetup> } = {},
): () => RealAcpWorld {
  let world: RealAcpWorld | undefined;
  let base = "";
  let n = 0;
  const ids: string[] = [];
  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-real-"));
    const home = path.join(base, "home");
    const work = path.join(base, "work");
    fs.mkdirSync(work);
    const model = await startScriptedModel();
    const agentProfiles = {
      [profile]: profileOf(profile, model.origin, home, work, opts),
      ...Object.fromEntries(
        Object.entries(opts.variants ?? {}).map(([name, setup]) => [
          name,
          profileOf(profile, model.origin, path.join(base, `home-${name}`), work, setup),
        ]),
      ),
    };
    const d = await startDaemon({ config: { agentProfiles } });
    const c = await d.client();
    world = {
      d,
      c,
      model,
      home,
      async dispatch(task, extra = {}) {
        const dir = path.join(work, `w${++n}`);
        fs.mkdirSync(dir);
        const args = { profile, cwd: dir, ...(task === undefined ? {} : { task }), ...extra };
        const { job } = await c.ok("dispatch", args);
        ids.push(job.id);
        return { id: job.id as string, work: dir };
      },
      until: (id, what, pred) => untilRow(c, id, what, pred, REAL_WAIT),
    };
  });
  afterEach(async () => {
    // One that ended already says so: no failure of the test's.
    for (const id of ids.splice(0)) await world?.c.request("stop", { id });
  });
  afterAll(async () => {
    await world?.d.cleanup();
    await world?.model.close();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });
  return () => {
    if (!world) throw new Error("the world is made in beforeAll");
    return world;
  };
}

/** Waits until the job's turn is over and every reply taken: done (or failed), idle, nothing pending. */
export const untilSettled = (w: RealAcpWorld, id: string) =>
  w.until(
    id,
    "settled",
    (r) => (r.state === "done" || r.state === "failed") && r.status === "idle" && r.pending === 0,
  );

/** The name the agent gives one of roost's MCP tools (`mcp__roost__roost_tasks`, `roost_tasks`…). */
export const toolNamed = (tools: string[], name: string): string => {
  const found = tools.find((t) => t === name || t.endsWith(`__${name}`) || t.endsWith(`_${name}`));
  if (!found) throw new Error(`the agent offered no ${name}: ${tools.join(", ")}`);
  return found;
};
