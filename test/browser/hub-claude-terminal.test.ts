/**
 * A Claude Code terminal job's row in the hub through a permission prompt, for real: the pinned
 * Claude Code against the scripted model, its row from roost's hooks (blocked with its own question
 * and its menu's options as the row's buttons), answered from the page, then its answer and cost;
 * screenshots for people to look at (test-output/screenshots/claude-terminal-*.png).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeHome } from "../helpers/claude-home.js";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { claudeEnv, realAgent } from "../helpers/real-agents.js";
import { type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.js";
import { pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const openPage = hubBrowser();
let model: ScriptedModel;
let d: TestDaemon;
let c: RawClient;
let base: string;

beforeAll(async () => {
  model = await startScriptedModel();
  base = fs.mkdtempSync(path.join(os.tmpdir(), "roost-hub-claude-"));
  const work = path.join(base, "work");
  fs.mkdirSync(work);
  const home = path.join(base, "home");
  claudeHome(home, [work]);
  d = await startDaemon({
    config: {
      agentProfiles: {
        claude: {
          command: [realAgent("claude")],
          task: "argv",
          messages: true,
          env: claudeEnv(model.origin, home),
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

describe("a Claude Code terminal job in the hub", () => {
  it("asks with its own question and menu, is answered from the page, ends with its answer and cost", async () => {
    model.script(
      "hub",
      {
        text: "Writing it.",
        tools: [{ name: "Bash", args: { command: "echo hi > hi.txt", description: "Write" } }],
      },
      { text: "All done: wrote hi.txt" },
    );
    const { job } = await c.ok("dispatch", {
      profile: "claude",
      task: "[hub] write hi.txt",
      cwd: path.join(base, "work"),
    });
    const { page } = await openPage(d);
    const row = page.locator("li.row", { hasText: "Claude needs your permission to use Bash" });
    await row.waitFor({ timeout: 2 * WAIT });
    await untilRow(c, job.id, "its menu as choices", (r) => r.choices?.length >= 2, WAIT);
    await row.getByRole("button", { name: /^(1\. )?Yes$/ }).waitFor();
    await shot(page, "claude-terminal-blocked");
    await row.getByRole("button", { name: /^(1\. )?Yes$/ }).click();
    await page.locator("li.row", { hasText: "All done: wrote hi.txt" }).waitFor({ timeout: 2 * WAIT });
    await shot(page, "claude-terminal-done");
    expect(fs.readFileSync(path.join(base, "work", "hi.txt"), "utf8")).toBe("hi\n");
    expect(pageErrors(page)).toEqual([]);
  }, 180_000);
});
