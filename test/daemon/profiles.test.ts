/**
 * Profiles that exist: `profiles` says where each comes from and whether its program is here;
 * `dispatch` of one whose program is missing is refused before any row is made.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";

let daemon: TestDaemon | undefined;
afterEach(async () => {
  await daemon?.cleanup();
  daemon = undefined;
});

describe("profiles that exist", () => {
  it("lists each profile with its source and whether it can run; dispatch refuses a missing program and makes no row", async () => {
    daemon = await startDaemon({
      config: {
        agentProfiles: {
          py: { command: ["python3", "-i"], description: "python" },
          ghost: { command: ["roost-no-such-program-xyz"] },
          gone: { command: ["/nonexistent/dir/agent"] },
          shell: { command: ["/bin/sh"] },
          there: { command: ["/bin/sh"], cwd: "/tmp" },
        },
      },
    });
    const hub = await daemon.client();
    const { profiles } = await hub.ok("profiles");
    const byName = new Map(profiles.map((p: any) => [p.name, p]));
    expect(byName.get("py")).toMatchObject({ source: "roost.json", installed: true, missing: null });
    expect(byName.get("shell")).toMatchObject({ source: "roost.json", installed: true });
    // Where a dispatch without a cwd runs its jobs: the profile's own, else the daemon's home.
    expect(byName.get("there")).toMatchObject({ cwd: "/tmp", cwdIsHome: false });
    const home = (byName.get("py") as { cwd: string; cwdIsHome: boolean }).cwd;
    expect(byName.get("py")).toMatchObject({ cwdIsHome: true });
    expect(byName.get("example-py")).toMatchObject({ source: "built-in", installed: true });
    expect(byName.get("ghost")).toMatchObject({
      source: "roost.json",
      installed: false,
      missing: "roost-no-such-program-xyz is not installed: not found on the PATH",
    });
    expect(byName.get("gone")).toMatchObject({
      installed: false,
      missing: "/nonexistent/dir/agent is not installed: no executable file there",
    });

    const refused = await hub.request("dispatch", { profile: "ghost", task: "hello" });
    expect(refused.ok).toBe(false);
    expect(refused.code).toBe("bad_request");
    expect(refused.error).toMatch(
      /^profile "ghost" cannot run: roost-no-such-program-xyz is not installed: not found on the PATH; install it, or dispatch one of: .*\bpy\b/,
    );
    expect(refused.error).not.toMatch(/\bghost\b.*\bghost\b/);
    // No row, no pending reply that could never be delivered.
    expect((await hub.ok("list")).rows).toEqual([]);
    const ok = await hub.ok("dispatch", { profile: "py" });
    expect(ok.job.profile).toBe("py");
    expect(ok.job.cwd).toBe(home); // no cwd named: where `profiles` said
    expect((await hub.ok("list")).rows.map((r: any) => r.id)).toEqual([ok.job.id]);
  });
});
