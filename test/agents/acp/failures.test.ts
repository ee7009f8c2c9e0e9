/**
 * ACP jobs that fail honestly (docs/agents.md, "The agent's process group"): a session the agent
 * refuses, an agent killed, a wrapper killed (codex-acp's npm wrapper leaves its child holding the
 * pipes), an agent that ignores SIGTERM (Gemini CLI's). The row fails with the agent's own words
 * at once, and nothing it started is left running. The agent is the scripted ACP agent, alone or
 * under a wrapper (test/fixtures/acp-wrapper.mjs) as npm installs codex-acp. `npm run build` first.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ACP_WAIT, acpProfile, acpWorldPerFile, untilSettled } from "../../helpers/acp.js";
import { FIXTURES, isAlive } from "../../helpers/daemon.js";
import { untilGone } from "../../helpers/jobs.js";

const WRAPPER = path.join(FIXTURES, "acp-wrapper.mjs");
/** The agent under its wrapper, deaf to SIGTERM as Gemini CLI is once it runs. */
const wrapped = (env: Record<string, string> = {}) =>
  acpProfile({ command: [process.execPath, WRAPPER], env: { ACP_IGNORE_TERM: "1", ...env } });
const MISSING = "Gemini API key is missing or not configured.";

const PROFILES = {
  wrapped: wrapped(),
  nokey: wrapped({ ACP_SESSION_ERROR: MISSING }),
  alone: acpProfile({ env: { ACP_IGNORE_TERM: "1" } }),
  // codex-acp's way: authMethods, and session/new refused until `authenticate`.
  keyed: acpProfile({ env: { ACP_AUTH: "1", FIXTURE_API_KEY: "sk-test" } }),
  keyless: acpProfile({ env: { ACP_AUTH: "1" } }),
};

describe("an ACP job that fails", { timeout: 4 * ACP_WAIT }, () => {
  const world = acpWorldPerFile(PROFILES);

  it("a session/new refused (a missing key) fails the row with the agent's words, its wrapper and its SIGTERM-deaf agent ended", async () => {
    const w = world();
    const started = Date.now();
    const { id, work } = await w.dispatch("say hi", { profile: "nokey" });
    const failed = await w.until(id, "failed", (r) => r.state === "failed");
    expect(failed).toMatchObject({
      summary: "the agent ended before its session was made",
      error: `acp-wrapper did not start its ACP session: ${MISSING}`,
    });
    const refused = w.log(work).find((e) => e.sessionNewRefused);
    expect(refused.sessionNewRefused).toBe(MISSING);
    // The agent ignores SIGTERM: the grace, then SIGKILL; the job ends with it.
    await untilGone(refused.pid);
    expect(isAlive(refused.ppid)).toBe(false);
    expect(await w.until(id, "ended", (r) => r.life === "exited")).toMatchObject({ exitCode: 1 });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(w.log(work).filter((e) => e.prompt)).toEqual([]);
  });

  it("the wrapper killed: the row fails at once, and the agent under it is ended", async () => {
    const w = world();
    const { id, work } = await w.dispatch("tool Long build; hold", { profile: "wrapped" });
    await w.until(id, "the tool running", (r) => r.tool === "Long build");
    const { pid, ppid } = w.log(work).find((e) => e.prompt);
    process.kill(ppid, "SIGKILL");
    const failed = await w.until(id, "failed", (r) => r.state === "failed");
    // At once: the agent, deaf to SIGTERM, still has its grace before SIGKILL.
    expect(isAlive(pid)).toBe(true);
    expect(failed.error).toBe("acp-wrapper was killed by SIGKILL; 1 leftover process ended");
    expect(failed.tool).toBeNull();
    await untilGone(pid);
    expect(await w.until(id, "ended", (r) => r.life === "exited")).toMatchObject({ state: "failed" });
  });

  it("the agent under the wrapper killed: the row fails at once", async () => {
    const w = world();
    const { id, work } = await w.dispatch("tool Long build; hold", { profile: "wrapped" });
    await w.until(id, "the tool running", (r) => r.tool === "Long build");
    const { pid, ppid } = w.log(work).find((e) => e.prompt);
    process.kill(pid, "SIGKILL");
    const failed = await w.until(id, "failed", (r) => r.state === "failed");
    // codex-acp's wrapper exits 0 when its child was killed: its exit is what the bridge sees.
    expect(failed.error).toBe("acp-wrapper exited with code 0");
    await untilGone(ppid);
  });

  it("a stop ends an agent that ignores SIGTERM (SIGKILL after the grace)", async () => {
    const w = world();
    const { id, work } = await w.dispatch("tool Long; hold", { profile: "alone" });
    await w.until(id, "the tool running", (r) => r.tool === "Long");
    const { pid } = w.log(work).find((e) => e.prompt);
    await w.c.ok("stop", { id });
    await w.until(id, "stopped", (r) => r.life === "stopped");
    await untilGone(pid);
    expect(w.log(work).some((e) => e.ignored === "SIGTERM")).toBe(true);
  });

  it("an agent that asks for authentication is logged in with the method whose key is in its environment", async () => {
    const w = world();
    const { id, work } = await w.dispatch("say logged in", { profile: "keyed" });
    expect(await untilSettled(w, id)).toMatchObject({ state: "done", summary: "logged in" });
    const log = w.log(work);
    expect(log.filter((e) => e.authenticate)).toEqual([
      expect.objectContaining({ authenticate: "fixture-api-key", usable: true }),
    ]);
    // Refused first (the agent's own way of asking), made after the login.
    expect(log.filter((e) => e.sessionNewRefused || e.sessionNew).map((e) => Object.keys(e)[0])).toEqual([
      "sessionNewRefused",
      "sessionNew",
    ]);
  });

  it("an agent that asks for authentication with no key for it fails the row with its words and what it offers", async () => {
    const w = world();
    const { id, work } = await w.dispatch("say hi", { profile: "keyless" });
    const failed = await w.until(id, "failed", (r) => r.state === "failed");
    expect(failed.error).toBe(
      "acp-agent did not start its ACP session: Authentication required (it offers: Log in; Use FIXTURE_API_KEY: set FIXTURE_API_KEY in the profile's env)",
    );
    expect(w.log(work).filter((e) => e.authenticate)).toEqual([]);
    await w.until(id, "ended", (r) => r.life === "exited");
  });
});
