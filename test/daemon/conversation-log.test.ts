/**
 * A job's conversation (docs/protocol.md, "The conversation"): an agent appends entries on its
 * job's connection (`conversation-append`), a hub reads them (`conversation`) and hears of new ones
 * (the `conversation` push); they are kept in the job's directory, survive a restart of roost (the
 * numbering goes on, a resend is still known), go with `rm`, and `roost log` prints them.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roost } from "../helpers/cli.js";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { jobDir, rawAgent, silentProfile } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const ENTRIES = [
  { kind: "message", role: "user", text: "fix the failing test" },
  { kind: "thinking", role: "agent", text: "the test reads the wrong file" },
  { kind: "message", role: "agent", text: "I'll look at the test first." },
  {
    kind: "tool",
    text: "Read test/a.test.ts",
    tool: { id: "t1", name: "read", input: '{"path":"test/a.test.ts"}', status: "running" },
  },
  { kind: "tool", tool: { id: "t1", name: "read", output: "it('reads b.txt')", status: "completed" } },
  {
    kind: "plan",
    plan: [
      { text: "read the test", status: "completed" },
      { text: "fix it", status: "in_progress" },
    ],
  },
  { kind: "ask", text: "Allow: Edit test/a.test.ts?", choices: ["Allow once", "Reject"] },
  { kind: "answer", role: "user", text: "Allow once" },
  {
    kind: "diff",
    diff: { path: "test/a.test.ts", old: "it('reads b.txt')\nend", new: "it('reads a.txt')\nend" },
  },
];

describe("a job's conversation", () => {
  let d: TestDaemon;
  let hub: RawClient;
  let env: Record<string, string>;
  beforeAll(async () => {
    d = await startDaemon({ config: { agentProfiles: { silent: silentProfile() } } });
    hub = await d.client();
    env = { ...process.env, ROOST_HOME: d.home } as Record<string, string>;
  });
  afterAll(async () => d?.cleanup());

  it("is appended by its agent, pushed, read back in order, numbered, and printed by roost log", async () => {
    const { job } = await hub.ok("dispatch", { profile: "silent", task: "t", name: "talk" });
    const { agent, token } = await rawAgent(d, hub, job.id);
    const said = await agent.ok("hello", { protocol: 1, capabilities: ["replies", "transcript"] });
    expect(said.capabilities).toContain("transcript");
    const sub = await d.client();
    await sub.ok("subscribe", {});

    const r = await agent.ok("conversation-append", {
      id: job.id,
      token,
      entries: ENTRIES,
      requestId: "c-1",
    });
    expect(r).toEqual({ first: 1, last: ENTRIES.length });
    const push = await sub.event(
      (e) => e.event === "conversation" && e.id === job.id,
      "the conversation push",
    );
    expect(push.last).toBe(ENTRIES.length);

    const read = await hub.ok("conversation", { id: job.id });
    expect(read.last).toBe(ENTRIES.length);
    expect(read.more).toBe(false);
    expect(read.entries.map((e: any) => e.n)).toEqual(ENTRIES.map((_, i) => i + 1));
    expect(read.entries[3]).toMatchObject({ kind: "tool", tool: { id: "t1", status: "running" } });
    expect(read.entries.every((e: any) => typeof e.at === "number" && e.rid === undefined)).toBe(true);

    // Only what came after, and a page at a time.
    const after = await hub.ok("conversation", { id: job.id, after: 6, limit: 2 });
    expect(after.entries.map((e: any) => e.n)).toEqual([7, 8]);
    expect(after.more).toBe(true);
    const newest = await hub.ok("conversation", { id: job.id, limit: 2 });
    expect(newest.entries.map((e: any) => e.n)).toEqual([8, 9]);

    // The same append again (a resend after a lost answer) is kept once.
    const again = await agent.ok("conversation-append", {
      id: job.id,
      token,
      entries: ENTRIES,
      requestId: "c-1",
    });
    expect(again).toEqual({ first: 1, last: ENTRIES.length, duplicate: true });
    expect((await hub.ok("conversation", { id: job.id })).last).toBe(ENTRIES.length);

    // roost log prints it: the user's words, the tool call once with its input and output, the diff.
    const log = await roost(["log", job.id], env);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain("you:\n    fix the failing test");
    expect(log.stdout).toContain("tool read: Read test/a.test.ts (completed)");
    expect(log.stdout.match(/tool read/g)).toHaveLength(1);
    expect(log.stdout).toContain("it('reads b.txt')");
    expect(log.stdout).toContain("[x] read the test");
    expect(log.stdout).toContain("[>] fix it");
    expect(log.stdout).toContain("asks: Allow: Edit test/a.test.ts?\n    1. Allow once  2. Reject");
    expect(log.stdout).toContain("you answered: Allow once");
    expect(log.stdout).toContain("    - it('reads b.txt')\n    + it('reads a.txt')\n      end");
    const tail = JSON.parse((await roost(["log", job.id, "--json", "--tail", "2"], env)).stdout);
    expect(tail.entries.map((e: any) => e.n)).toEqual([8, 9]);
    // The terminal's transcript is still there for the asking (a protocol job's prints nothing here).
    const term = await roost(["log", job.id, "--terminal"], env);
    expect(term.stdout).not.toContain("fix the failing test");
  });

  it("refuses what is malformed, too large or not the job's, saying what to fix", async () => {
    const { job } = await hub.ok("dispatch", { profile: "silent", task: "t", name: "bad" });
    const { agent, token } = await rawAgent(d, hub, job.id);
    const refused = async (args: unknown) => agent.request("conversation-append", args);

    const noTool = await refused({
      id: job.id,
      token,
      entries: [
        { kind: "message", text: "ok" },
        { kind: "tool", text: "x" },
      ],
    });
    expect(noTool.code).toBe("bad_request");
    expect(noTool.error).toContain("entries[1] is a tool entry without its tool");
    const long = await refused({
      id: job.id,
      token,
      entries: [{ kind: "message", text: "x".repeat(16_001) }],
    });
    expect(long.code).toBe("bad_request");
    expect(long.error).toContain("text");
    const many = await refused({
      id: job.id,
      token,
      entries: Array.from({ length: 101 }, () => ({ kind: "message", text: "x" })),
    });
    expect(many.code).toBe("bad_request");
    expect(many.error).toContain("entries");
    const kind = await refused({ id: job.id, token, entries: [{ kind: "shout", text: "x" }] });
    expect(kind.code).toBe("bad_request");
    const wrong = await refused({
      id: job.id,
      token: "x".repeat(32),
      entries: [{ kind: "message", text: "x" }],
    });
    expect(wrong.code).toBe("unauthorized");
    // Nothing of it was kept.
    expect((await hub.ok("conversation", { id: job.id })).entries).toEqual([]);
    expect((await hub.request("conversation", { id: "j999" })).code).toBe("not_found");
    // A hub reads; it does not append for an agent (it has no token), and an agent does not read.
    expect((await agent.request("conversation", { id: job.id })).code).toBe("unsupported");
  });

  it("survives a restart of roost: read again, numbered on, a resend still known; rm takes it", async () => {
    const { job } = await hub.ok("dispatch", { profile: "silent", task: "t", name: "kept" });
    const { agent, token } = await rawAgent(d, hub, job.id);
    const first = ENTRIES.slice(0, 3);
    await agent.ok("conversation-append", { id: job.id, token, entries: first, requestId: "before" });
    await d.restart("SIGKILL");
    hub = await d.client();
    const read = await hub.ok("conversation", { id: job.id });
    expect(read.entries.map((e: any) => e.text)).toEqual(first.map((e) => e.text));
    const back = (await rawAgent(d, hub, job.id)).agent;
    const resent = await back.ok("conversation-append", {
      id: job.id,
      token,
      entries: first,
      requestId: "before",
    });
    expect(resent).toEqual({ first: 1, last: 3, duplicate: true });
    const next = await back.ok("conversation-append", {
      id: job.id,
      token,
      entries: [{ kind: "message", text: "on" }],
    });
    expect(next).toEqual({ first: 4, last: 4 });
    expect(fs.existsSync(path.join(jobDir(d, job.id), "conversation.jsonl"))).toBe(true);
    await hub.ok("rm", { id: job.id });
    expect(fs.existsSync(path.join(jobDir(d, job.id), "conversation.jsonl"))).toBe(false);
    expect((await hub.request("conversation", { id: job.id })).code).toBe("not_found");
  });
});
