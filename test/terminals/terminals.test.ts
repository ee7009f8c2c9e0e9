/**
 * Terminal agents, for real: programs in real pseudo-terminals held by the pty host, their rows
 * read from their screens, replies typed into them, their terminals watched and typed into, and
 * all of it surviving the daemon's death.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { needsYou } from "../../sdk/ts/protocol/index.js";
import { agentProfile, FIXTURES, isAlive, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { api } from "../helpers/http.js";
import {
  bashProfile,
  handled,
  QUIET_MS,
  rawAgent,
  row,
  stepProcess,
  untilGone,
  untilRow,
} from "../helpers/jobs.js";
import { killPtyHost } from "../helpers/processes.js";
import type { RawClient } from "../helpers/raw-client.js";
import { attachScreen } from "../helpers/screen.js";
import { quietSpellsPassed } from "../helpers/waits.js";

let d: TestDaemon;
afterEach(async () => d?.cleanup());

const config = {
  agentProfiles: {
    bash: bashProfile(),
    ask: { command: [path.join(FIXTURES, "ask.sh")], task: "type", quietMs: QUIET_MS },
    python: { command: ["python3", "-i", "-q"], task: "type", quietMs: QUIET_MS, env: { PYTHONSTARTUP: "" } },
    less: { command: ["less"], task: "argv", quietMs: QUIET_MS },
    agent: agentProfile(),
  },
};

/** A pty host the daemon has just started, from /proc (quicker than ps: caught before it listens). */
function startingHost(daemonPid: number, not: number): number | null {
  for (const name of fs.readdirSync("/proc")) {
    const pid = Number(name);
    if (!pid || pid === not) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === daemonPid && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("host.js"))
        return pid;
    } catch {} // gone meanwhile
  }
  return null;
}

async function setup() {
  d = await startDaemon({ config });
  return d.client();
}

async function dispatch(c: RawClient, profile: string, task?: string) {
  return (await c.ok("dispatch", { profile, task, cwd: d.env.HOME })).job;
}

describe("a bash terminal job", () => {
  it("has its task typed and run, its output on the row, and a reply typed later runs too", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash", "echo task-says-$((40+2))");
    const r1 = await untilRow(
      c,
      job.id,
      "the task's output as the summary",
      (r) => r.summary === "task-says-42",
    );
    expect(r1.kind).toBe("terminal");
    expect(r1.pending).toBe(0);
    await untilRow(c, job.id, "idle after the quiet spell", (r) => r.status === "idle");
    expect((await c.ok("reply", { id: job.id, text: "echo reply-says-$((6*7))" })).seq).toBe(2);
    await untilRow(c, job.id, "the reply's output", (r) => r.summary === "reply-says-42" && r.pending === 0);
  });

  it("types several lines as one bracketed paste: each runs", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    await untilRow(c, job.id, "idle", (r) => r.status === "idle");
    await c.ok("reply", { id: job.id, text: "echo one > lines.txt\necho two >> lines.txt" });
    const file = path.join(d.env.HOME!, "lines.txt");
    await until(
      "both lines run",
      () => fs.existsSync(file) && fs.readFileSync(file, "utf8") === "one\ntwo\n",
    );
  });

  it("types a steer reply at once and a follow-up only once the agent is idle", async () => {
    // A quiet spell long enough that a loaded machine's pause is not taken for idleness.
    d = await startDaemon({
      config: { agentProfiles: { bash: { ...config.agentProfiles.bash, quietMs: 3000 } } },
    });
    const c = await d.client();
    const job = await dispatch(c, "bash");
    await untilRow(c, job.id, "idle", (r) => r.status === "idle");
    // Busy until the test says: output keeps flowing until the file stop-ticking exists.
    await c.ok("reply", { id: job.id, text: "while [ ! -e stop-ticking ]; do echo tick; sleep 0.1; done" });
    await untilRow(c, job.id, "busy", (r) => r.status === "busy");
    await c.ok("reply", { id: job.id, text: "echo follow-up-ran", requestId: "f-1" });
    await c.ok("reply", { id: job.id, text: "echo steer-typed", mode: "steer" });
    const busy = await row(c, job.id);
    expect(busy.status).toBe("busy");
    expect(busy.pending).toBe(1); // the steer went at once; the follow-up waits
    // A resend of the waiting follow-up is a duplicate, not a second one.
    expect(
      (await c.ok("reply", { id: job.id, text: "echo follow-up-ran", requestId: "f-1" })).duplicate,
    ).toBe(true);
    expect((await row(c, job.id)).pending).toBe(1);
    fs.writeFileSync(path.join(d.env.HOME!, "stop-ticking"), "");
    await untilRow(c, job.id, "the follow-up typed after the ticks", (r) => r.pending === 0);
    await untilRow(c, job.id, "the follow-up ran", (r) => r.summary === "follow-up-ran");
    // Typed once: the resend, now kept with the typing, is still a duplicate.
    expect(
      (await c.ok("reply", { id: job.id, text: "echo follow-up-ran", requestId: "f-1" })).duplicate,
    ).toBe(true);
    const screen = (await attachScreen(c, job.id)).text();
    expect(screen.match(/^follow-up-ran$/gm)).toHaveLength(1);
    // The steer, typed while the loop ran, ran as soon as it ended: before the follow-up.
    expect(screen.match(/^steer-typed$/gm)).toHaveLength(1);
    expect(screen.indexOf("\nsteer-typed\n")).toBeLessThan(screen.indexOf("\nfollow-up-ran\n"));
  });
});

describe("a program that asks (y/n)", () => {
  it("turns the row blocked with the question; the reply y reaches it and it goes on", async () => {
    const c = await setup();
    const job = await dispatch(c, "ask");
    const blocked = await untilRow(c, job.id, "blocked", (r) => r.state === "blocked");
    expect(blocked.question).toBe("Continue? (y/n)");
    expect(blocked.choices).toEqual(["y", "n"]);
    expect(blocked.waitingFor).toBe("question");
    const feed = (await c.ok("events", { id: job.id })).events;
    expect(feed.some((e: any) => e.kind === "state" && e.text === "blocked: Continue? (y/n)")).toBe(true);
    await c.ok("reply", { id: job.id, text: "y" });
    const after = await untilRow(c, job.id, "going on", (r) => r.summary === "going on: step two");
    expect(after.state).toBe("working");
    expect(after.question).toBeNull();
  });

  it("a profile's own blockedPattern marks its question", async () => {
    d = await startDaemon({
      config: {
        agentProfiles: {
          custom: {
            command: ["/bin/sh", "-c", "echo 'Apply these 3 edits? Press enter to accept'; sleep 600"],
            blockedPattern: "Press enter to accept",
            quietMs: QUIET_MS,
          },
        },
      },
    });
    const c = await d.client();
    const job = await dispatch(c, "custom");
    const r = await untilRow(c, job.id, "blocked", (x) => x.state === "blocked");
    expect(r.question).toBe("Apply these 3 edits? Press enter to accept");
    expect(r.choices).toBeNull();
  });
});

describe("a question answered at its prompt", () => {
  it("bash's read -p: blocked with the question, then working again once y is typed", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash", 'read -p "Continue? (y/n) " answer');
    const blocked = await untilRow(c, job.id, "blocked", (r) => r.state === "blocked");
    expect(blocked).toMatchObject({ question: "Continue? (y/n)", choices: ["y", "n"] });
    expect(needsYou(blocked)).toBe(true);
    await c.ok("reply", { id: job.id, text: "y" });
    const after = await untilRow(c, job.id, "answered", (r) => r.pending === 0 && r.state !== "blocked");
    expect(after).toMatchObject({ state: "working", question: null, choices: null });
    const idle = await untilRow(c, job.id, "quiet again", (r) => r.status === "idle");
    expect(idle).toMatchObject({ state: "working", question: null });
    expect(needsYou(idle)).toBe(false);
  });

  it("python's input(): blocked, then working once answered, by y or by Enter alone", async () => {
    const c = await setup();
    const job = await dispatch(c, "python", 'x = input("Overwrite file? [Y/n] ")');
    const blocked = await untilRow(c, job.id, "blocked", (r) => r.state === "blocked");
    expect(blocked).toMatchObject({ question: "Overwrite file? [Y/n]", choices: ["y", "n"] });
    await c.ok("reply", { id: job.id, text: "y" });
    await untilRow(c, job.id, "answered", (r) => r.pending === 0 && r.status === "idle");
    expect(await row(c, job.id)).toMatchObject({ state: "working", question: null, choices: null });
    // Answered by Enter alone (the default): the line holds no answer, but Python's prompt follows.
    await c.ok("reply", { id: job.id, text: 'y = input("Really overwrite it? [Y/n] ")' });
    await untilRow(c, job.id, "asked again", (r) => r.question === "Really overwrite it? [Y/n]");
    await c.ok("input", { id: job.id, data: "\r" });
    await untilRow(c, job.id, "answered by Enter", (r) => r.state === "working" && r.question === null);
    await c.ok("reply", { id: job.id, text: "print(repr(x), repr(y))" });
    await untilRow(c, job.id, "both answers", (r) => r.summary === "'y' ''");
  });
});

describe("a command that prints nothing", () => {
  /** The job's transcript: everything its terminal printed, the echo of what was typed too. */
  const transcript = (id: string) => fs.readFileSync(path.join(d.home, "jobs", id, "transcript.log"), "utf8");

  /** Sends a command, then a follow-up while it runs: the follow-up waits, however long it is silent. */
  async function followUpWaits(c: RawClient, id: string, command: string, followUp: string) {
    await untilRow(c, id, "idle", (r) => r.status === "idle" && r.pending === 0);
    await c.ok("reply", { id, text: command });
    await untilRow(c, id, "the command typed", (r) => r.pending === 0);
    const { pid } = await row(c, id);
    const sleeper = await until("its sleep running", () => stepProcess(pid, "sleep 600"));
    await c.ok("reply", { id, text: followUp });
    // Many quiet spells (400 ms) and the typist's own fallback (twice that, from the command's
    // typing) pass in silence: four of another shell's (helpers/waits.ts).
    await quietSpellsPassed(c, (await dispatch(c, "bash")).id, 4);
    expect(await row(c, id)).toMatchObject({ pending: 1, status: "busy" });
    expect(transcript(id)).not.toContain(followUp);
    process.kill(sleeper, "SIGTERM");
    await untilRow(c, id, "the follow-up typed", (r) => r.pending === 0);
  }

  it("sleep typed into a shell: a follow-up is typed only once it has ended", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    await followUpWaits(c, job.id, "sleep 600; echo $((6*7))-slept", "echo $((7*8))-after");
    await untilRow(c, job.id, "the follow-up ran", (r) => r.summary === "56-after");
    const text = transcript(job.id);
    expect(text.indexOf("42-slept")).toBeGreaterThan(0);
    expect(text.indexOf("42-slept")).toBeLessThan(text.indexOf("echo $((7*8))-after"));
  });

  it("python -i running a subprocess: a follow-up is typed only once it has ended", async () => {
    const c = await setup();
    const job = await dispatch(c, "python", "import subprocess");
    await followUpWaits(c, job.id, 'subprocess.run(["sleep", "600"]).returncode', "print(6 * 9)");
    await untilRow(c, job.id, "the follow-up ran", (r) => r.summary === "54");
    const text = transcript(job.id);
    expect(text.indexOf("-15")).toBeGreaterThan(0); // the sleep's end, as Python prints it
    expect(text.indexOf("-15")).toBeLessThan(text.indexOf("print(6 * 9)"));
  });
});

describe("a full-screen program", () => {
  it("its screen as viewers see it is right after a redraw", async () => {
    const c = await setup();
    const file = path.join(d.env.HOME!, "numbers.txt");
    fs.writeFileSync(file, `${Array.from({ length: 500 }, (_, i) => `number ${i + 1}`).join("\n")}\n`);
    const job = await dispatch(c, "less", file);
    const first = await attachScreen(c, job.id);
    await until("less drew the top", async () => (await first.catchUp()).lines()[0] === "number 1");
    await c.ok("input", { id: job.id, data: "G" }); // to the end: a full redraw
    await until("the end drawn", async () => (await first.catchUp()).text().includes("number 500"));
    // A viewer that attaches now gets the redrawn screen, not the old one.
    const c2 = await d.client();
    const second = await attachScreen(c2, job.id);
    expect(second.text()).toContain("number 500");
    expect(second.text()).not.toContain("number 1\n");
    expect(second.lines().slice(0, -1)).toEqual((await first.catchUp()).lines().slice(0, -1));
    // The row is read from the same screen: less's status line at the bottom, after the redraw.
    const r = await untilRow(c, job.id, "the row from the redrawn screen", (x) => x.status === "idle");
    expect(r.summary).toBe("(END)");
    expect(r.kind).toBe("terminal");
  });
});

describe("attach", () => {
  it("replays the screen, streams output to several viewers, takes input and resize; detach leaves the job", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash", "echo before-attach");
    await untilRow(c, job.id, "ran", (r) => r.summary === "before-attach");
    const v1 = await attachScreen(c, job.id);
    expect(v1.text()).toContain("before-attach");
    const c2 = await d.client();
    const v2 = await attachScreen(c2, job.id);
    await c.ok("input", { id: job.id, data: "echo typed-$((2+3))\r" });
    for (const v of [v1, v2])
      await until("both see it", async () => /^typed-5$/m.test((await v.catchUp()).text()));
    await c.ok("resize", { id: job.id, cols: 91, rows: 33 });
    await c.ok("input", { id: job.id, data: "echo size-$(tput cols)x$(tput lines)\r" });
    await until("the new size", async () => (await v1.catchUp()).text().includes("size-91x33"));
    await c.ok("detach", { id: job.id });
    c2.close();
    expect((await row(c, job.id)).life).toBe("running");
    expect(isAlive(job.pid)).toBe(true);
    const err = await c.request("attach", { id: "j999" });
    expect(err.code).toBe("not_found");
  });

  it("tells the viewer when the job ends", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    await attachScreen(c, job.id);
    await c.ok("input", { id: job.id, data: "exit 5\r" });
    const detached = await c.event((e) => e.event === "detached" && e.id === job.id);
    expect(detached.why).toBe("exited with code 5");
  });
});

describe("respawn of a terminal job", () => {
  it("types its task again, as a new reply; a job dispatched without one gets none", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash", "echo ran >> runs.txt; echo runs-$(wc -l < runs.txt)");
    await untilRow(c, job.id, "the task ran", (r) => r.summary === "runs-1" && r.pending === 0);
    const { job: again } = await c.ok("respawn", { id: job.id });
    expect(again.pid).not.toBe(job.pid);
    expect(again.lastSeq).toBe(2); // the task, as reply 2
    const r = await untilRow(
      c,
      job.id,
      "the task ran again",
      (x) => x.summary === "runs-2" && x.pending === 0,
    );
    expect(r.pid).toBe(again.pid);
    const feed = (await c.ok("events", { id: job.id })).events.map((e: any) => [e.kind, e.text]);
    // The task typed again is a reply of its own in the feed (the first one was the dispatch's).
    expect(feed.filter(([kind]: string[]) => kind === "reply")).toHaveLength(1);
    expect(fs.readFileSync(path.join(d.env.HOME!, "runs.txt"), "utf8")).toBe("ran\nran\n");

    const bare = await dispatch(c, "bash");
    await untilRow(c, bare.id, "idle", (x) => x.status === "idle");
    const { job: bareAgain } = await c.ok("respawn", { id: bare.id });
    expect(bareAgain).toMatchObject({ lastSeq: 0, pending: 0 });
  });
});

describe("the job's size, with viewers of all sizes", () => {
  /** What `stty size` says in the job (rows, then columns), read from its row. */
  async function sttySize(c: RawClient, id: string): Promise<string> {
    await untilRow(c, id, "idle", (r) => r.status === "idle" && r.pending === 0);
    await c.ok("reply", { id, text: "stty size" });
    const r = await untilRow(c, id, "stty's answer", (x) => x.pending === 0 && /^\d+ \d+$/.test(x.summary));
    // Said again with a mark, so that an answer from before cannot pass for this one.
    await c.ok("reply", { id, text: "echo size-$(stty size | tr ' ' x)" });
    const marked = await untilRow(c, id, "the size", (x) => x.pending === 0 && /^size-/.test(x.summary));
    expect(marked.summary).toBe(`size-${r.summary.replace(" ", "x")}`);
    return r.summary;
  }

  it("a phone-sized viewer that leaves (detach, or its connection closed) leaves the job its own size", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    expect(await sttySize(c, job.id)).toBe("40 120");
    const phone = await d.client();
    await attachScreen(phone, job.id);
    await phone.ok("resize", { id: job.id, cols: 44, rows: 20 });
    expect(await sttySize(c, job.id)).toBe("20 44"); // alone, it has its size
    await phone.ok("detach", { id: job.id });
    expect(await sttySize(c, job.id)).toBe("40 120");
    const again = await d.client();
    await again.ok("resize", { id: job.id, cols: 44, rows: 20 }); // before it attaches, as roost attach does
    expect((await again.ok("attach", { id: job.id })).cols).toBe(44);
    again.close();
    expect(await sttySize(c, job.id)).toBe("40 120");
  });

  it("with a large and a small viewer, the job has the large one's size; each leaving gives it back", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    const large = await d.client();
    await attachScreen(large, job.id);
    await large.ok("resize", { id: job.id, cols: 200, rows: 30 });
    const phone = await d.client();
    await phone.ok("resize", { id: job.id, cols: 44, rows: 60 });
    const seen = await phone.ok("attach", { id: job.id });
    expect([seen.cols, seen.rows]).toEqual([200, 60]); // the largest of each
    expect(await sttySize(c, job.id)).toBe("60 200");
    const watcher = await d.client();
    await attachScreen(watcher, job.id); // watching only: it says no size
    large.close();
    expect(await sttySize(c, job.id)).toBe("60 44");
    await phone.ok("detach", { id: job.id });
    expect(await sttySize(c, job.id)).toBe("40 120");
  });

  it("a resize over HTTP (no view) sets the job's own size, which it returns to", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    expect((await api(d, "resize", { id: job.id, cols: 100, rows: 30 })).status).toBe(200);
    expect(await sttySize(c, job.id)).toBe("30 100");
    const phone = await d.client();
    await attachScreen(phone, job.id);
    await phone.ok("resize", { id: job.id, cols: 44, rows: 20 });
    expect(await sttySize(c, job.id)).toBe("20 44");
    phone.close();
    expect(await sttySize(c, job.id)).toBe("30 100");
  });
});

describe("the daemon killed under running jobs", () => {
  it("kill -9 with three terminal jobs and one protocol job: all live again, same pids, screens, input, the next reply once", async () => {
    const c = await setup();
    const terms = [];
    for (let i = 0; i < 3; i++) terms.push(await dispatch(c, "bash", `echo terminal-${i}-ready`));
    const agent = await dispatch(c, "agent", "task one");
    for (const [i, t] of terms.entries())
      await untilRow(c, t.id, "ready", (r) => r.summary === `terminal-${i}-ready`);
    await until("the agent took its task", () => handled(d, agent.id).length === 1);
    await d.kill("SIGKILL");
    await d.start();
    const c2 = await d.client();
    for (const [i, t] of terms.entries()) {
      const r = await untilRow(c2, t.id, "live", (x) => x.life === "running");
      expect(r.pid).toBe(t.pid);
      const view = await attachScreen(c2, t.id);
      expect(view.text()).toContain(`terminal-${i}-ready`);
      await c2.ok("input", { id: t.id, data: `echo after-restart-${i}\r` });
      await until("input works", async () => (await view.catchUp()).text().includes(`after-restart-${i}`));
      await untilRow(c2, t.id, "the row follows the screen", (x) => x.summary === `after-restart-${i}`);
    }
    const ar = await untilRow(
      c2,
      agent.id,
      "the agent reconnected",
      (x) => x.connected && x.life === "running",
    );
    expect(ar.pid).toBe(agent.pid);
    await c2.ok("reply", { id: agent.id, text: "after the restart" });
    await until("reply 2 handled", () => handled(d, agent.id).length === 2);
    await untilRow(c2, agent.id, "acked", (x) => x.pending === 0);
    expect(handled(d, agent.id).map((h) => h.seq)).toEqual([1, 2]);
  });

  it("a job that exits with 3 while the daemon is down shows exit code 3 after the restart", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    await untilRow(c, job.id, "idle", (r) => r.status === "idle");
    // It exits with 3 once the file exit-now exists: the test makes it while the daemon is down.
    await c.ok("reply", { id: job.id, text: "while [ ! -e exit-now ]; do sleep 0.05; done; exit 3" });
    await untilRow(c, job.id, "typed", (r) => r.pending === 0);
    expect(isAlive(job.pid)).toBe(true);
    await d.kill("SIGKILL");
    expect(isAlive(job.pid)).toBe(true); // it ends while the daemon is down, not before
    fs.writeFileSync(path.join(d.env.HOME!, "exit-now"), "");
    await untilGone(job.pid);
    await d.start();
    const c2 = await d.client();
    const r = await row(c2, job.id);
    expect(r.life).toBe("exited");
    expect(r.exitCode).toBe(3);
    expect(r.state).toBe("failed");
    expect(r.error).toBe("exited with code 3");
    const exits = (await c2.ok("events", { id: job.id })).events.filter((e: any) => e.kind === "exit");
    expect(exits).toHaveLength(1); // taken once
  });
});

describe("the pty host killed", () => {
  it("its jobs are failed with a reason, a new host serves new jobs, respawn brings the old ones back", async () => {
    const c = await setup();
    const a = await dispatch(c, "bash", "echo first");
    await untilRow(c, a.id, "ran", (r) => r.summary === "first");
    const host = d.ptyHostPid()!;
    process.kill(host, "SIGKILL");
    const failed = await untilRow(c, a.id, "failed", (r) => r.life === "exited" && r.state === "failed");
    expect(failed.error).toMatch(/terminal is gone/);
    const b = await dispatch(c, "bash", "echo on-the-new-host");
    await untilRow(c, b.id, "ran", (r) => r.summary === "on-the-new-host");
    expect(d.ptyHostPid()).not.toBe(host);
    const { job } = await c.ok("respawn", { id: a.id });
    expect(job.life).toBe("running");
    await c.ok("reply", { id: a.id, text: "echo back-again" });
    await untilRow(c, a.id, "back", (r) => r.summary === "back-again");
  });

  it("a dispatch sent the moment it is killed starts on the next host (five times); the daemon's log says so each time", async () => {
    const c = await setup();
    for (let round = 1; round <= 5; round++) {
      const host = d.ptyHostPid()!;
      process.kill(host, "SIGKILL");
      // Sent at once: the daemon may not yet have seen its link to the host close.
      const job = await dispatch(c, "bash", `echo round-${round}`);
      const r = await untilRow(
        c,
        job.id,
        "ran or failed",
        (x) => x.summary === `round-${round}` || x.life === "exited",
      );
      expect(r).toMatchObject({ life: "running", summary: `round-${round}` });
      expect(d.ptyHostPid()).not.toBe(host);
    }
    await until("the log's lines", () => d.output.split("the pty host went away").length - 1 === 5);
  });

  it("killed again while the next one starts: the search for its jobs goes on; a reply meanwhile starts the job again", async () => {
    const c = await setup();
    const a = await dispatch(c, "bash", "echo first");
    await untilRow(c, a.id, "ran", (r) => r.summary === "first");
    const first = d.ptyHostPid()!;
    process.kill(first, "SIGKILL");
    // The next host (the daemon's child), killed before it listens: the daemon's connect to it
    // fails, and with it the search for the first host's jobs, which once left them "running".
    const second = await until("the next host started", () => startingHost(d.pid, first), 30_000);
    process.kill(second, "SIGKILL");
    // A reply now, before the search has gone through: to a job that has in fact ended. As any
    // reply to an ended job, it starts the job again (it once waited for the next reply).
    await c.ok("reply", { id: a.id, text: "echo in-the-gap" });
    const back = await untilRow(
      c,
      a.id,
      "the reply run on a new host",
      (r) => r.summary === "in-the-gap",
      30_000,
    );
    expect(back.life).toBe("running");
    expect([first, second]).not.toContain(d.ptyHostPid());
    // Where the faults were meant to land: the second host never listened, the search failed
    // once, and the reply came before the job was known to have ended.
    expect(fs.readFileSync(path.join(d.home, "pty.log"), "utf8")).not.toContain(
      `pty-host[${second}] listening`,
    );
    expect(d.output).toMatch(/pty host lost: pty host exited as it started.*looking for its jobs again/);
    const feed = (await c.ok("events", { id: a.id })).events.map((e: { kind: string; text: string }) =>
      e.kind === "reply" ? `reply ${e.text}` : e.kind,
    );
    const gap = feed.indexOf("reply echo in-the-gap");
    expect(feed.slice(gap)).toEqual(["reply echo in-the-gap", "exit", "start"]);
  });

  it("a connected agent whose job ended with it: its connection ends at once; a report on a new one is unauthorized", async () => {
    const c = await setup();
    const job = await dispatch(c, "bash");
    const { agent, token } = await rawAgent(d, c, job.id);
    process.kill(d.ptyHostPid()!, "SIGKILL");
    await untilRow(c, job.id, "failed with its host", (r) => r.life === "exited");
    await agent.closed; // not left waiting for a next report to learn it
    const again = await d.client();
    const r = await again.request("report", { id: job.id, token, report: { state: "working" } });
    expect(r).toMatchObject({ ok: false, code: "unauthorized" });
  });

  it("with its jobs while the daemon is down (a reboot): the daemon starts, the job is failed, its terminal gone; respawn works", async () => {
    const c = await setup();
    const a = await dispatch(c, "bash", "echo before-the-reboot");
    await untilRow(c, a.id, "ran", (r) => r.summary === "before-the-reboot");
    const host = d.ptyHostPid()!;
    await d.kill("SIGKILL");
    expect(isAlive(host)).toBe(true);
    expect(isAlive(a.pid)).toBe(true);
    // A reboot ends everything at once: the host is frozen first, so that it cannot write the
    // exit.json of the jobs killed next (it would, in the moment between, and the daemon would
    // then say how each exited, as it does for a job that exits while it is down).
    process.kill(host, "SIGSTOP");
    killPtyHost(d.home); // the jobs, then the host (SIGKILL ends a stopped process too)
    await untilGone(a.pid);
    await untilGone(host);
    expect(fs.existsSync(path.join(d.home, "jobs", a.id, "exit.json")), "an exit recorded").toBe(false);
    await d.start();
    const c2 = await d.client();
    const failed = await row(c2, a.id);
    expect(failed).toMatchObject({ life: "exited", state: "failed", pid: null });
    expect(failed.error).toMatch(/terminal is gone/);
    expect(d.ptyHostPid()).not.toBe(host);
    const { job } = await c2.ok("respawn", { id: a.id });
    expect(job.life).toBe("running");
    expect(job.pid).not.toBe(a.pid);
    await c2.ok("reply", { id: a.id, text: "echo after-the-reboot" });
    await untilRow(c2, a.id, "back", (r) => r.summary === "after-the-reboot");
  });
});
