/**
 * The hub's ops on jobs (docs/protocol.md, "The hub's ops", "A row"), against a real daemon:
 * dispatch, the rows, exits, stop, rm, respawn and shutdown.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentProfile, childPids, isAlive, type TestDaemon, until } from "../../helpers/daemon.js";
import {
  handled,
  procEnv,
  row,
  sharedCleanDaemon,
  silentProfile,
  untilGone,
  untilRow,
} from "../../helpers/jobs.js";

const profiles = () => ({
  agent: agentProfile(),
  silent: silentProfile(),
  // The task is appended to the command: bash -c gives it to the script as $1.
  argv: { command: ["bash", "-c", 'printf "%s" "$1" > argv.txt; sleep 600', "argv"], task: "argv" },
  envy: { command: ["bash", "-c", 'printf "%s" "$FOO" > env.txt; sleep 600'], env: { FOO: "bar baz" } },
  exit3: { command: ["bash", "-c", "exit 3"] },
  exit0: { command: ["bash", "-c", "exit 0"] },
  missing: { command: ["/no/such/program"] },
  // Its program is in the job's directory: there at dispatch, gone by a respawn if the test removes it.
  vanishing: { command: ["./prog.sh"] },
});

const daemon = sharedCleanDaemon(() => ({ agentProfiles: profiles() }));

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const SHORT_URL_SAFE = /^[A-Za-z0-9_-]{1,16}$/;

describe("dispatch", () => {
  it("types a `type` task to a protocol agent as its reply 1", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "first task", cwd: dir });
    expect(job.profile).toBe("agent");
    expect(job.lastSeq).toBe(1);
    await until("the task handled", () => handled(d, job.id).length === 1);
    expect(handled(d, job.id).map((h) => [h.seq, h.text])).toEqual([[1, "first task"]]);
    const r = await untilRow(
      c,
      job.id,
      "task acked",
      (x) => x.pending === 0 && x.summary === "did: first task",
    );
    expect(r.lastSeq).toBe(1);
    expect(r.cwd).toBe(dir);
  });

  it("appends an `argv` task to the command, as one argument", async () => {
    const { c, dir } = await daemon();
    const task = 'fix it; don\'t $(touch pwned) `echo` the "bug"';
    const { job } = await c.ok("dispatch", { profile: "argv", task, cwd: dir });
    const file = path.join(dir, "argv.txt");
    await until("argv.txt written", () => fs.existsSync(file) && fs.readFileSync(file, "utf8") === task);
    expect(fs.existsSync(path.join(dir, "pwned"))).toBe(false);
    // An argv task is not a reply.
    const r = await row(c, job.id);
    expect(r.lastSeq).toBe(0);
    expect(r.pending).toBe(0);
    expect(r.life).toBe("running");
  });

  it("types a shell job's task into its terminal, and it runs in the job's cwd", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", {
      profile: "shell",
      task: "echo hi > made-by-task.txt",
      cwd: dir,
    });
    expect(job.kind).toBe("terminal");
    const file = path.join(dir, "made-by-task.txt");
    await until("the typed task ran", () => fs.existsSync(file) && fs.readFileSync(file, "utf8") === "hi\n");
    const r = await untilRow(c, job.id, "task typed", (x) => x.pending === 0);
    expect(r.lastSeq).toBe(1);
    expect(r.life).toBe("running");
  });

  it("names the job, and folds a name to one line", async () => {
    const { c, dir } = await daemon();
    const named = (await c.ok("dispatch", { profile: "silent", name: "my job", cwd: dir })).job;
    expect(named.name).toBe("my job");
    const folded = (await c.ok("dispatch", { profile: "silent", name: "two\nlines\r\there", cwd: dir })).job;
    expect(folded.name).toBe("two lines here");
    expect((await row(c, folded.id)).name).toBe("two lines here");
    // Without a name: the task's excerpt, or the profile.
    const byTask = (await c.ok("dispatch", { profile: "silent", task: "do the thing", cwd: dir })).job;
    expect(byTask.name).toBe("do the thing");
    const byProfile = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job;
    expect(byProfile.name).toBe("silent");
    for (const name of ["concierge", "Concierge", " concierge\n", "\n\t"]) {
      const r = await c.request("dispatch", { profile: "silent", name, cwd: dir });
      expect(r.ok, name).toBe(false);
      expect(r.code).toBe("bad_request");
    }
    expect((await c.ok("list")).rows).toHaveLength(4);
  });

  it("refuses a cwd that is relative, missing or not a directory, and makes no job", async () => {
    const { c, dir, home } = await daemon();
    const file = path.join(dir, "a-file");
    fs.writeFileSync(file, "x");
    for (const cwd of ["relative/dir", "tmp", file, path.join(dir, "missing")]) {
      const r = await c.request("dispatch", { profile: "silent", cwd });
      expect(r.ok, cwd).toBe(false);
      expect(r.code, cwd).toBe("bad_request");
      expect(r.error).toContain(JSON.stringify(cwd));
    }
    expect((await c.ok("list")).rows).toEqual([]);
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    expect(job.cwd).toBe(dir);
    // Without one: the user's home; "~" is the home too.
    expect((await c.ok("dispatch", { profile: "silent" })).job.cwd).toBe(home);
    fs.mkdirSync(path.join(home, "sub"));
    expect((await c.ok("dispatch", { profile: "silent", cwd: "~/sub" })).job.cwd).toBe(
      path.join(home, "sub"),
    );
  });

  it("refuses an unknown profile, listing the profiles", async () => {
    const { c } = await daemon();
    const r = await c.request("dispatch", { profile: "nope" });
    expect(r.ok).toBe(false);
    expect(r.code).toBe("bad_request");
    expect(r.error).toContain('"nope"');
    for (const name of ["shell", ...Object.keys(profiles())]) expect(r.error).toContain(name);
    expect((await c.ok("list")).rows).toEqual([]);
  });

  it("gives a profile's env, and the job's identity, to the job", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "envy", cwd: dir });
    const file = path.join(dir, "env.txt");
    await until("env.txt written", () => fs.existsSync(file) && fs.readFileSync(file, "utf8") === "bar baz");
    const r = await untilRow(c, job.id, "a pid", (x) => x.pid);
    const env = procEnv(r.pid);
    expect(env.FOO).toBe("bar baz");
    expect(env.ROOST_JOB_ID).toBe(job.id);
    expect(env.ROOST_SOCKET).toBe(d.socket);
    expect(env.ROOST_JOB_DIR).toBe(path.join(d.home, "jobs", job.id));
    expect(env.ROOST_JOB_TOKEN).toMatch(/^.{16,}$/);
    expect(env.PI_JOB_ID).toBe(env.ROOST_JOB_ID);
    expect(env.PI_JOB_TOKEN).toBe(env.ROOST_JOB_TOKEN);
    expect(env.PI_DAEMON_SOCK).toBe(env.ROOST_SOCKET);
    expect(env.PI_JOB_DIR).toBe(env.ROOST_JOB_DIR);
  });

  it("takes a requestId once: a resend answers the first job, whatever its other args", async () => {
    const { c, dir } = await daemon();
    const first = await c.ok("dispatch", { profile: "silent", task: "one", cwd: dir, requestId: "req-1" });
    expect(first.duplicate).toBeUndefined();
    const again = await c.ok("dispatch", { profile: "silent", task: "one", cwd: dir, requestId: "req-1" });
    expect(again.duplicate).toBe(true);
    expect(again.job.id).toBe(first.job.id);
    // Other args, even ones that would be refused, do not matter to a resend.
    const other = await c.ok("dispatch", {
      profile: "nope",
      name: "concierge",
      cwd: "rel",
      requestId: "req-1",
    });
    expect(other).toMatchObject({ duplicate: true, job: { id: first.job.id } });
    const { rows } = await c.ok("list");
    expect(rows.map((r: any) => r.id)).toEqual([first.job.id]);
    expect(rows[0].lastSeq).toBe(1); // the task was saved once
    // Another id is another job.
    const second = await c.ok("dispatch", { profile: "silent", cwd: dir, requestId: "req-2" });
    expect(second.job.id).not.toBe(first.job.id);
    // Once the first job is removed, its id makes a new job.
    await c.ok("rm", { id: first.job.id });
    const anew = await c.ok("dispatch", { profile: "silent", cwd: dir, requestId: "req-1" });
    expect(anew.duplicate).toBeUndefined();
    expect([first.job.id, second.job.id]).not.toContain(anew.job.id);
    const resend = await c.ok("dispatch", { profile: "silent", cwd: dir, requestId: "req-1" });
    expect(resend).toMatchObject({ duplicate: true, job: { id: anew.job.id } });
    expect((await c.ok("list")).rows).toHaveLength(2);
  });

  it("makes one job for resends that cross the first", async () => {
    const { c, dir } = await daemon();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => c.ok("dispatch", { profile: "silent", cwd: dir, requestId: "same" })),
    );
    const ids = new Set(answers.map((a) => a.job.id));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.duplicate === true)).toHaveLength(4);
    expect((await c.ok("list")).rows).toHaveLength(1);
  });

  it("refuses an invalid requestId", async () => {
    const { c, dir } = await daemon();
    for (const requestId of ["x".repeat(65), "has space", "", "slash/no", "é"]) {
      const r = await c.request("dispatch", { profile: "silent", cwd: dir, requestId });
      expect(r.ok, requestId).toBe(false);
      expect(r.code).toBe("bad_request");
    }
    expect((await c.ok("list")).rows).toEqual([]);
    const ok = await c.ok("dispatch", {
      profile: "silent",
      cwd: dir,
      requestId: `A-z_0.9:${"x".repeat(56)}`,
    });
    expect(ok.job.id).toMatch(SHORT_URL_SAFE);
  });

  it("gives short URL-safe ids, never reused: not after rm, not after a restart", async () => {
    const { d, c, dir } = await daemon();
    const seen = new Set<string>();
    const fresh = async (client = c) => {
      const { job } = await client.ok("dispatch", { profile: "silent", cwd: dir });
      expect(job.id).toMatch(SHORT_URL_SAFE);
      expect(encodeURIComponent(job.id)).toBe(job.id);
      expect(seen.has(job.id)).toBe(false);
      seen.add(job.id);
      return job.id as string;
    };
    const a = await fresh();
    const b = await fresh();
    await c.ok("rm", { id: b });
    await fresh();
    await c.ok("rm", { id: a });
    for (const r of (await c.ok("list")).rows) await c.ok("rm", { id: r.id });
    await fresh();
    await d.restart();
    const c2 = await d.client();
    await fresh(c2);
    for (const r of (await c2.ok("list")).rows) await c2.ok("rm", { id: r.id });
    await d.restart();
    await fresh(await d.client());
    expect(seen.size).toBe(6);
  });
});

describe("rows", () => {
  const FIELDS = [
    "id",
    "name",
    "profile",
    "role",
    "kind",
    "pinned",
    "order",
    "life",
    "exitCode",
    "connected",
    "capabilities",
    "agent",
    "state",
    "status",
    "waitingFor",
    "summary",
    "question",
    "choices",
    "tool",
    "error",
    "model",
    "thinking",
    "context",
    "usage",
    "prLinks",
    "pending",
    "lastSeq",
    "suggested",
    "parent",
    "startedAt",
    "endedAt",
    "updatedAt",
  ];

  it("carries every field a row lists, for a terminal and a protocol job", async () => {
    const { c, dir } = await daemon();
    const term = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job;
    for (const f of FIELDS) expect(term, f).toHaveProperty(f);
    const proto = (await c.ok("dispatch", { profile: "agent", task: "hello", cwd: dir })).job;
    const r = await untilRow(c, proto.id, "reported", (x) => x.kind === "protocol" && x.pending === 0);
    for (const f of FIELDS) expect(r, f).toHaveProperty(f);
    expect(r).toMatchObject({
      id: proto.id,
      profile: "agent",
      role: null,
      kind: "protocol",
      pinned: false,
      life: "running",
      exitCode: null,
      connected: true,
      agent: { name: "test-agent", version: "1.0" },
      state: "working",
      status: "busy",
      summary: "did: hello",
      pending: 0,
      lastSeq: 1,
      suggested: null,
      parent: null,
      endedAt: null,
    });
    expect(r.capabilities).toEqual(["report", "replies", "steer"]);
    expect(r.startedAt).toMatch(ISO);
    expect(r.updatedAt).toMatch(ISO);
    const t = await row(c, term.id);
    expect(t).toMatchObject({ kind: "terminal", connected: false, agent: null, life: "running" });
    expect(t.capabilities).toEqual([]);
  });

  it("lists one row by id, and not_found for an unknown one", async () => {
    const { c, dir } = await daemon();
    const a = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job;
    await c.ok("dispatch", { profile: "silent", cwd: dir });
    const { rows } = await c.ok("list", { id: a.id });
    expect(rows.map((r: any) => r.id)).toEqual([a.id]);
    const r = await c.request("list", { id: "j999" });
    expect(r.ok).toBe(false);
    expect(r.code).toBe("not_found");
  });

  it("lists pinned first, then by order; pin, reorder and rename change them", async () => {
    const { c, dir } = await daemon();
    const ids: string[] = [];
    for (const name of ["a", "b", "c"])
      ids.push((await c.ok("dispatch", { profile: "silent", name, cwd: dir })).job.id);
    const [a, b, cc] = ids as [string, string, string];
    const names = async () => (await c.ok("list")).rows.map((r: any) => r.name);
    expect(await names()).toEqual(["c", "b", "a"]); // a new job goes on top
    await c.ok("pin", { id: a, pinned: true });
    expect((await row(c, a)).pinned).toBe(true);
    expect(await names()).toEqual(["a", "c", "b"]);
    await c.ok("reorder", { ids: [b, cc] });
    expect(await names()).toEqual(["a", "b", "c"]);
    await c.ok("reorder", { ids: [cc, a, b] });
    expect(await names()).toEqual(["a", "c", "b"]); // pinned still first
    await c.ok("pin", { id: a, pinned: false });
    expect(await names()).toEqual(["c", "a", "b"]);
    await c.ok("reorder", { ids: [b] }); // the named first, the others keep their order after them
    expect(await names()).toEqual(["b", "c", "a"]);
    const rows = (await c.ok("list")).rows;
    expect(rows[0].order).toBeLessThan(rows[1].order);
    expect(rows[1].order).toBeLessThan(rows[2].order);
    // An unknown id changes nothing.
    const bad = await c.request("reorder", { ids: [a, "j999"] });
    expect(bad.code).toBe("not_found");
    expect(await names()).toEqual(["b", "c", "a"]);
    expect((await c.request("reorder", { ids: [a, a] })).code).toBe("bad_request");
    expect((await c.request("pin", { id: "j999", pinned: true })).code).toBe("not_found");

    await c.ok("rename", { id: b, name: "renamed\nover\nlines" });
    expect((await row(c, b)).name).toBe("renamed over lines");
    for (const name of ["concierge", "CONCIERGE", "\nconcierge\n", " \n "]) {
      const r = await c.request("rename", { id: b, name });
      expect(r.code, name).toBe("bad_request");
    }
    expect((await c.request("rename", { id: "j999", name: "x" })).code).toBe("not_found");
    expect((await row(c, b)).name).toBe("renamed over lines");
  });

  it("keeps pins, order and names across a daemon restart", async () => {
    const { d, c, dir } = await daemon();
    const a = (await c.ok("dispatch", { profile: "silent", name: "a", cwd: dir })).job.id;
    const b = (await c.ok("dispatch", { profile: "silent", name: "b", cwd: dir })).job.id;
    await c.ok("reorder", { ids: [a, b] });
    await c.ok("pin", { id: b, pinned: true });
    await c.ok("rename", { id: a, name: "aa" });
    await d.restart();
    const c2 = await d.client();
    const rows = (await c2.ok("list")).rows;
    expect(rows.map((r: any) => [r.name, r.pinned, r.life])).toEqual([
      ["b", true, "running"],
      ["aa", false, "running"],
    ]);
  });
});

describe("exits, stop, rm, respawn", () => {
  it("a job that exits 3 has failed, with an error; one that exits 0 is done", async () => {
    const { c, dir } = await daemon();
    const three = (await c.ok("dispatch", { profile: "exit3", cwd: dir })).job;
    const zero = (await c.ok("dispatch", { profile: "exit0", cwd: dir })).job;
    const r3 = await untilRow(c, three.id, "exited", (x) => x.life === "exited");
    expect(r3).toMatchObject({ exitCode: 3, state: "failed", status: "idle", pid: null });
    expect(r3.error).toBe("exited with code 3");
    expect(r3.endedAt).toMatch(ISO);
    const r0 = await untilRow(c, zero.id, "exited", (x) => x.life === "exited");
    expect(r0).toMatchObject({ exitCode: 0, state: "done", error: null, pid: null });
  });

  it("a profile whose program is not there is refused before any row is made", async () => {
    const { c, dir } = await daemon();
    const r = await c.request("dispatch", { profile: "missing", cwd: dir });
    expect(r.ok).toBe(false);
    expect(r.code).toBe("bad_request");
    expect(r.error).toMatch(
      /^profile "missing" cannot run: \/no\/such\/program is not installed: no executable file there; install it, or dispatch one of: /,
    );
    expect((await c.ok("list")).rows).toEqual([]);
  });

  it("a job whose command cannot run (its program gone by a respawn) has failed, and is not left running", async () => {
    const { c, dir } = await daemon();
    const prog = path.join(dir, "prog.sh");
    fs.writeFileSync(prog, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const { job } = await c.ok("dispatch", { profile: "vanishing", cwd: dir });
    await untilRow(c, job.id, "done", (x) => x.life === "exited");
    fs.rmSync(prog);
    await c.ok("respawn", { id: job.id });
    const r = await untilRow(c, job.id, "failed", (x) => x.life === "exited" && x.state === "failed");
    expect(r.error).toBe("could not start: command not found: ./prog.sh");
    expect(r.pid).toBeNull();
  });

  it("a burst of jobs that exit at once: none is left running", async () => {
    const { c, dir } = await daemon();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await c.ok("dispatch", { profile: "exit0", cwd: dir })).job.id);
    for (const id of ids) {
      const r = await untilRow(c, id, "exited", (x) => x.life === "exited");
      expect(r).toMatchObject({ exitCode: 0, state: "done", pid: null });
    }
  });

  it("stop ends a shell that ignores SIGTERM with SIGKILL after the grace, and keeps its row", async () => {
    const { c, dir } = await daemon();
    // Once it ran its task, the shell reads commands: an interactive shell, ignoring SIGTERM.
    const { job } = await c.ok("dispatch", { profile: "shell", task: "echo up > up.txt", cwd: dir });
    const r = await untilRow(c, job.id, "running", (x) => x.life === "running" && x.pid);
    await until("the shell is up", () => fs.existsSync(path.join(dir, "up.txt")));
    const t0 = Date.now();
    expect(await c.ok("stop", { id: job.id })).toEqual({});
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(900); // the grace (ROOST_STOP_GRACE_MS=1000)
    const s = await row(c, job.id);
    expect(s).toMatchObject({ life: "stopped", exitCode: 128 + 9, pid: null });
    expect(s.endedAt).toMatch(ISO);
    await untilGone(r.pid);
    // Stopping an ended job again is fine, and changes nothing.
    expect(await c.ok("stop", { id: job.id })).toEqual({});
    expect((await row(c, job.id)).life).toBe("stopped");
    expect((await c.request("stop", { id: "j999" })).code).toBe("not_found");
  });

  it("stop ends a protocol agent on SIGTERM, without waiting for the grace", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "hi", cwd: dir });
    const r = await untilRow(c, job.id, "connected", (x) => x.connected);
    await c.ok("stop", { id: job.id });
    // Ended by the SIGTERM itself (143), not by the SIGKILL that follows the grace (137).
    const s = await row(c, job.id);
    expect(s).toMatchObject({ life: "stopped", exitCode: 128 + 15, connected: false });
    await untilGone(r.pid);
  });

  it("rm ends a running job's process, then takes its row off", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "shell", cwd: dir });
    const keep = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job;
    const r = await untilRow(c, job.id, "running", (x) => x.life === "running" && x.pid);
    expect(fs.existsSync(path.join(d.home, "jobs", job.id))).toBe(true);
    expect(await c.ok("rm", { id: job.id })).toEqual({});
    expect(isAlive(r.pid)).toBe(false); // ended (and reaped) before the answer
    expect(fs.existsSync(path.join(d.home, "jobs", job.id))).toBe(false);
    expect((await c.request("list", { id: job.id })).code).toBe("not_found");
    expect((await c.ok("list")).rows.map((x: any) => x.id)).toEqual([keep.id]);
    expect((await c.request("rm", { id: job.id })).code).toBe("not_found");
    expect((await c.request("respawn", { id: job.id })).code).toBe("not_found");
  });

  it("30 stops sent at once stop all 30; 30 rms sent at once remove them all", async () => {
    // Bulk actions (the CLI's several ids, the hub's selection) send their ops together.
    const { d, c, dir } = await daemon();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await c.ok("dispatch", { profile: "silent", cwd: dir })).job.id);
    const pids = [];
    for (const id of ids)
      pids.push((await untilRow(c, id, "running", (x) => x.life === "running" && x.pid)).pid);
    const stops = await Promise.all(ids.map((id) => c.request("stop", { id })));
    expect(stops.map((a) => a.ok)).toEqual(ids.map(() => true));
    for (const id of ids) {
      // Each answered once its process had ended: its row says so already.
      expect(await row(c, id)).toMatchObject({ life: "stopped", exitCode: 128 + 15, pid: null });
    }
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    const rms = await Promise.all(ids.map((id) => c.request("rm", { id })));
    expect(rms.map((a) => a.ok)).toEqual(ids.map(() => true));
    expect((await c.ok("list")).rows).toEqual([]);
    for (const id of ids) expect(fs.existsSync(path.join(d.home, "jobs", id))).toBe(false);
  });

  it("respawn starts an ended job again: same id, new pid, its seq continuing", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "agent", task: "exit 0", cwd: dir });
    const first = await until("the task handled", () => handled(d, job.id)[0]);
    await untilRow(c, job.id, "exited", (x) => x.life === "exited");
    const { job: again } = await c.ok("respawn", { id: job.id });
    expect(again.id).toBe(job.id);
    expect(again.life).toBe("running");
    expect(again.pid).not.toBe(first.pid);
    expect(again.exitCode).toBeNull();
    expect(again.lastSeq).toBe(1);
    await untilRow(c, job.id, "connected again", (x) => x.connected);
    expect(await c.ok("reply", { id: job.id, text: "after respawn" })).toEqual({ saved: true, seq: 2 });
    await until("reply 2 handled", () => handled(d, job.id).length === 2);
    const h = handled(d, job.id);
    expect(h.map((x) => [x.seq, x.text])).toEqual([
      [1, "exit 0"],
      [2, "after respawn"],
    ]);
    expect(h[1].pid).toBe(again.pid);
    expect((await row(c, job.id)).lastSeq).toBe(2);
  });

  it("respawn of a running job restarts it", async () => {
    const { c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    const before = await untilRow(c, job.id, "running", (x) => x.life === "running" && x.pid);
    const { job: after } = await c.ok("respawn", { id: job.id });
    expect(after.id).toBe(job.id);
    expect(after.life).toBe("running");
    expect(after.pid).toBeTruthy();
    expect(after.pid).not.toBe(before.pid);
    await untilGone(before.pid);
    expect(isAlive(after.pid)).toBe(true);
    expect((await c.ok("list")).rows).toHaveLength(1);
  });
});

describe("life changes that cross", () => {
  /** The pty host's children: the job processes it holds. */
  const held = (d: TestDaemon) => childPids(d.ptyHostPid()!);

  it("two respawns at once leave a running job with one process", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    await untilRow(c, job.id, "running", (x) => x.life === "running" && x.pid);
    const [r1, r2] = await Promise.all([
      c.request("respawn", { id: job.id }),
      c.request("respawn", { id: job.id }),
    ]);
    expect([r1.ok, r2.ok]).toEqual([true, true]);
    const r = await row(c, job.id);
    expect(r.life).toBe("running");
    expect(r.pid).toBeTruthy();
    expect(isAlive(r.pid)).toBe(true);
    await until("one process held", () => held(d).length === 1);
    expect(held(d)).toEqual([r.pid]);
    // And it can be stopped and respawned as usual.
    await c.ok("stop", { id: job.id });
    expect((await row(c, job.id)).life).toBe("stopped");
    await untilGone(r.pid);
    const { job: again } = await c.ok("respawn", { id: job.id });
    expect(again.life).toBe("running");
    expect(isAlive(again.pid)).toBe(true);
  });

  it("a respawn and a reply at once start an ended job once", async () => {
    const { d, c, dir } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
    await untilRow(c, job.id, "running", (x) => x.life === "running");
    await c.ok("stop", { id: job.id });
    const answers = await Promise.all([
      c.request("respawn", { id: job.id }),
      c.request("reply", { id: job.id, text: "hello" }),
      c.request("reply", { id: job.id, text: "again" }),
      c.request("respawn", { id: job.id }),
    ]);
    expect(answers.map((a) => a.ok)).toEqual([true, true, true, true]);
    const r = await row(c, job.id);
    expect(r).toMatchObject({ life: "running", pending: 2, lastSeq: 2 });
    expect(isAlive(r.pid)).toBe(true);
    await until("one process held", () => held(d).length === 1);
    expect(held(d)).toEqual([r.pid]);
  });

  it("rm and respawn at once leave no process behind", async () => {
    const { d, c, dir } = await daemon();
    const a = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job.id;
    const b = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job.id;
    await untilRow(c, a, "running", (x) => x.life === "running");
    await untilRow(c, b, "running", (x) => x.life === "running");
    const [ra1, ra2] = await Promise.all([c.request("respawn", { id: a }), c.request("rm", { id: a })]);
    expect([ra1.ok, ra2.ok]).toEqual([true, true]);
    const [rb1, rb2] = await Promise.all([c.request("rm", { id: b }), c.request("respawn", { id: b })]);
    expect(rb1.ok).toBe(true);
    expect(rb2.code).toBe("not_found");
    expect((await c.ok("list")).rows).toEqual([]);
    await until("no process held", () => held(d).length === 0);
  });
});

describe("shutdown", () => {
  it("answers {}, the daemon exits, the jobs keep running, and a new daemon finds them", async () => {
    const { d, c, dir } = await daemon();
    const shell = (await c.ok("dispatch", { profile: "shell", cwd: dir })).job;
    const agent = (await c.ok("dispatch", { profile: "agent", task: "one", cwd: dir })).job;
    const s = await untilRow(c, shell.id, "running", (x) => x.pid);
    const a = await untilRow(c, agent.id, "connected", (x) => x.connected && x.pending === 0);
    const doomed = (await c.ok("dispatch", { profile: "silent", cwd: dir })).job;
    const dpid = (await untilRow(c, doomed.id, "running", (x) => x.pid)).pid;
    const exited = new Promise<number | null>((res) => d.proc!.once("exit", (code) => res(code)));
    expect(await c.ok("shutdown", {})).toEqual({});
    expect(await exited).toBe(0);
    expect(isAlive(s.pid)).toBe(true);
    expect(isAlive(a.pid)).toBe(true);
    // One ends while no daemon runs: the next one learns how.
    process.kill(dpid, "SIGTERM");
    await untilGone(dpid);
    await d.start();
    const c2 = await d.client();
    expect(await row(c2, shell.id)).toMatchObject({ life: "running", pid: s.pid });
    expect(await row(c2, doomed.id)).toMatchObject({ life: "exited", exitCode: 128 + 15, state: "failed" });
    const r = await untilRow(c2, agent.id, "reconnected", (x) => x.connected);
    expect(r).toMatchObject({ life: "running", pid: a.pid, lastSeq: 1 });
    // And the agent takes the next reply, once.
    await c2.ok("reply", { id: agent.id, text: "two" });
    await until("reply 2 handled", () => handled(d, agent.id).length === 2);
    expect(handled(d, agent.id).map((h) => h.seq)).toEqual([1, 2]);
  });
});
