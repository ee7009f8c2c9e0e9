/**
 * `roost dispatch --sandbox` and `roost ls` (docs/security.md): a job dispatched sandboxed from the
 * CLI runs in bubblewrap, and the table says so beside its state; `--no-sandbox` runs one of a
 * sandboxed profile unconfined.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needsBuild, ok, PLAIN_SHELL, roost, rowOf } from "../helpers/cli.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { rmTemp, tempDir } from "../helpers/jobs.js";

beforeAll(needsBuild);

describe("roost dispatch --sandbox", () => {
  let d: TestDaemon;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    d = await startDaemon({
      env: PLAIN_SHELL,
      config: { agentProfiles: { boxed: { command: ["sleep", "600"], sandbox: true } } },
    });
  });
  afterAll(async () => {
    await d?.cleanup();
    rmTemp(dir);
  });

  it("starts the job sandboxed, and roost ls shows it so; --no-sandbox runs a sandboxed profile's job unconfined", async () => {
    const said = await ok(["dispatch", "shell", "sleep 100", "--sandbox", "--name", "inbox"], d.env, dir);
    expect(said).toMatch(/^started (j\d+) \(shell\) in .*, sandboxed$/m);
    const boxed = /^started (j\d+)/.exec(said)![1]!;
    const plain = /^started (j\d+)/.exec(
      await ok(["dispatch", "boxed", "--no-sandbox", "--name", "loose"], d.env, dir),
    )![1]!;
    expect(await rowOf(d.env, boxed)).toMatchObject({ sandboxed: true, name: "inbox" });
    expect(await rowOf(d.env, plain)).toMatchObject({ sandboxed: false, name: "loose" });
    await until("both running", async () => (await rowOf(d.env, plain)).life === "running");
    const table = await ok(["ls"], { ...d.env, COLUMNS: "160" });
    expect(table).toMatch(new RegExp(`^${boxed} +inbox +\\S+(?: \\S+)*? \\(sandboxed\\)  `, "m"));
    expect(table).toMatch(new RegExp(`^${plain} +loose +`, "m"));
    expect(table).not.toMatch(new RegExp(`^${plain} .*sandboxed`, "m"));
  });

  it("--sandbox and --no-sandbox together are a usage error", async () => {
    const r = await roost(["dispatch", "shell", "--sandbox", "--no-sandbox"], d.env, dir);
    expect(r.code).toBe(64); // EX_USAGE, as every usage error
    expect(r.stderr).toContain("--sandbox and --no-sandbox say opposite things");
  });
});
