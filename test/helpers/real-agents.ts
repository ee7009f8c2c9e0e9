/**
 * Where the real agents are: the pinned Claude Code, Codex and Gemini CLIs and the ACP adapters,
 * installed by `node scripts/real-agents.mjs install` (which `npm test` and `npm run test:agents`
 * run first) into a cache folder of their own. A test that needs one and finds it missing fails
 * saying how to install it: the agents tier skips nothing.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The folder whose node_modules/.bin holds the agents (scripts/real-agents.mjs's `path`). */
export function realAgentsFolder(): string {
  const script = path.join(ROOT, "scripts", "real-agents.mjs");
  return execFileSync(process.execPath, [script, "path"], { encoding: "utf8" }).trim();
}

/** The path of one agent's program (`claude`, `claude-agent-acp`, `codex`, `codex-acp`, `gemini`). */
export function realAgent(bin: "claude" | "claude-agent-acp" | "codex" | "codex-acp" | "gemini"): string {
  const file = path.join(realAgentsFolder(), "node_modules", ".bin", bin);
  if (!fs.existsSync(file)) {
    throw new Error(
      `${bin} is not installed for the tests: run \`npm run agents:install\` (scripts/real-agents.mjs)`,
    );
  }
  return file;
}

/** A key the scripted model takes: any will do, the agents only need one to be set. */
export const SCRIPTED_KEY = "scripted-key";

/**
 * What every real agent's environment has in the tests: a HOME of the test's own (each agent
 * keeps its settings, sessions and caches under it), and nothing that would reach a network
 * (no update checks, no telemetry).
 */
function baseEnv(home: string): Record<string, string> {
  fs.mkdirSync(home, { recursive: true });
  return {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    NO_UPDATE_NOTIFIER: "1",
    DO_NOT_TRACK: "1",
  };
}

/**
 * Claude Code (and claude-agent-acp) against the scripted model: its base URL the server's
 * origin, any key, `IS_SANDBOX=1` so that it takes its skip-permissions flag as root, and no
 * traffic of its own (updates, telemetry, error reports).
 */
export function claudeEnv(origin: string, home: string): Record<string, string> {
  return {
    ...baseEnv(home),
    ANTHROPIC_BASE_URL: origin,
    ANTHROPIC_API_KEY: SCRIPTED_KEY,
    IS_SANDBOX: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
  };
}

/** The model Codex is told to use (a name it knows, so that it offers its usual tools). */
export const CODEX_MODEL = "gpt-5.3-codex";

/**
 * Codex (and codex-acp) against the scripted model: a `CODEX_HOME` of its own whose config.toml
 * points it at the server, the key in `OPENAI_API_KEY`, no retries (a scripted error ends the turn
 * at once) and the given folders trusted. `provider`: `scripted` (the default) is a model provider
 * of its own (`[model_providers.scripted]`, the Responses wire, `env_key`); `openai` is Codex's
 * built-in provider with its base URL moved (`openai_base_url`), as a user with an API key has it,
 * for whom codex-acp wants a login (its `authenticate`) before a session.
 */
export function codexEnv(
  origin: string,
  home: string,
  trusted: string[] = [],
  provider: "scripted" | "openai" = "scripted",
): Record<string, string> {
  const codexHome = path.join(home, ".codex");
  fs.mkdirSync(codexHome, { recursive: true });
  const projects = trusted.map((dir) => `[projects.${JSON.stringify(dir)}]\ntrust_level = "trusted"\n`);
  const scripted = [
    `model_provider = "scripted"`,
    "",
    "[model_providers.scripted]",
    `name = "scripted"`,
    `base_url = "${origin}/v1"`,
    `env_key = "OPENAI_API_KEY"`,
    `wire_api = "responses"`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
  ];
  const openai = [`openai_base_url = "${origin}/v1"`];
  fs.writeFileSync(
    path.join(codexHome, "config.toml"),
    [
      `model = "${CODEX_MODEL}"`,
      `check_for_update_on_startup = false`,
      ...(provider === "scripted" ? scripted : openai),
      "",
      "[analytics]",
      "enabled = false",
      "",
      ...projects,
    ].join("\n"),
  );
  return { ...baseEnv(home), CODEX_HOME: codexHome, OPENAI_API_KEY: SCRIPTED_KEY };
}

/**
 * Gemini CLI against the scripted model: its base URL the server's origin, any key, the
 * working folder trusted unless said (else it starts no stdio MCP server: roost's tools would be
 * absent), and no telemetry or update check.
 */
export function geminiEnv(
  origin: string,
  home: string,
  opts: { trust?: boolean } = {},
): Record<string, string> {
  const settings = path.join(home, ".gemini");
  fs.mkdirSync(settings, { recursive: true });
  fs.writeFileSync(
    path.join(settings, "settings.json"),
    JSON.stringify({
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { auth: { selectedType: "gemini-api-key" } },
    }),
  );
  return {
    ...baseEnv(home),
    GOOGLE_GEMINI_BASE_URL: origin,
    GEMINI_API_KEY: SCRIPTED_KEY,
    // Left out where a test shows what roost does for the trust itself.
    ...(opts.trust === false ? {} : { GEMINI_CLI_TRUST_WORKSPACE: "true" }),
  };
}

/** What a CLI run alone printed, and how it ended. */
export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs an agent's CLI once, non-interactively, with only the environment given (and PATH, for
 * node): its output when it exits. Killed by its pid (and its process group's) past `ms`, which
 * is the caller's failure.
 */
export async function runAgent(
  bin: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; ms?: number },
): Promise<AgentRun> {
  const child = spawn(bin, args, {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  }, opts.ms ?? 90_000);
  const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
  clearTimeout(timer);
  // What it left running in its group (a relaunched child) is ended too, by the group's id.
  try {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  } catch {}
  if (code === null)
    throw new Error(`${path.basename(bin)} ran past ${opts.ms ?? 90_000} ms:\n${stdout}\n${stderr}`);
  return { code, stdout, stderr };
}
