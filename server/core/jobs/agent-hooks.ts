/**
 * A terminal agent's hooks, installed for its job alone (docs/agents.md, "Terminal agents' hooks"):
 * Claude Code, Codex and Gemini CLI each run a program at the steps of their turns, and roost has
 * them run `roost hook AGENT EVENT`, which tells the daemon (core/jobs/hooked.ts). The user's own
 * settings are never edited: each CLI is given the job's hooks by a way that adds to the user's
 * (Claude Code's `--settings`, merged with the user's; Codex's `-c` overrides of this run; Gemini
 * CLI's system defaults file, whose hooks are added to the user's), so the user's hooks still run.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { HOOK_AGENTS, type HookAgent } from "../../../sdk/ts/protocol/index.js";
import type { Profile } from "../../config.js";
import { BUILT } from "../../paths.js";
import type { Launch } from "../../store/records.js";

/** The profile's agent whose hooks roost installs: said (`hooks`), or its program's name; none for a protocol agent. */
export function hooksOf(profile: Profile, protocol: boolean): HookAgent | null {
  if (protocol || profile.hooks === false) return null;
  if (profile.hooks) return profile.hooks;
  const program = path.basename(profile.command[0] ?? "");
  return (HOOK_AGENTS as readonly string[]).includes(program) ? (program as HookAgent) : null;
}

/** Each CLI's hook events that roost listens to (`roost hook` reads each's input: server/cli/hooks/). */
const EVENTS: Record<HookAgent, readonly string[]> = {
  claude: [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "Notification",
    "Stop",
    "SessionEnd",
  ],
  codex: ["SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop"],
  gemini: [
    "SessionStart",
    "BeforeAgent",
    "BeforeTool",
    "AfterTool",
    "Notification",
    "AfterAgent",
    "SessionEnd",
  ],
};

/**
 * Its `SessionStart` hook runs as it starts, once it takes keys (Claude Code, Gemini CLI): what is
 * typed into it waits for that (typist.ts). Codex runs its own only at its first turn.
 */
export const sessionHookAtStart = (agent: HookAgent): boolean => agent !== "codex";

/** The events whose hooks take a matcher (a tool's name): all of them. */
const TOOL_EVENTS: ReadonlySet<string> = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "BeforeTool",
  "AfterTool",
]);

/** How long a hook may take (it answers in milliseconds, and gives up on a daemon that does not). */
const HOOK_TIMEOUT_S = 10;

/** A word for a POSIX shell, quoted (the CLIs run a hook's command with `sh -c`). */
const quoted = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/** The command a hook runs: this roost's CLI, by node's own path (a job's PATH may not have `roost`). */
const hookCommand = (agent: HookAgent, event: string): string =>
  [process.execPath, BUILT.cli, "hook", agent, event].map(quoted).join(" ");

/**
 * The hooks as Claude Code's and Gemini CLI's settings have them (Codex's config too, as TOML). A
 * tool's event matches every tool: `*` for Claude Code and Gemini CLI, no matcher for Codex (its
 * matcher is a regular expression, and none matches all).
 */
function hooksFor(agent: HookAgent): Record<string, unknown[]> {
  const timeout = agent === "gemini" ? HOOK_TIMEOUT_S * 1000 : HOOK_TIMEOUT_S; // Gemini's is in ms
  const handler = (event: string) =>
    agent === "codex"
      ? { async: false, command: hookCommand(agent, event), timeout, type: "command" }
      : { type: "command", command: hookCommand(agent, event), timeout };
  return Object.fromEntries(
    EVENTS[agent].map((event) => [
      event,
      [{ ...(TOOL_EVENTS.has(event) && agent !== "codex" ? { matcher: "*" } : {}), hooks: [handler(event)] }],
    ]),
  );
}

/**
 * Codex runs a hook only once it is trusted (else it asks the user to review it before its first
 * turn): the job's own hooks are trusted for its run alone, in the same overrides (`hooks.state`),
 * by the key and hash Codex gives a hook of its command line: its place
 * (`/<session-flags>/config.toml:EVENT:GROUP:HANDLER`, the event in snake case) and the SHA-256 of
 * its identity as JSON, keys sorted (its event, its group's matcher, its handlers). The user's own
 * hooks keep the trust the user gave them.
 */
function codexTrust(
  hooks: Record<string, unknown[]>,
): Record<string, { trusted_hash: string; enabled: boolean }> {
  return Object.fromEntries(
    Object.entries(hooks).map(([event, groups]) => {
      const label = event.replace(/(?<=[a-z])(?=[A-Z])/g, "_").toLowerCase();
      const identity = { event_name: label, hooks: (groups[0] as { hooks: unknown[] }).hooks };
      const hash = createHash("sha256").update(JSON.stringify(identity)).digest("hex");
      return [`/<session-flags>/config.toml:${label}:0:0`, { trusted_hash: `sha256:${hash}`, enabled: true }];
    }),
  );
}

/** A value as TOML (for Codex's `-c key=value`): JSON's strings and numbers are TOML's; tables inline. */
function toml(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(toml).join(", ")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)} = ${toml(v)}`)
      .join(", ")}}`;
  return JSON.stringify(value);
}

/** A start's command and environment with the job's hooks installed (and its session resumed, when given). */
export interface HookedStart {
  command: string[];
  env: Record<string, string>;
}

/**
 * The job's command with its agent's hooks (their files written in the job's directory), going on
 * with `session` when given: Claude Code's and Gemini CLI's `--resume ID`, Codex's `resume ID`. A
 * resumed session has had its task: the command's last word, if it was the task, is left out.
 */
export function withHooks(
  dir: string,
  launch: Launch,
  session: string | null,
  /** The daemon's environment, which the job inherits below its launch's own. */
  env: NodeJS.ProcessEnv,
): HookedStart {
  const hooks = launch.hooks!;
  const [program, ...rest] = launch.command as [string, ...string[]];
  const args = session !== null && hooks.taskArg ? rest.slice(0, -1) : rest;
  switch (hooks.agent) {
    case "claude": {
      const file = writeSettings(dir, "claude-settings.json", { hooks: hooksFor("claude") });
      const resume = session === null ? [] : ["--resume", session];
      return { command: [program, "--settings", file, ...resume, ...args], env: {} };
    }
    case "codex": {
      const hooks = hooksFor("codex");
      const overrides = [
        ...Object.entries(hooks).flatMap(([event, v]) => ["-c", `hooks.${event}=${toml(v)}`]),
        ...["-c", `hooks.state=${toml(codexTrust(hooks))}`],
      ];
      const resume = session === null ? [] : ["resume", session];
      // After `resume ID`: Codex 0.140's `resume` ran without the hooks given before it.
      return { command: [program, ...resume, ...overrides, ...args], env: {} };
    }
    case "gemini": {
      const file = writeSettings(dir, "gemini-settings.json", { hooks: hooksFor("gemini") });
      const resume = session === null ? [] : ["--resume", session];
      return {
        command: [program, ...resume, ...args],
        env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: file, ...interactive(launch.env, env) },
      };
    }
  }
}

/**
 * Gemini CLI runs headless when it sees `CI=true` or `GITHUB_ACTIONS=true` (it reads its task from
 * stdin, finds none and exits 42), whatever its terminal: a daemon started in CI would make every
 * `gemini-cli` job fail at once. The job has a real terminal and roost types into it, so those two
 * say "false" to it when they would say "true".
 */
function interactive(
  own: Record<string, string> | undefined,
  inherited: NodeJS.ProcessEnv,
): Record<string, string> {
  const said = (name: string) => (own?.[name] ?? inherited[name]) === "true";
  return Object.fromEntries(["CI", "GITHUB_ACTIONS"].filter(said).map((name) => [name, "false"]));
}

/** A settings file of the job's own, in its directory (the job's alone: 0600). */
function writeSettings(dir: string, name: string, settings: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  return file;
}
