/**
 * `reply` (docs/protocol.md, "reply", "ack" and "roost's choices"), against a real daemon: saved,
 * delivered in order, pending until acked, `full`, `/stop`, commands while not connected, ended
 * jobs, request ids, terminal jobs.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentProfile, until } from "../../helpers/daemon.js";
import {
  cleanDaemonPerFile,
  delivered,
  deliveries,
  handled,
  rawAgent,
  rmTemp,
  row,
  silentProfile,
  startCleanDaemon,
  stopRunningJobs,
  tempDir,
  untilRow,
} from "../../helpers/jobs.js";

const config = { agentProfiles: { agent: agentProfile(), silent: silentProfile() } };

// One daemon for the file: every test works on jobs it dispatched itself, by the ids dispatch
// gave, and its seqs and request ids are per job. Each test has a client and a temp dir of its
// own, and what it left running is stopped after it (so that its agents do not go on beside the
// next test). The test that restarts the daemon restarts this one; one that failed with it down
// has it started again for the next.
const shared = cleanDaemonPerFile(config, startCleanDaemon);
const temps: string[] = [];
afterEach(async () => {
  for (const t of temps.splice(0)) rmTemp(t);
  await stopRunningJobs(shared.d);
});
const daemon = async () => {
  const dir = tempDir();
  temps.push(dir);
  return { d: shared.d, c: await shared.d.client(), dir };
};

describe("replies to a protocol agent", () => {
  it("are saved, then delivered in order with their seq and mode", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    const { agent } = await rawAgent(d, c, job.id);
    expect(await c.ok("reply", { id: job.id, text: "one" })).toEqual({ saved: true, seq: 1 });
    expect(await c.ok("reply", { id: job.id, text: "two", mode: "steer" })).toEqual({ saved: true, seq: 2 });
    expect(await c.ok("reply", { id: job.id, text: "three", mode: "followUp" })).toEqual({
      saved: true,
      seq: 3,
    });
    await agent.waitFor(() => delivered(agent, job.id)[2], "three deliveries");
    const got = delivered(agent, job.id);
    expect(got.map((e) => [e.seq, e.text])).toEqual([
      [1, "one"],
      [2, "two"],
      [3, "three"],
    ]);
    expect(got[0].mode).toBeUndefined();
    expect(got[1].mode).toBe("steer");
    expect(got[2].mode).not.toBe("steer");
    expect((await c.request("reply", { id: job.id, text: "x", mode: "later" })).code).toBe("bad_request");
    expect((await c.request("reply", { id: job.id, text: "" })).code).toBe("bad_request");
    expect((await c.request("reply", { id: "j999", text: "x" })).code).toBe("not_found");
  });

  it("steer arrives at the test agent as mode steer", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "first", cwd: dir });
    await untilRow(c, job.id, "task done", (x) => x.connected && x.pending === 0);
    await c.ok("reply", { id: job.id, text: "join in", mode: "steer" });
    await until("reply 2 handled", () => handled(d, job.id).length === 2);
    expect(deliveries(d, job.id).map((x) => [x.seq, x.text, x.mode])).toEqual([
      [1, "first", null],
      [2, "join in", "steer"],
    ]);
  });

  it("stay pending until acked; an ack covers every reply up to its seq; a new connection gets them again", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    const { agent, token } = await rawAgent(d, c, job.id);
    for (const text of ["a", "b", "c"]) await c.ok("reply", { id: job.id, text });
    expect(await row(c, job.id)).toMatchObject({ pending: 3, lastSeq: 3, connected: true });
    await agent.ok("ack", { id: job.id, token, seq: 2 });
    expect((await row(c, job.id)).pending).toBe(1);
    // Acking again, or below, changes nothing.
    await agent.ok("ack", { id: job.id, token, seq: 1 });
    expect((await row(c, job.id)).pending).toBe(1);
    // A seq never sent is refused.
    const beyond = await agent.request("ack", { id: job.id, token, seq: 4 });
    expect(beyond.code).toBe("bad_request");
    expect((await row(c, job.id)).pending).toBe(1);
    // A wrong token is refused.
    const wrong = await c.request("ack", { id: job.id, token: "not-it", seq: 3 });
    expect(wrong.code).toBe("unauthorized");
    // A new reporting connection is sent the pending one again, and only it.
    agent.close();
    await untilRow(c, job.id, "disconnected", (x) => !x.connected);
    const again = await rawAgent(d, c, job.id);
    await again.agent.waitFor(() => delivered(again.agent, job.id)[0], "the pending reply");
    // A reply sent now comes after whatever the connection was sent again: once it is here,
    // anything more would be too (a connection's deliveries come in order).
    await c.ok("reply", { id: job.id, text: "d" });
    await again.agent.waitFor(() => delivered(again.agent, job.id).find((e) => e.seq === 4), "reply 4");
    expect(delivered(again.agent, job.id).map((e) => [e.seq, e.text])).toEqual([
      [3, "c"],
      [4, "d"],
    ]);
    await again.agent.ok("ack", { id: job.id, token, seq: 4 });
    expect((await row(c, job.id)).pending).toBe(0);
    expect((await again.agent.request("ack", { id: job.id, token, seq: 5 })).code).toBe("bad_request");
  });

  it("are refused with full at 50 waiting, and a refused request id is not remembered", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    for (let i = 1; i <= 50; i++) {
      const r = await c.ok("reply", { id: job.id, text: `r${i}` });
      expect(r.seq).toBe(i);
    }
    const full = await c.request("reply", { id: job.id, text: "r51", requestId: "over" });
    expect(full.ok).toBe(false);
    expect(full.code).toBe("full");
    expect(await row(c, job.id)).toMatchObject({ pending: 50, lastSeq: 50 });
    // Once some are taken, the same request is new.
    const { agent, token } = await rawAgent(d, c, job.id);
    await agent.ok("ack", { id: job.id, token, seq: 10 });
    expect(await c.ok("reply", { id: job.id, text: "r51", requestId: "over" })).toEqual({
      saved: true,
      seq: 51,
    });
    expect((await row(c, job.id)).pending).toBe(41);
  });

  it("/stop stops the job and is never delivered", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "first", cwd: dir });
    await untilRow(c, job.id, "task done", (x) => x.connected && x.pending === 0);
    const r = await c.ok("reply", { id: job.id, text: "/stop" });
    expect(r.saved).toBe(true);
    expect(r.seq).toBeUndefined();
    // The /stop is saved (seq 2, with its request id when it has one), taken at once by roost.
    expect(await row(c, job.id)).toMatchObject({ life: "stopped", lastSeq: 2, pending: 0 });
    // Started again, the agent gets the next reply, and never /stop.
    await c.ok("respawn", { id: job.id });
    await c.ok("reply", { id: job.id, text: "next" });
    await until("reply 3 handled", () => handled(d, job.id).length === 2);
    expect(deliveries(d, job.id).map((x) => x.text)).toEqual(["first", "next"]);
    expect(handled(d, job.id).map((x) => x.seq)).toEqual([1, 3]);
  });

  it("/stop stops a job whose agent is not connected", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    await untilRow(c, job.id, "running", (x) => x.life === "running");
    await c.ok("reply", { id: job.id, text: "  /stop\n" });
    expect(await row(c, job.id)).toMatchObject({ life: "stopped", lastSeq: 1, pending: 0 });
  });

  it("a command to an agent that is not connected is busy, and never delivered later", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    const busy = await c.request("reply", { id: job.id, text: "/model x", requestId: "cmd-1" });
    expect(busy.ok).toBe(false);
    expect(busy.code).toBe("busy");
    expect(await row(c, job.id)).toMatchObject({ pending: 0, lastSeq: 0 });
    const { agent } = await rawAgent(d, c, job.id);
    expect(await c.ok("reply", { id: job.id, text: "plain" })).toEqual({ saved: true, seq: 1 });
    await agent.waitFor(() => delivered(agent, job.id)[0], "the plain reply");
    // Connected now, a command goes through; the refused one's id is not remembered.
    expect(await c.ok("reply", { id: job.id, text: "/model y", requestId: "cmd-1" })).toEqual({
      saved: true,
      seq: 2,
    });
    await agent.waitFor(() => delivered(agent, job.id)[1], "the command");
    // The refused command, were it kept, would come before a reply sent now (deliveries come in order).
    await c.ok("reply", { id: job.id, text: "last" });
    await agent.waitFor(() => delivered(agent, job.id).find((e) => e.text === "last"), "the last reply");
    expect(delivered(agent, job.id).map((e) => e.text)).toEqual(["plain", "/model y", "last"]);
  });

  it("full to an ended job: the reply is refused, and the job started again to take what waits", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    for (let i = 1; i <= 50; i++) await c.ok("reply", { id: job.id, text: `r${i}` });
    await c.ok("stop", { id: job.id });
    const full = await c.request("reply", { id: job.id, text: "r51" });
    expect(full).toMatchObject({ ok: false, code: "full" });
    expect(full.error).toContain("started again to take them");
    // Without this it would stay ended and full: only a reply starts an ended job.
    expect(await row(c, job.id)).toMatchObject({ life: "running", pending: 50, lastSeq: 50 });
  });

  it("a reply to an ended job is saved and starts it again; the agent gets it", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "exit 0", cwd: dir });
    const first = await untilRow(c, job.id, "exited", (x) => x.life === "exited");
    expect(first.state).toBe("done");
    const r = await c.ok("reply", { id: job.id, text: "wake up" });
    expect(r).toEqual({ saved: true, seq: 2 });
    const again = await row(c, job.id);
    expect(again.life).toBe("running");
    await until("reply 2 handled", () => handled(d, job.id).length === 2);
    const h = handled(d, job.id);
    expect(h.map((x) => [x.seq, x.text])).toEqual([
      [1, "exit 0"],
      [2, "wake up"],
    ]);
    expect(h[1].pid).not.toBe(h[0].pid);
    expect(h[1].pid).toBe(again.pid);
    await untilRow(c, job.id, "acked", (x) => x.pending === 0);
  });

  it("takes a request id once: a resend is a duplicate, not queued again", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "first", cwd: dir });
    await untilRow(c, job.id, "task done", (x) => x.connected && x.pending === 0);
    expect(await c.ok("reply", { id: job.id, text: "work", requestId: "r-1" })).toEqual({
      saved: true,
      seq: 2,
    });
    // Whatever the resend's text, it is the same request.
    for (const text of ["work", "other text", "/stop"]) {
      expect(await c.ok("reply", { id: job.id, text, requestId: "r-1" })).toEqual({
        duplicate: true,
        saved: true,
      });
    }
    await c.ok("reply", { id: job.id, text: "marker" });
    await until("the marker handled", () => handled(d, job.id).some((h) => h.text === "marker"));
    expect(handled(d, job.id).map((h) => [h.seq, h.text])).toEqual([
      [1, "first"],
      [2, "work"],
      [3, "marker"],
    ]);
    expect(await row(c, job.id)).toMatchObject({ lastSeq: 3, life: "running" });
    // Request ids are per job.
    const other = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job;
    expect(await c.ok("reply", { id: other.id, text: "work", requestId: "r-1" })).toEqual({
      saved: true,
      seq: 1,
    });
  });

  it("takes a request id once when resends cross the first", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    await untilRow(c, job.id, "running", (x) => x.life === "running");
    await c.ok("stop", { id: job.id });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => c.ok("reply", { id: job.id, text: "once", requestId: "same" })),
    );
    expect(answers[0]).toEqual({ saved: true, seq: 1 });
    for (const a of answers.slice(1)) expect(a).toEqual({ duplicate: true, saved: true });
    expect(await row(c, job.id)).toMatchObject({ life: "running", lastSeq: 1, pending: 1 });
  });

  it("remembers a request id across a daemon restart", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    await c.ok("reply", { id: job.id, text: "once", requestId: "keep-me" });
    await d.restart("SIGKILL");
    const c2 = await d.client();
    expect(await c2.ok("reply", { id: job.id, text: "once", requestId: "keep-me" })).toEqual({
      duplicate: true,
      saved: true,
    });
    expect(await row(c2, job.id)).toMatchObject({ lastSeq: 1, pending: 1 });
  });

  it("a duplicate for a job that had ended starts it", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    await untilRow(c, job.id, "running", (x) => x.life === "running");
    await c.ok("stop", { id: job.id });
    expect(await c.ok("reply", { id: job.id, text: "go", requestId: "start-me" })).toEqual({
      saved: true,
      seq: 1,
    });
    const started = await row(c, job.id);
    expect(started.life).toBe("running");
    await c.ok("stop", { id: job.id });
    expect((await row(c, job.id)).life).toBe("stopped");
    expect(await c.ok("reply", { id: job.id, text: "go", requestId: "start-me" })).toEqual({
      duplicate: true,
      saved: true,
    });
    const again = await row(c, job.id);
    expect(again).toMatchObject({ life: "running", lastSeq: 1, pending: 1 });
    expect(again.pid).not.toBe(started.pid);
  });

  it("a duplicate of a reply already taken does not start an ended job again", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "exit 0", cwd: dir });
    await untilRow(c, job.id, "exited", (x) => x.life === "exited");
    expect(await c.ok("reply", { id: job.id, text: "exit 0", requestId: "once" })).toEqual({
      saved: true,
      seq: 2,
    });
    await until("reply 2 handled", () => handled(d, job.id).length === 2);
    const ended = await untilRow(c, job.id, "exited again", (x) => x.life === "exited" && x.pending === 0);
    expect(await c.ok("reply", { id: job.id, text: "exit 0", requestId: "once" })).toEqual({
      duplicate: true,
      saved: true,
    });
    // A start for it would be done before the answer (a reply's start is awaited): the row says now.
    const r = await row(c, job.id);
    expect(r).toMatchObject({ life: "exited", lastSeq: 2, pending: 0, startedAt: ended.startedAt });
    expect(handled(d, job.id)).toHaveLength(2);
    // A remembered /stop does not start it either.
    await c.ok("respawn", { id: job.id });
    await c.ok("reply", { id: job.id, text: "/stop", requestId: "halt" });
    expect((await row(c, job.id)).life).toBe("stopped");
    expect(await c.ok("reply", { id: job.id, text: "/stop", requestId: "halt" })).toEqual({
      duplicate: true,
      saved: true,
    });
    expect((await row(c, job.id)).life).toBe("stopped");
  });

  it("respawn sends the pending replies again", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", task: "task", cwd: dir });
    await c.ok("reply", { id: job.id, text: "more", mode: "steer" });
    await c.ok("stop", { id: job.id });
    const { job: again } = await c.ok("respawn", { id: job.id });
    expect(again).toMatchObject({ life: "running", pending: 2, lastSeq: 2 });
    const { agent } = await rawAgent(d, c, job.id);
    await agent.waitFor(() => delivered(agent, job.id)[1], "both pending replies");
    expect(delivered(agent, job.id).map((e) => [e.seq, e.text, e.mode])).toEqual([
      [1, "task", undefined],
      [2, "more", "steer"],
    ]);
  });

  it("remembers a job's last 100 request ids", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    const { agent, token } = await rawAgent(d, c, job.id);
    for (let i = 1; i <= 101; i++) {
      const r = await c.ok("reply", { id: job.id, text: `r${i}`, requestId: `id-${i}` });
      expect(r.seq).toBe(i);
      if (i % 25 === 0) await agent.ok("ack", { id: job.id, token, seq: i }); // stay below full
    }
    const dup = { duplicate: true, saved: true };
    // The last 100 are remembered: id-2 .. id-101.
    expect(await c.ok("reply", { id: job.id, text: "r101", requestId: "id-101" })).toEqual(dup);
    expect(await c.ok("reply", { id: job.id, text: "r2", requestId: "id-2" })).toEqual(dup);
    // id-1 is not: it is saved again, as new.
    expect(await c.ok("reply", { id: job.id, text: "r1", requestId: "id-1" })).toEqual({
      saved: true,
      seq: 102,
    });
    // And now it is remembered, and id-3 still is, while id-2 has gone out.
    expect(await c.ok("reply", { id: job.id, text: "r1", requestId: "id-1" })).toEqual(dup);
    expect(await c.ok("reply", { id: job.id, text: "r3", requestId: "id-3" })).toEqual(dup);
    expect(await c.ok("reply", { id: job.id, text: "r2", requestId: "id-2" })).toEqual({
      saved: true,
      seq: 103,
    });
  });

  it("refuses an invalid request id", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    for (const requestId of ["x".repeat(65), "a b", "", "new\nline"]) {
      const r = await c.request("reply", { id: job.id, text: "t", requestId });
      expect(r.code, requestId).toBe("bad_request");
    }
    expect((await row(c, job.id)).lastSeq).toBe(0);
  });
});

describe("replies to a terminal job", () => {
  it("are typed as text and Enter: the command runs, and nothing stays pending", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "shell", cwd: dir });
    await untilRow(c, job.id, "running", (x) => x.life === "running");
    expect(await c.ok("reply", { id: job.id, text: "echo typed > reply.txt" })).toEqual({
      saved: true,
      seq: 1,
    });
    expect(await c.ok("reply", { id: job.id, text: "echo second >> reply.txt" })).toEqual({
      saved: true,
      seq: 2,
    });
    const file = path.join(dir, "reply.txt");
    await until(
      "both typed replies ran",
      () => fs.existsSync(file) && fs.readFileSync(file, "utf8") === "typed\nsecond\n",
    );
    expect(await untilRow(c, job.id, "nothing pending", (x) => x.pending === 0)).toMatchObject({
      lastSeq: 2,
      kind: "terminal",
    });
    // A slash command is typed like any other text.
    await c.ok("reply", { id: job.id, text: "/bin/echo slash > slash.txt" });
    await until("the slash reply ran", () => fs.existsSync(path.join(dir, "slash.txt")));
  });

  it("to an ended terminal job start it again, and are typed into it", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "shell", task: "exit 4", cwd: dir });
    expect((await untilRow(c, job.id, "exited", (x) => x.life === "exited")).exitCode).toBe(4);
    await c.ok("reply", { id: job.id, text: "echo back > back.txt" });
    const file = path.join(dir, "back.txt");
    await until("the reply ran in the new shell", () => fs.existsSync(file));
    expect(await untilRow(c, job.id, "nothing pending", (x) => x.pending === 0)).toMatchObject({
      life: "running",
      lastSeq: 2,
    });
  });
});
