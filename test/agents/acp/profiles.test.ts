/**
 * The ACP profiles (docs/agents.md): roost's own for Gemini CLI's ACP mode and the Claude Code and
 * Codex ACP adapters, installed when their program is on the daemon's PATH, as every built-in
 * profile is; and a roost.json profile saying `"protocol": "acp"`. Here `gemini` is a stand-in on
 * the PATH that runs the scripted ACP agent. `npm run build` first.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACP_AGENT, ACP_WAIT } from "../../helpers/acp.js";
import { startDaemon, type TestDaemon } from "../../helpers/daemon.js";
import { untilRow } from "../../helpers/jobs.js";
import type { RawClient } from "../../helpers/raw-client.js";

let d: TestDaemon;
let c: RawClient;
let bin: string;

beforeAll(async () => {
  bin = fs.mkdtempSync(path.join(os.tmpdir(), "roost-acp-bin-"));
  // gemini --acp, as far as roost can tell: an ACP agent on its stdio.
  fs.writeFileSync(path.join(bin, "gemini"), `#!/bin/sh\nexec "${process.execPath}" "${ACP_AGENT}"\n`, {
    mode: 0o755,
  });
  d = await startDaemon({
    config: {
      agentProfiles: {
        mine: { command: [process.execPath, ACP_AGENT], protocol: "acp", description: "mine" },
      },
    },
    env: { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin` },
  });
  c = await d.client();
});

afterAll(async () => {
  await d?.cleanup();
  fs.rmSync(bin, { recursive: true, force: true });
});

describe("ACP profiles", { timeout: 4 * ACP_WAIT }, () => {
  it("roost's own are listed, installed when their program is there, acp and protocol", async () => {
    const { profiles } = await c.ok("profiles");
    const byName = new Map(profiles.map((p: any) => [p.name, p]));
    expect(byName.get("gemini")).toMatchObject({
      command: ["gemini", "--acp"],
      protocol: true,
      acp: true,
      source: "built-in",
      installed: true,
      missing: null,
    });
    for (const [name, program] of [
      ["claude-acp", "claude-agent-acp"],
      ["codex-acp", "codex-acp"],
    ])
      expect(byName.get(name)).toMatchObject({
        command: [program],
        acp: true,
        installed: false,
        missing: `${program} is not installed: not found on the PATH`,
      });
    expect(byName.get("mine")).toMatchObject({ protocol: true, acp: true, source: "roost.json" });
    expect(byName.get("shell")).toMatchObject({ protocol: false, acp: false });
  });

  it("the built-in gemini profile runs its agent through the bridge: an exact row", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "roost-acp-work-"));
    try {
      const { job } = await c.ok("dispatch", {
        profile: "gemini",
        task: "tool Read the code; tool-done; say Looks fine.",
        cwd: work,
      });
      const done = await untilRow(c, job.id, "done", (r) => r.state === "done" && r.pending === 0, ACP_WAIT);
      expect(done).toMatchObject({
        kind: "protocol",
        summary: "Looks fine.",
        agent: { name: "gemini", version: "roost-acp/1" },
        model: "Model One",
      });
      // The job runs the bridge, with the profile's command after it.
      const { events } = await c.ok("events", { id: job.id });
      expect(events.find((e: any) => e.kind === "start").text).toContain(
        "/dist/sdk/ts/acp/bridge.js gemini --acp",
      );
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  it("a roost.json profile with protocol: acp is an ACP job too", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "roost-acp-work-"));
    try {
      const { job } = await c.ok("dispatch", { profile: "mine", task: "say mine works", cwd: work });
      expect(
        await untilRow(c, job.id, "done", (r) => r.state === "done" && r.pending === 0, ACP_WAIT),
      ).toMatchObject({ summary: "mine works", agent: { name: "acp-agent" } });
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
