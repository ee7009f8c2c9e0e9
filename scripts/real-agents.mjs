// The real coding agents the agents tier runs inside roost (docs/testing.md), pinned: installed
// into a cache folder of their own, never into roost's node_modules (they are some 400 MB and
// no part of roost), once per list of versions. `npm test` runs `install` first; a second run
// finds the folder filled and does nothing.
//
//   node scripts/real-agents.mjs install   fill the cache (prints where, and how long it took)
//   node scripts/real-agents.mjs path      print the folder whose node_modules/.bin has the agents
//
// The folder: $ROOST_AGENTS_CACHE, else ~/.cache/roost/agents, with a subfolder named for the
// list below, so a changed pin installs beside the old one.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Each package and its exact version; the programs the tests start are its bins. */
export const AGENTS = {
  // Claude Code's own CLI (a terminal agent, with hooks) and its ACP adapter.
  "@anthropic-ai/claude-code": "2.1.83",
  "@zed-industries/claude-agent-acp": "0.23.1",
  // Codex: its CLI (a terminal agent, with notify) and its ACP adapter.
  "@openai/codex": "0.140.0",
  "@zed-industries/codex-acp": "0.16.0",
  // Gemini CLI: one program for both (`--acp` for ACP).
  "@google/gemini-cli": "0.61.0",
};

export function agentsFolder() {
  const base = process.env.ROOST_AGENTS_CACHE || path.join(os.homedir(), ".cache", "roost", "agents");
  const key = crypto.createHash("sha256").update(JSON.stringify(AGENTS)).digest("hex").slice(0, 12);
  return path.join(base, key);
}

function install() {
  const dir = agentsFolder();
  const stamp = path.join(dir, "installed.json");
  if (fs.existsSync(stamp)) return dir;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "package.json"),
    `${JSON.stringify({ name: "roost-test-agents", private: true, dependencies: AGENTS }, null, 2)}\n`,
  );
  const started = Date.now();
  process.stderr.write(`Installing the real agents for the agents tier into ${dir} …\n`);
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    stdio: "inherit",
  });
  fs.writeFileSync(stamp, `${JSON.stringify({ at: new Date().toISOString(), agents: AGENTS })}\n`);
  process.stderr.write(`Installed in ${((Date.now() - started) / 1000).toFixed(0)} s.\n`);
  return dir;
}

const command = process.argv[2];
if (command === "install") install();
else if (command === "path") process.stdout.write(`${agentsFolder()}\n`);
else if (import.meta.url === `file://${process.argv[1]}`) {
  process.stderr.write("usage: node scripts/real-agents.mjs install | path\n");
  process.exit(2);
}
