/**
 * roost's sandbox (docs/security.md), with a real bubblewrap: a sandboxed job's program cannot act
 * as the hub (the owner's token and socket hidden, its own socket bound to it), writes only its
 * tree, and its agent still reports, takes replies and uses the peer ops, across a daemon restart.
 *
 * One daemon, its config every profile of the describes before "a sandboxed agent", serves them
 * all (they run one after another; each uses its own jobs and trees). "a sandboxed agent" restarts
 * its daemon, and "a machine without bubblewrap" runs one with another environment and counts
 * its rows from none: each has its own.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentProfile, FIXTURES, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { git, makeRepo } from "../helpers/git.js";
import { handled, jobDir, procEnv, rmTemp, tempDir, untilRow } from "../helpers/jobs.js";
import { RawClient } from "../helpers/raw-client.js";

const ATTACK = path.join(FIXTURES, "sandbox-attack.py");
const socketOf = (d: TestDaemon, id: string) => path.join(jobDir(d, id), "sandbox", "roost.sock");

/** A job's token, from its process's environment, where roost put it (bwrap's is the job's). */
async function tokenOf(c: RawClient, id: string): Promise<string> {
  const r = await untilRow(c, id, "running with a pid", (x) => x.life === "running" && x.pid);
  return until(`${id}'s token`, () => {
    const env = procEnv(r.pid);
    return env.ROOST_JOB_ID === id ? env.ROOST_JOB_TOKEN : undefined;
  });
}

/** What "the sandbox's network" probes: a loopback port this test listens on. */
function probe(port: number, file: string): string[] {
  return [
    "python3",
    "-c",
    `import socket\ntry:\n  socket.create_connection(("127.0.0.1", ${port}), 5).close(); r = "connected"\nexcept Exception as e:\n  r = type(e).__name__\nopen("${file}", "w").write(r)`,
  ];
}

/**
 * What the sandboxed job in a worktree tries, each outcome written to its job's directory (its
 * worktree stays as it committed).
 */
const COMMITTER = [
  "echo x > f && git add f && git commit -qm 'in the box'; echo commit=$? >> \"$ROOST_JOB_DIR/out\"",
  "git config core.fsmonitor 'touch /var/tmp/roost-pwned'; echo config=$? >> \"$ROOST_JOB_DIR/out\"",
  'echo "touch /var/tmp/roost-pwned" > "$(git rev-parse --git-common-dir)/hooks/post-checkout"; echo hook=$? >> "$ROOST_JOB_DIR/out"',
].join("\n");

// The daemon the describes up to "a sandboxed agent" share, and what its config needs made first.
let d: TestDaemon;
let c: RawClient;
/** The attack's OUTSIDE: not under /tmp, which the job has a private one of. */
let attackOutside: string;
/** What the network probes connect to. */
let server: net.Server;

beforeAll(async () => {
  attackOutside = fs.mkdtempSync("/var/tmp/roost-outside-");
  // The probe closes at once: its reset is no error of the test's.
  server = net.createServer((s) => s.on("error", () => {}).end("hi\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  d = await startDaemon({
    env: {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
    config: {
      agentProfiles: {
        // OTHER_JOB: the first job of the daemon, the first describe's.
        attack: {
          command: ["python3", ATTACK],
          sandbox: true,
          env: { OUTSIDE: attackOutside, OTHER_JOB: "j1" },
        },
        idle: { command: ["sleep", "600"], protocol: true },
        agent: agentProfile(),
        offline: { command: probe(port, "offline.txt"), sandbox: true, network: false },
        online: { command: probe(port, "online.txt"), sandbox: true },
        committer: { command: ["bash", "-c", COMMITTER], sandbox: true, worktree: true },
        bash: {
          command: ["/bin/bash", "--norc", "--noprofile", "-i"],
          sandbox: true,
          env: { PS1: "box$ " },
        },
        // The harness's HOME is inside roost's home, so `~/.pi` is too.
        homely: { command: ["sleep", "600"], sandbox: true, writable: ["~/.pi"] },
        // A program that ignores SIGTERM and SIGHUP: only the kill that follows a stop ends it.
        stubborn: {
          command: ["sh", "-c", "trap '' TERM HUP INT; while :; do sleep 1; done"],
          sandbox: true,
        },
      },
    },
  });
  c = await d.client();
}, 60000);

afterAll(async () => {
  await d?.cleanup();
  server?.close();
  if (attackOutside) rmTemp(attackOutside);
});

// First: its `other` is the daemon's first job, j1.
describe("a sandboxed job's program", () => {
  let tree: string;
  let outside: string;
  let other: string;
  let result: Record<string, { ok: boolean; value?: any; error?: string }>;

  beforeAll(async () => {
    tree = tempDir();
    outside = attackOutside;
    other = (await c.ok("dispatch", { profile: "idle", cwd: outside })).job.id;
    expect(other).toBe("j1");
    const { job } = await c.ok("dispatch", { profile: "attack", cwd: tree });
    expect(job.sandboxed).toBe(true);
    await untilRow(c, job.id, "exited", (r) => r.life === "exited", 30000);
    result = JSON.parse(fs.readFileSync(path.join(tree, "result.json"), "utf8"));
  }, 60000);

  afterAll(() => {
    rmTemp(tree);
  });

  it("cannot read the owner's token or roost.db: roost's home is not there", () => {
    expect(fs.existsSync(path.join(d.home, "token"))).toBe(true);
    expect(result.token).toMatchObject({ ok: false, error: expect.stringContaining("FileNotFoundError") });
    expect(result.db).toMatchObject({ ok: false, error: expect.stringContaining("FileNotFoundError") });
  });

  it("cannot connect to the owner's socket, nor the pty host's, at their real paths", () => {
    expect(fs.existsSync(path.join(d.home, "roost.sock"))).toBe(true);
    expect(result.ownerSocket).toMatchObject({
      ok: false,
      error: expect.stringContaining("FileNotFoundError"),
    });
    expect(result.ptySocket).toMatchObject({
      ok: false,
      error: expect.stringContaining("FileNotFoundError"),
    });
  });

  it("cannot send a hub op on its own socket (list, dispatch, reply, token)", () => {
    for (const op of ["list", "dispatch", "reply", "token"]) {
      expect(result[`own:${op}`], op).toMatchObject({ ok: true, value: { ok: false, code: "unsupported" } });
      expect(result[`own:${op}`]!.value.error).toContain("own socket");
    }
  });

  it("cannot write outside its tree (another directory, another job's directory)", () => {
    expect(result.writeOutside).toMatchObject({ ok: false, error: expect.stringContaining("Read-only") });
    expect(fs.existsSync(path.join(outside, "planted"))).toBe(false);
    expect(result.writeOtherJob?.ok).toBe(false);
    expect(fs.existsSync(path.join(jobDir(d, other), "planted"))).toBe(false);
  });

  it("writes its tree, its own directory and a private /tmp", () => {
    expect(result.writeTree?.ok).toBe(true);
    expect(fs.readFileSync(path.join(tree, "in-tree"), "utf8")).toBe("planted");
    expect(result.writeJobDir?.ok).toBe(true);
    expect(result.writeTmp?.ok).toBe(true);
    expect(fs.existsSync("/tmp/in-tmp")).toBe(false);
  });

  it("cannot see the daemon's processes (to read their memory or environment)", () => {
    expect(result.pids?.ok).toBe(true);
    expect(result.pids!.value).not.toContain(d.pid);
    expect(Math.max(...result.pids!.value)).toBeLessThan(100); // its own pid namespace
  });
});

describe("a sandboxed job's own socket", () => {
  let tree: string;
  const opened: RawClient[] = [];
  const open = async (file: string) => {
    const conn = await RawClient.connect(file);
    opened.push(conn);
    return conn;
  };

  beforeAll(() => {
    tree = tempDir();
  });

  afterAll(() => {
    for (const conn of opened) conn.close();
    rmTemp(tree);
  });

  it("refuses another job's id and token, and registers no other session", async () => {
    const plain = (await c.ok("dispatch", { profile: "idle", cwd: tree })).job.id;
    const boxed = (await c.ok("dispatch", { profile: "idle", cwd: tree, sandbox: true })).job.id;
    const plainToken = await tokenOf(c, plain);
    const boxedToken = await tokenOf(c, boxed);
    const conn = await open(socketOf(d, boxed));
    // Another job's id with its own token: the token is good, but not on this socket.
    for (const op of ["report", "speak_for"]) {
      const r = await conn.request(op, { id: plain, token: plainToken, report: { state: "working" } });
      expect(r, op).toMatchObject({ ok: false, code: "unauthorized" });
    }
    expect(await conn.request("ack", { id: plain, token: plainToken, seq: 1 })).toMatchObject({
      ok: false,
      code: "unauthorized",
    });
    // Its own id with another's token.
    expect(
      await conn.request("report", { id: boxed, token: plainToken, report: { state: "working" } }),
    ).toMatchObject({
      ok: false,
      code: "unauthorized",
    });
    expect(await conn.request("peer_register", { name: "escape" })).toMatchObject({
      ok: false,
      code: "unsupported",
    });
    // Its own id and token: it speaks for itself.
    expect(
      await conn.request("report", { id: boxed, token: boxedToken, report: { state: "working" } }),
    ).toMatchObject({ ok: true });
  });

  it("takes its own report, its replies (ack) and the peer ops; its children are sandboxed, in its tree", async () => {
    const peer = (await c.ok("dispatch", { profile: "idle", cwd: tree })).job.id;
    const boxed = (await c.ok("dispatch", { profile: "idle", cwd: tree, sandbox: true })).job.id;
    const token = await tokenOf(c, boxed);
    const peerConn = await d.client();
    await peerConn.ok("report", { id: peer, token: await tokenOf(c, peer), report: { state: "working" } });
    const conn = await open(socketOf(d, boxed));
    await conn.ok("hello", { protocol: 1, agent: { name: "raw", version: "0" }, capabilities: ["replies"] });
    await conn.ok("report", { id: boxed, token, report: { state: "working", summary: "boxed" } });
    await untilRow(c, boxed, "its report", (r) => r.summary === "boxed" && r.connected);
    await c.ok("reply", { id: boxed, text: "go on" });
    const deliver = await conn.event((e) => e.event === "deliver" && e.id === boxed, "the reply");
    await conn.ok("ack", { id: boxed, token, seq: deliver.seq });
    await untilRow(c, boxed, "its reply taken", (r) => r.pending === 0);
    const { peers } = await conn.ok("peers", {});
    expect(peers.map((s: any) => s.id)).toContain(peer);
    expect(await conn.ok("send", { to: peer, text: "hello from the box" })).toMatchObject({
      to: { id: peer },
    });
    await conn.ok("watch", { id: peer, when: "ended" });
    // A child: sandboxed as its parent, whatever it asks; never outside its parent's tree.
    expect(await conn.request("spawn", { profile: "idle", task: "t", sandbox: false })).toMatchObject({
      ok: false,
      code: "bad_request",
    });
    expect(await conn.request("spawn", { profile: "idle", task: "t", cwd: "/" })).toMatchObject({
      ok: false,
      code: "bad_request",
    });
    const { job: child } = await conn.ok("spawn", { profile: "idle", task: "t" });
    expect(child).toMatchObject({ sandboxed: true, parent: boxed, cwd: tree });
  });
});

describe("a link in a sandboxed job's tree", () => {
  let tree: string;
  let outside: string;

  beforeAll(() => {
    tree = tempDir();
    outside = fs.mkdtempSync("/var/tmp/roost-outside-");
  });

  afterAll(() => {
    rmTemp(tree);
    rmTemp(outside);
  });

  it("takes its children nowhere else: not at their spawn, nor at a respawn after it was swapped in", async () => {
    const boxed = (await c.ok("dispatch", { profile: "idle", cwd: tree, sandbox: true })).job.id;
    const token = await tokenOf(c, boxed);
    const conn = await RawClient.connect(socketOf(d, boxed));
    try {
      await conn.ok("report", { id: boxed, token, report: { state: "working" } });
      // What the job would do from inside: a link in its tree to where it may not write.
      fs.symlinkSync(outside, path.join(tree, "escape"));
      const linked = await conn.request("spawn", {
        profile: "idle",
        task: "t",
        cwd: path.join(tree, "escape"),
      });
      expect(linked).toMatchObject({ ok: false, code: "bad_request" });
      fs.mkdirSync(path.join(tree, "sub"));
      const { job: child } = await conn.ok("spawn", {
        profile: "idle",
        task: "t",
        cwd: path.join(tree, "sub"),
      });
      expect(child).toMatchObject({ sandboxed: true, cwd: path.join(tree, "sub") });
      await c.ok("stop", { id: child.id });
      fs.rmdirSync(path.join(tree, "sub"));
      fs.symlinkSync(outside, path.join(tree, "sub"));
      const again = (await c.ok("respawn", { id: child.id })).job;
      expect(again).toMatchObject({ life: "exited", state: "failed" });
      expect(again.error).toContain("not where it was at dispatch");
    } finally {
      conn.close();
    }
  });
});

describe("the sandbox's network", () => {
  let tree: string;

  beforeAll(() => {
    tree = tempDir();
  });

  afterAll(() => {
    rmTemp(tree);
  });

  it('is cut by the profile\'s "network": false (a loopback port the test listens on), and on by default', async () => {
    for (const profile of ["offline", "online"]) {
      const { job } = await c.ok("dispatch", { profile, cwd: tree });
      await untilRow(c, job.id, "exited", (r) => r.life === "exited", 30000);
    }
    expect(fs.readFileSync(path.join(tree, "offline.txt"), "utf8")).toBe("ConnectionRefusedError");
    expect(fs.readFileSync(path.join(tree, "online.txt"), "utf8")).toBe("connected");
  });
});

describe("a sandboxed job in a worktree, and in a terminal", () => {
  let repo: string;
  let tree: string;

  beforeAll(() => {
    repo = makeRepo(undefined, "/var/tmp"); // not under /tmp, which the job has a private one of
    tree = tempDir();
  });

  afterAll(() => {
    rmTemp(repo);
    rmTemp(tree);
  });

  it("commits on its branch, but cannot write its repository's config or hooks", async () => {
    const { job } = await c.ok("dispatch", { profile: "committer", cwd: repo });
    expect(job).toMatchObject({ sandboxed: true, worktree: { repo } });
    await untilRow(c, job.id, "exited", (r) => r.life === "exited", 30000);
    const out = fs.readFileSync(path.join(jobDir(d, job.id), "out"), "utf8");
    expect(out).toMatch(/^commit=0$/m);
    expect(out).not.toMatch(/^config=0$/m);
    expect(out).not.toMatch(/^hook=0$/m);
    expect(git(repo, "log", "-1", "--format=%s", job.worktree.branch).trim()).toBe("in the box");
    expect(git(repo, "config", "--list")).not.toContain("fsmonitor");
    expect(fs.existsSync(path.join(repo, ".git/hooks/post-checkout"))).toBe(false);
  });

  it("keeps its terminal as a terminal: an interactive shell, job control, tput", async () => {
    const { job } = await c.ok("dispatch", {
      profile: "bash",
      cwd: tree,
      task: "sleep 30 & jobs; tput cols; echo marker-$((40+2))",
    });
    const transcript = path.join(jobDir(d, job.id), "transcript.log");
    const seen = await until("the shell's answers", () => {
      const text = fs.existsSync(transcript) ? fs.readFileSync(transcript, "utf8") : "";
      return text.includes("marker-42") ? text : undefined;
    });
    expect(seen).toMatch(/\[1\]\+?\s+Running\s+sleep 30 &/);
    expect(seen).not.toContain("no job control");
    expect(seen).toMatch(/^\d+\r?$/m); // tput cols: the terminal's width
  });
});

describe("what a sandbox may not be given", () => {
  let tree: string;

  beforeAll(() => {
    tree = tempDir();
  });

  afterAll(() => {
    rmTemp(tree);
  });

  it("refuses a writable path or a cwd in roost's home, and makes no row", async () => {
    // The daemon's rows as they were: the refusals add none.
    const before = (await c.ok("list", {})).rows.map((r: any) => r.id);
    const writable = await c.request("dispatch", { profile: "homely", cwd: tree });
    expect(writable).toMatchObject({ ok: false, code: "bad_request" });
    expect(writable.error).toContain("may not write in roost's home");
    const cwd = await c.request("dispatch", { profile: "shell", cwd: d.home, sandbox: true });
    expect(cwd).toMatchObject({ ok: false, code: "bad_request" });
    expect(cwd.error).toContain("cannot run in roost's home");
    expect((await c.ok("list", {})).rows.map((r: any) => r.id)).toEqual(before);
  });
});

describe("stopping a sandboxed job", () => {
  let tree: string;

  beforeAll(() => {
    tree = tempDir();
  });

  afterAll(() => {
    rmTemp(tree);
  });

  /** The pids of every process whose environment has `name=value`: a job's, inside bubblewrap too. */
  function carrying(name: string, value: string): number[] {
    const found: number[] = [];
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (fs.readFileSync(`/proc/${entry}/environ`, "latin1").includes(`${name}=${value}\0`))
          found.push(Number(entry));
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    return found;
  }

  it("stopped as it starts, leaves nothing running (bubblewrap's init, set up after the stop, among them)", async () => {
    const dirs: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { job } = await c.ok("dispatch", { profile: "stubborn", cwd: tree });
      await c.ok("stop", { id: job.id });
      dirs.push(jobDir(d, job.id));
    }
    await until(
      "nothing of the jobs left",
      () => dirs.flatMap((dir) => carrying("ROOST_JOB_DIR", dir)).length === 0,
      10000,
    );
  });

  it("ends everything in its sandbox, also what ignores SIGTERM and SIGHUP (bubblewrap's init in its pid namespace among them)", async () => {
    const { job } = await c.ok("dispatch", { profile: "stubborn", cwd: tree });
    const token = await tokenOf(c, job.id);
    // bubblewrap, its init in the job's pid namespace, sh, and sleep.
    await until("the sandbox's processes", () => carrying("ROOST_JOB_TOKEN", token).length >= 3);
    await c.ok("stop", { id: job.id });
    await untilRow(c, job.id, "stopped", (r) => r.life === "stopped" || r.life === "exited");
    await until("nothing of the job left", () => carrying("ROOST_JOB_TOKEN", token).length === 0, 10000);
  });
});

// Each with a daemon of its own: the shared one is not restarted, nor counted from none.
describe("a sandboxed agent", () => {
  let d: TestDaemon;
  let c: RawClient;
  let tree: string;

  beforeAll(async () => {
    tree = tempDir();
    d = await startDaemon({ config: { agentProfiles: { agent: agentProfile({ sandbox: true }) } } });
    c = await d.client();
  });

  afterAll(async () => {
    await d?.cleanup();
    rmTemp(tree);
  });

  it("reports and takes replies through its own socket, and reconnects there after a daemon restart", async () => {
    const { job } = await c.ok("dispatch", { profile: "agent", cwd: tree, task: "first" });
    expect(job.sandboxed).toBe(true);
    await until("the first reply handled", () => handled(d, job.id).some((h) => h.text === "first"));
    const before = await untilRow(c, job.id, "connected, idle", (r) => r.connected && r.pending === 0);
    await d.restart();
    c = await d.client();
    const after = await untilRow(c, job.id, "reconnected", (r) => r.connected, 30000);
    expect(after).toMatchObject({ sandboxed: true, pid: before.pid, life: "running" });
    await c.ok("reply", { id: job.id, text: "after the restart" });
    await until("the reply after the restart handled", () =>
      handled(d, job.id).some((h) => h.text === "after the restart"),
    );
    await untilRow(c, job.id, "its reply taken", (r) => r.pending === 0);
  }, 60000);

  it("is sandboxed again when respawned", async () => {
    const { job } = await c.ok("dispatch", { profile: "agent", cwd: tree, task: "one" });
    await until("handled", () => handled(d, job.id).some((h) => h.text === "one"));
    const { job: again } = await c.ok("respawn", { id: job.id });
    expect(again.sandboxed).toBe(true);
    await c.ok("reply", { id: job.id, text: "two" });
    await until("handled after respawn", () => handled(d, job.id).some((h) => h.text === "two"));
  }, 60000);

  it("the example agents work sandboxed (example-ts, example-py)", async () => {
    for (const profile of ["example-ts", "example-py"]) {
      const { job } = await c.ok("dispatch", {
        profile,
        cwd: tree,
        sandbox: true,
        task: `echo from ${profile} > ${profile}.txt`,
      });
      expect(job.sandboxed).toBe(true);
      await untilRow(c, job.id, "done", (r) => r.state === "done" || r.state === "failed", 30000);
      expect(fs.readFileSync(path.join(tree, `${profile}.txt`), "utf8").trim()).toBe(`from ${profile}`);
    }
  }, 90000);
});

describe("a machine without bubblewrap", () => {
  let d: TestDaemon;
  let c: RawClient;

  beforeAll(async () => {
    d = await startDaemon({ env: { ROOST_BWRAP: "/nonexistent/bwrap" } });
    c = await d.client();
  });

  afterAll(async () => {
    await d?.cleanup();
  });

  it("refuses a sandboxed dispatch with bad_request, saying how to install it, and makes no row", async () => {
    const r = await c.request("dispatch", { profile: "shell", cwd: FIXTURES, sandbox: true });
    expect(r).toMatchObject({ ok: false, code: "bad_request" });
    expect(r.error).toContain("apt-get install bubblewrap");
    expect((await c.ok("list", {})).rows).toHaveLength(0);
  });
});
