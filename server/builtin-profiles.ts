/** The profiles roost ships (docs/agents.md), so that it does something on a machine with nothing configured. */
import path from "node:path";
import type { Profile } from "./config.js";
import { PI_EXTENSION } from "./paths.js";
import { PACKAGE_ROOT } from "./version.js";

/** The built-in profiles; roost.json's `agentProfiles` add to them and may replace them by name. */
export function builtinProfiles(env: NodeJS.ProcessEnv = process.env): Record<string, Profile> {
  return {
    shell: {
      command: [env.SHELL || "/bin/bash"],
      task: "type",
      description: "your shell, as a terminal agent: the task is typed into it",
    },
    // The SDKs' example agents: protocol agents that do real, visible work without a model.
    "example-py": {
      command: ["python3", path.join(PACKAGE_ROOT, "sdk/examples/example_agent.py")],
      task: "type",
      protocol: true,
      description: "the Python example agent: runs the task's shell steps, asks before destructive ones",
    },
    "example-ts": {
      command: [process.execPath, path.join(PACKAGE_ROOT, "dist/sdk/ts/examples/example-agent.js")],
      task: "type",
      protocol: true,
      description: "the TypeScript example agent: runs the task's shell steps, asks before destructive ones",
    },
    // Common agent CLIs as terminal agents, with the prompts they wait on (when installed).
    claude: {
      command: ["claude"],
      task: "argv",
      blockedPattern: ["Do you want to", "❯ 1\\. Yes"],
      messages: true,
      description: "Claude Code, as a terminal agent",
    },
    codex: {
      command: ["codex"],
      task: "argv",
      blockedPattern: ["Allow command\\?", "Would you like to", "approve"],
      messages: true,
      description: "Codex CLI, as a terminal agent",
    },
    "gemini-cli": {
      command: ["gemini"],
      task: "type",
      messages: true,
      description: "Gemini CLI, as a terminal agent (the gemini profile runs its ACP mode)",
    },
    aider: {
      command: ["aider"],
      task: "type",
      blockedPattern: ["\\(Y\\)es/\\(N\\)o"],
      messages: true,
      description: "aider, as a terminal agent",
    },
    // pi, with roost's extension (docs/pi.md): its own interface in the job's terminal, its row
    // from its events, replies as its steer and follow-up messages.
    pi: {
      command: ["pi", "-e", PI_EXTENSION],
      task: "type",
      protocol: true,
      description: "pi, as a protocol agent: its row from its own events, replies as its own messages",
    },
    // ACP agents (docs/agents.md): their rows from their session updates, their permission requests
    // as blocked rows, replies as prompts; roost's tools through `roost mcp`.
    gemini: {
      command: ["gemini", "--acp"],
      acp: true,
      description: "Gemini CLI in its ACP mode: an exact row, approvals as choices, roost's tools",
    },
    "claude-acp": {
      command: ["claude-agent-acp"],
      acp: true,
      description: "Claude Code through its ACP adapter (@zed-industries/claude-agent-acp)",
    },
    "codex-acp": {
      command: ["codex-acp"],
      acp: true,
      description: "Codex through its ACP adapter (@zed-industries/codex-acp)",
    },
  };
}
