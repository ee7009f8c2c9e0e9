/**
 * Where the real agents are: the pinned Claude Code, Codex and Gemini CLIs and the ACP adapters,
 * installed by `node scripts/real-agents.mjs install` (which `npm test` and `npm run test:agents`
 * run first) into a cache folder of their own. A test that needs one and finds it missing fails
 * saying how to install it: the agents tier skips nothing.
 */
import { execFileSync } from "node:child_process";
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
