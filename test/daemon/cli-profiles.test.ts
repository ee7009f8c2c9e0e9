/**
 * `roost profiles` and what `dispatch` says of a profile that cannot run: the built CLI against a
 * real daemon whose roost.json adds a profile that runs (`python3 -i`) and one whose program is
 * not installed.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, needsBuild, ok, PLAIN_SHELL, roost } from "../helpers/cli.js";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";

beforeAll(needsBuild);

describe("roost profiles", () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon({
      env: PLAIN_SHELL,
      config: {
        agentProfiles: {
          py: { command: ["python3", "-i"], description: "a Python prompt" },
          ghost: { command: ["no-such-program-xyz", "two words"], description: "never here" },
        },
      },
    });
  });
  afterAll(() => d?.cleanup());

  it("lists each profile: where it comes from, whether it can run, its command and description", async () => {
    const text = await ok(["profiles"], { ...d.env, COLUMNS: "200" });
    const [head, ...rest] = text.split("\n");
    expect(head).toMatch(/^NAME +FROM +CAN RUN +COMMAND$/);
    expect(text).toMatch(/^shell +built in +installed +\/bin\/sh\n +your shell, as a terminal agent/m);
    expect(text).toMatch(/^example-py +built in +installed +python3 \S+example_agent\.py\n/m);
    expect(text).toMatch(/^py +roost\.json +installed +python3 -i\n +a Python prompt\n/m);
    expect(text).toMatch(
      /^ghost +roost\.json +missing +no-such-program-xyz 'two words'\n +never here\n +no-such-program-xyz is not installed: not found on the PATH\n/m,
    );
    expect(rest.join("\n")).toContain(
      `Your own go in ${path.join(d.home, "roost.json")} (read when roost starts)`,
    );
    expect(text).not.toContain("\u001b"); // not a terminal: no colour

    const narrow = await ok(["profiles"], { ...d.env, COLUMNS: "50" });
    for (const line of narrow.split("\n").slice(0, -4)) expect(line.length, line).toBeLessThanOrEqual(50);
  });

  it("--json: the daemon's profiles, each with source, installed and missing, and roost.json's path", async () => {
    const result = await json(["profiles"], d.env);
    expect(result.config).toBe(path.join(d.home, "roost.json"));
    const byName = new Map(result.profiles.map((p: any) => [p.name, p]));
    expect(byName.get("py")).toEqual({
      name: "py",
      description: "a Python prompt",
      command: ["python3", "-i"],
      task: "type",
      protocol: false,
      worktree: false,
      sandbox: false,
      acp: false,
      messages: false,
      source: "roost.json",
      installed: true,
      missing: null,
      cwd: d.env.HOME,
      cwdIsHome: true,
    });
    expect(byName.get("ghost")).toMatchObject({
      source: "roost.json",
      installed: false,
      missing: "no-such-program-xyz is not installed: not found on the PATH",
    });
    expect(byName.get("shell")).toMatchObject({
      source: "built-in",
      installed: true,
      command: ["/bin/sh"],
      messages: false,
    });
    // The agent CLIs read what is typed into them as a message: peers may send to their jobs.
    for (const cli of ["claude", "codex", "aider"]) expect(byName.get(cli)).toMatchObject({ messages: true });
  });

  it("dispatch of a profile whose program is missing: exit 1, why and what can run; no row made", async () => {
    const r = await roost(["dispatch", "ghost", "hello"], d.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^roost: profile "ghost" cannot run: no-such-program-xyz is not installed: not found on the PATH; install it, or dispatch one of: .*\bpy\b.*\bshell\b/,
    );
    expect(await json(["ls"], d.env)).toEqual({ rows: [] });
  });
});
