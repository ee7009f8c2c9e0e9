/**
 * Every value an agent sends is bounded before it is kept. From an outside attack: a report whose
 * `context` was nested 8,000 levels deep (a 48 KB line, sent with the job's own token) broke
 * `list`, `subscribe`, `roost ls`, the hub and the store's writes; `rm` of the job never answered;
 * and the next daemon start exited, so roost could not start on its own store. A 3 MB `context`
 * was kept and carried in every `list` and push.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, FIXTURES, isAlive, startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { api } from "../helpers/http.js";
import { procEnv, silentProfile, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const run = promisify(execFile);

/** A job's id and token (read from its process's environment, where roost put it). */
async function silentJob(hub: RawClient, name: string): Promise<{ id: string; token: string }> {
  const { job } = await hub.ok("dispatch", { profile: "silent", task: name, name });
  const r = await untilRow(hub, job.id, "running", (x) => x.life === "running" && x.pid);
  for (;;) {
    const env = procEnv(r.pid);
    if (env.ROOST_JOB_ID === job.id) return { id: job.id, token: env.ROOST_JOB_TOKEN! };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The attack's line, as sent: `context` with one unknown key holding 8,000 nested objects. */
const deepReportLine = (job: { id: string; token: string }, depth = 8000) =>
  `{"id": 1, "op": "report", "args": {"id": ${JSON.stringify(job.id)}, "token": ${JSON.stringify(job.token)}, ` +
  `"report": {"state": "working", "summary": "deep", "context": {"tokens": 5, "x": ${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}}}}\n`;

describe("a report that bricks the daemon", () => {
  let d: TestDaemon;
  let hub: RawClient;
  beforeAll(async () => {
    d = await startDaemon({ config: { agentProfiles: { silent: silentProfile() } } });
    hub = await d.client();
  });
  afterAll(async () => d?.cleanup());

  it("context nested 8,000 levels deep is refused, naming the field; list, subscribe, roost ls, the hub and rm answer, and the daemon starts again", async () => {
    const job = await silentJob(hub, "deep");
    const other = await silentJob(hub, "other");
    const subscriber = await d.client();
    await subscriber.ok("subscribe", {});
    const agent = await d.client();
    const line = deepReportLine(job);
    expect(Buffer.byteLength(line)).toBeGreaterThan(48_000);
    agent.write(line);
    const r = await agent.waitFor(() => agent.responses.find((x) => x.id === 1), "the report's answer");
    expect(r.ok).toBe(false);
    expect(r.code).toBe("bad_request");
    expect(r.error).toContain("report.context");
    expect(r.error).toContain("nested deeper than 32 levels");

    // The agent of another job is served, and its row pushed.
    const otherAgent = await d.client();
    await otherAgent.ok("report", {
      id: other.id,
      token: other.token,
      report: { state: "working", summary: "fine" },
    });
    await subscriber.event((e) => e.event === "row" && e.row.id === other.id && e.row.summary === "fine");
    expect((await hub.ok("list", {})).rows).toHaveLength(2);
    const ls = await run(process.execPath, [CLI, "ls"], { env: d.env });
    expect(ls.stdout).toContain(job.id);
    const overHttp = await api(d, "list", {}, { method: "GET" });
    expect(overHttp.status).toBe(200);
    expect(overHttp.body.result.rows).toHaveLength(2);

    await hub.ok("rm", { id: job.id });
    await d.restart();
    hub = await d.client();
    expect((await hub.ok("list", {})).rows.map((x: any) => x.id)).toEqual([other.id]);
    expect(d.output).not.toMatch(/Maximum call stack|uncaught|unhandled/);
  });

  it("a 3 MB context keeps only tokens, window and percent: list and pushes carry no more", async () => {
    const job = await silentJob(hub, "wide");
    const subscriber = await d.client();
    await subscriber.ok("subscribe", {});
    const agent = await d.client();
    const context = { tokens: 1200, window: 200_000, percent: 0.6, junk: "j".repeat(3 * 1024 * 1024) };
    await agent.ok("report", {
      id: job.id,
      token: job.token,
      report: { state: "working", summary: "wide", context },
    });
    const pushed = await subscriber.event(
      (e) => e.event === "row" && e.row.id === job.id && e.row.summary === "wide",
    );
    expect(pushed.row.context).toEqual({ tokens: 1200, window: 200_000, percent: 0.6 });
    const listed = await api(d, "list", { id: job.id }, { method: "GET" });
    expect(listed.body.result.rows[0].context).toEqual({ tokens: 1200, window: 200_000, percent: 0.6 });
    expect(JSON.stringify(listed.body).length).toBeLessThan(4096);
    await hub.ok("rm", { id: job.id });
  });

  it("every free-form field is bounded by one check: usage, attachSignal, attachRepaint, and unknown fields too deep", async () => {
    const job = await silentJob(hub, "free");
    const agent = await d.client();
    const deep = (n: number) => JSON.parse(`${"[".repeat(n)}${"]".repeat(n)}`);
    const refused: [Record<string, unknown>, string][] = [
      [{ usage: { nested: deep(40) } }, "report.usage"],
      [{ attachSignal: "s".repeat(70_000) }, "report.attachSignal"],
      [{ attachRepaint: deep(40) }, "report.attachRepaint"],
      [{ someFutureField: deep(40) }, "report.someFutureField"],
    ];
    for (const [fields, named] of refused) {
      const r = await agent.request("report", {
        id: job.id,
        token: job.token,
        report: { state: "working", ...fields },
      });
      expect(r.code, JSON.stringify(fields).slice(0, 80)).toBe("bad_request");
      expect(r.error).toContain(named);
    }
    // Within the bounds, each is kept as sent.
    const usage = { input: 10, output: 20, cost: { total: 0.01 } };
    await agent.ok("report", {
      id: job.id,
      token: job.token,
      report: { state: "working", usage, attachSignal: deep(20) },
    });
    const [row] = (await hub.ok("list", { id: job.id })).rows;
    expect(row.usage).toEqual(usage);
    expect(row.attachSignal).toEqual(deep(20));
    await hub.ok("rm", { id: job.id });
  });
});

describe("a store written by an older roost with such a row", () => {
  // test/fixtures/stores/deep-context-149d69e.db: written by roost at 149d69e (see its README):
  // j1 reported a context nested 8,000 deep, j2 one with 200 KB of unknown fields, j3 a plain
  // question. The roost that wrote it exited at every start after ("Maximum call stack size").
  let d: TestDaemon | undefined;
  afterEach(async () => d?.cleanup());

  it("is started on: the fields that fail their schema are set aside, the feed says so, the rest is kept", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-test-"));
    fs.copyFileSync(path.join(FIXTURES, "stores/deep-context-149d69e.db"), path.join(home, "roost.db"));
    d = await startDaemon({ home });
    const hub = await d.client();
    const rows = Object.fromEntries((await hub.ok("list", {})).rows.map((r: any) => [r.id, r]));
    expect(Object.keys(rows).sort()).toEqual(["j1", "j2", "j3"]);
    expect(rows.j1.context).toBeNull();
    expect(rows.j1.summary).toBe("deep");
    expect(rows.j2.context).toEqual({ tokens: 7, window: 100, percent: 7 });
    expect(rows.j3.question).toBe("go on?");
    expect(rows.j3.context).toEqual({ tokens: 9, window: 100, percent: 9 });
    const { events } = await hub.ok("events", {});
    const repairs = events.filter((e: any) => e.kind === "repair");
    expect(repairs.map((e: any) => e.id).sort()).toEqual(["j1", "j2"]);
    expect(repairs.find((e: any) => e.id === "j1").text).toContain("report.context");
    expect(repairs.find((e: any) => e.id === "j2").text).toContain(
      "fields besides tokens, window and percent",
    );
    // Mended once: the next start finds nothing to set aside.
    await d.restart();
    const later = await (await d.client()).ok("events", {});
    expect(later.events.filter((e: any) => e.kind === "repair")).toHaveLength(2);
    expect(isAlive(d.pid)).toBe(true);
    expect(d.output).not.toMatch(/Maximum call stack|uncaught|unhandled/);
  });
});
