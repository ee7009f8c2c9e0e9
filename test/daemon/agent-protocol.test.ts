import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentProfile, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { lines } from "../helpers/jobs.js";

let d: TestDaemon;
afterEach(async () => d?.cleanup());

describe("a protocol agent", () => {
  it("takes its task as reply 1, reports, acks", async () => {
    d = await startDaemon({ config: { agentProfiles: { agent: agentProfile() } } });
    const c = await d.client();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "first task", cwd: "/tmp" });
    const dir = path.join(d.home, "jobs", job.id);
    await until("reply 1 handled", () => lines(path.join(dir, "handled.jsonl")).length === 1);
    const row = await until("the row from the report", async () => {
      const [r] = (await c.ok("list", { id: job.id })).rows;
      return r.summary === "did: first task" && r.pending === 0 ? r : null;
    });
    expect(row.kind).toBe("protocol");
    expect(row.connected).toBe(true);
    expect(row.agent).toEqual({ name: "test-agent", version: "1.0" });
    expect(row.lastSeq).toBe(1);
  });
});
