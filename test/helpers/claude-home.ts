/** Claude Code in a terminal, as a user who ran it once has it: for the tests of its terminal jobs. */
import fs from "node:fs";
import path from "node:path";
import { SCRIPTED_KEY } from "./real-agents.js";

/**
 * Claude Code's own state in its HOME as after a first run: onboarding done, the key approved
 * (else it asks whether to use it), the working folder trusted (else it asks that first).
 */
export function claudeHome(home: string, folders: string[]): void {
  fs.mkdirSync(home, { recursive: true });
  const projects = Object.fromEntries(
    folders.map((f) => [f, { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true }]),
  );
  fs.writeFileSync(
    path.join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      customApiKeyResponses: { approved: [SCRIPTED_KEY.slice(-20)], rejected: [] },
      projects,
    }),
  );
}
