/**
 * `roost pi install`: roost's extension in pi's extensions folder, so that a profile running `pi`
 * alone is a protocol agent; loaded twice (installed, and the `pi` profile's `-e`), one speaks and
 * the model has each tool once. `uninstall` takes it out; `path` says where the extension is. The
 * real pi 0.74.2, the scripted model; `npm run build` first.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { roost } from "../../helpers/cli.js";
import { ROOT } from "../../helpers/daemon.js";
import { PI_WAIT, piWorldPerTest, untilDone } from "../../helpers/pi.js";

const EXTENSION = path.join(ROOT, "dist/sdk/ts/pi/index.js");
const ROOST_TOOLS = [
  "roost_peers",
  "roost_send",
  "roost_spawn",
  "roost_handback",
  "roost_watch",
  "roost_tasks",
  "roost_ask",
];
const world = piWorldPerTest({
  config: { agentProfiles: { "plain-pi": { command: ["pi"], task: "type", protocol: true } } },
});

describe("roost pi", { timeout: 4 * PI_WAIT }, () => {
  it("install: pi alone loads roost's extension; loaded twice, one speaks; uninstall takes it out", async () => {
    const w = await world();
    const env = { ...w.d.env };
    const file = path.join(w.agentDir, "extensions", "roost.js");

    const installed = await roost(["pi", "install"], env);
    expect(installed).toMatchObject({ code: 0, stderr: "" });
    expect(installed.stdout).toContain(`installed ${file}`);
    expect(fs.readFileSync(file, "utf8")).toContain(`export { default } from ${JSON.stringify(EXTENSION)};`);

    w.model.script("plain", { text: "Plain pi here." });
    const { job } = await w.c.ok("dispatch", { profile: "plain-pi", task: "[plain] hello", cwd: w.work });
    const plain = await untilDone(w, job.id);
    expect(plain).toMatchObject({ kind: "protocol", summary: "Plain pi here.", agent: { name: "pi" } });

    // The pi profile loads it with -e as well: the model still sees each of roost's tools once.
    w.model.script("twice", { text: "Still one of each." });
    const twice = await untilDone(w, await w.dispatch("[twice] hello"));
    expect(twice.summary).toBe("Still one of each.");
    const tools = w.model.requestsFor("twice")[0]!.tools.filter((t) => t.startsWith("roost_"));
    expect(tools.sort()).toEqual([...ROOST_TOOLS].sort());

    const removed = await roost(["pi", "uninstall"], env);
    expect(removed).toMatchObject({ code: 0, stdout: `removed ${file}\n` });
    expect(fs.existsSync(file)).toBe(false);
    expect((await roost(["pi", "uninstall"], env)).stdout).toBe(`nothing to remove: ${file} is not there\n`);
  });

  it("path prints the extension's file; anything else is a usage error", async () => {
    const env = { ...process.env, PI_CODING_AGENT_DIR: "/nonexistent" } as Record<string, string>;
    expect(await roost(["pi", "path"], env)).toMatchObject({ code: 0, stdout: `${EXTENSION}\n` });
    const wrong = await roost(["pi", "instal"], env);
    expect(wrong.code).toBe(64);
    expect(wrong.stderr).toMatch(/pi takes install, uninstall or path, not "instal"/);
  });
});
