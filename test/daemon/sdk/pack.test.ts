/**
 * The npm package as a user gets it: `npm pack`, installed into a fresh project, whose agent
 * (pi-roost/agent) and controller script (pi-roost/client) work against a real daemon.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";

const run = promisify(execFile);
/** The daemon, started while npm packs and installs (it needs nothing of theirs until the dispatch). */
let starting: Promise<TestDaemon> | undefined;
const project = fs.mkdtempSync(path.join(os.tmpdir(), "roost-pack-"));
afterAll(async () => {
  const d = await starting?.catch(() => undefined);
  await d?.cleanup();
  fs.rmSync(project, { recursive: true, force: true });
});

describe("npm pack", () => {
  it(
    "makes a package that a fresh project installs and runs an agent and a client with",
    { timeout: 240_000 },
    async () => {
      starting = startDaemon({
        config: {
          agentProfiles: {
            packed: {
              command: [process.execPath, path.join(project, "agent.mjs")],
              task: "type",
              protocol: true,
            },
          },
        },
      });
      // Awaited below; a start that fails before then fails the test there, not as unhandled.
      starting.catch(() => {});
      const { stdout } = await run(
        "npm",
        ["pack", "--json", "--ignore-scripts", "--pack-destination", project],
        {
          cwd: ROOT,
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
      const files = packed!.files.map((f) => f.path);
      expect(files).toContain("dist/sdk/ts/agent/index.js");
      expect(files).toContain("dist/sdk/ts/client/index.js");
      expect(files).toContain("sdk/python/roost_agent.py");
      expect(files.some((f) => f.startsWith("test/") || f.startsWith("dist/bench/"))).toBe(false);

      fs.writeFileSync(
        path.join(project, "package.json"),
        JSON.stringify({ name: "uses-roost", type: "module" }),
      );
      // The agent's side needs no native module: install without build scripts, quickly.
      await run(
        "npm",
        [
          "install",
          "--ignore-scripts",
          "--no-audit",
          "--no-fund",
          "--prefer-offline",
          `./${packed!.filename}`,
        ],
        {
          cwd: project,
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      fs.writeFileSync(
        path.join(project, "agent.mjs"),
        `import { RoostAgent } from "pi-roost/agent";
const agent = RoostAgent.fromEnv({
  name: "packed",
  version: "1.0",
  onReply: async (r) => agent.report({ state: "done", summary: "packed got: " + r.text }),
});
agent.report({ state: "working", summary: "packed agent up" });
`,
      );
      fs.writeFileSync(
        path.join(project, "controller.mjs"),
        `import { DaemonClient } from "pi-roost/client";
const client = new DaemonClient();
const { rows } = await client.list();
console.log(JSON.stringify(rows.map((r) => [r.id, r.summary])));
client.close();
`,
      );
      const d = await starting;
      const c = await d.client();
      const { job } = await c.ok("dispatch", { profile: "packed", task: "hello", cwd: project });
      await until(
        "the packed agent's reply handled",
        async () => (await c.ok("list", { id: job.id })).rows[0].summary === "packed got: hello",
      );
      const out = await run(process.execPath, [path.join(project, "controller.mjs")], {
        cwd: project,
        env: d.env,
      });
      expect(JSON.parse(out.stdout)).toEqual([[job.id, "packed got: hello"]]);
    },
  );
});
