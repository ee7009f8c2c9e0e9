/**
 * The built-in `pi` profile: there whether or not pi is (as `claude`, `codex` and `aider` are),
 * `installed` when pi is on the jobs' PATH, and a protocol agent that loads roost's built
 * extension. A profile's `approve` reaches its agent as `ROOST_APPROVE`.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { procEnv, row } from "../../helpers/jobs.js";
import { PI_BIN } from "../../helpers/pi.js";

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

const EXTENSION = path.join(ROOT, "dist/sdk/ts/pi/index.js");

describe("the pi profile", () => {
  it("is built in, missing without pi on the PATH, installed with it", async () => {
    d = await startDaemon({ env: { PATH: "/usr/bin:/bin" } });
    const without = new Map((await (await d.client()).ok("profiles")).profiles.map((p: any) => [p.name, p]));
    expect(without.get("pi")).toMatchObject({
      source: "built-in",
      installed: false,
      missing: "pi is not installed: not found on the PATH",
      command: ["pi", "-e", EXTENSION],
      task: "type",
      protocol: true,
    });
    await d.cleanup();

    d = await startDaemon({ env: { PATH: `${PI_BIN}:/usr/bin:/bin` } });
    const withPi = new Map((await (await d.client()).ok("profiles")).profiles.map((p: any) => [p.name, p]));
    expect(withPi.get("pi")).toMatchObject({ source: "built-in", installed: true, missing: null });
  });

  it("approve: the tools to hold reach the agent as ROOST_APPROVE", async () => {
    d = await startDaemon({
      config: {
        agentProfiles: {
          careful: { command: ["sleep", "600"], protocol: true, approve: ["bash", "write"] },
          plain: { command: ["sleep", "600"], protocol: true },
        },
      },
    });
    const c = await d.client();
    const env = async (profile: string) => {
      const { job } = await c.ok("dispatch", { profile });
      const pid = await until("its pid", async () => (await row(c, job.id)).pid);
      return until("its environment", () => {
        const e = procEnv(pid);
        return e.ROOST_JOB_ID === job.id ? e : undefined;
      });
    };
    expect((await env("careful")).ROOST_APPROVE).toBe("bash,write");
    expect((await env("plain")).ROOST_APPROVE).toBeUndefined();
  });
});
