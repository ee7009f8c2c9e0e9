/**
 * Terminal agents, for real: programs in real pseudo-terminals held by the pty host, their tasks
 * and replies typed into them (a steer at once, a follow-up once the program is idle), their rows
 * read from their screens, questions (y/n) and prompts turning them blocked until answered, and
 * commands that print nothing holding a follow-up back until they end. One daemon for the file
 * (helpers/terminal-jobs.ts): each test its own jobs, client and directory. What a viewer sees
 * and does is in terminals-screens.test.ts; the daemon and the pty host killed, in
 * terminals-restart.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { needsYou } from "../../sdk/ts/protocol/index.js";
import { until } from "../helpers/daemon.js";
import { row, stepProcess, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { attachScreen } from "../helpers/screen.js";
import { sharedTerminals } from "../helpers/terminal-jobs.js";
import { quietSpellsPassed } from "../helpers/waits.js";

const t = sharedTerminals();

describe("a bash terminal job", () => {
  it("has its task typed and run, its output on the row, and a reply typed later runs too", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash", "echo task-says-$((40+2))");
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
    const { c } = t;
    const job = await t.dispatch(c, "bash");
    await untilRow(c, job.id, "idle", (r) => r.status === "idle");
    await c.ok("reply", { id: job.id, text: "echo one > lines.txt\necho two >> lines.txt" });
    const file = path.join(t.cwd, "lines.txt");
    await until(
      "both lines run",
      () => fs.existsSync(file) && fs.readFileSync(file, "utf8") === "one\ntwo\n",
    );
  });

  it("types a steer reply at once and a follow-up only once the agent is idle", async () => {
    // A bash whose quiet spell is 3 s: a loaded machine's pause is not taken for idleness.
    const { c } = t;
    const job = await t.dispatch(c, "bash-slow-quiet");
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
    fs.writeFileSync(path.join(t.cwd, "stop-ticking"), "");
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
    const { c } = t;
    const job = await t.dispatch(c, "ask");
    const blocked = await untilRow(c, job.id, "blocked", (r) => r.state === "blocked");
    expect(blocked.question).toBe("Continue? (y/n)");
    expect(blocked.choices).toEqual(["y", "n"]);
    expect(blocked.waitingFor).toBe("question");
    const feed = (await c.ok("events", { id: job.id })).events;
    expect(feed.some((e: any) => e.kind === "state" && e.text === "blocked: Continue? (y/n)")).toBe(true);
    // The question read from its screen moved `asked`: an answer drawn before it is refused.
    expect(blocked.asked).toBeGreaterThan(0);
    expect((await c.request("reply", { id: job.id, text: "y", ifAsked: blocked.asked - 1 })).code).toBe(
      "conflict",
    );
    await c.ok("reply", { id: job.id, text: "y", ifAsked: blocked.asked });
    const after = await untilRow(c, job.id, "going on", (r) => r.summary === "going on: step two");
    expect(after.state).toBe("working");
    expect(after.question).toBeNull();
    expect(after.asked).toBeGreaterThan(blocked.asked + 1); // answered, then its question gone
  });

  it("a profile's own blockedPattern marks its question", async () => {
    // The profile (terminal-jobs.ts): sh printing "Apply these 3 edits? Press enter to accept",
    // with that as its blockedPattern.
    const { c } = t;
    const job = await t.dispatch(c, "custom");
    const r = await untilRow(c, job.id, "blocked", (x) => x.state === "blocked");
    expect(r.question).toBe("Apply these 3 edits? Press enter to accept");
    expect(r.choices).toBeNull();
  });
});

describe("a question answered at its prompt", () => {
  it("bash's read -p: blocked with the question, then working again once y is typed", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash", 'read -p "Continue? (y/n) " answer');
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
    const { c } = t;
    const job = await t.dispatch(c, "python", 'x = input("Overwrite file? [Y/n] ")');
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
  const transcript = (id: string) =>
    fs.readFileSync(path.join(t.d.home, "jobs", id, "transcript.log"), "utf8");

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
    await quietSpellsPassed(c, (await t.dispatch(c, "bash")).id, 4);
    expect(await row(c, id)).toMatchObject({ pending: 1, status: "busy" });
    expect(transcript(id)).not.toContain(followUp);
    process.kill(sleeper, "SIGTERM");
    await untilRow(c, id, "the follow-up typed", (r) => r.pending === 0);
  }

  it("sleep typed into a shell: a follow-up is typed only once it has ended", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash");
    await followUpWaits(c, job.id, "sleep 600; echo $((6*7))-slept", "echo $((7*8))-after");
    await untilRow(c, job.id, "the follow-up ran", (r) => r.summary === "56-after");
    const text = transcript(job.id);
    expect(text.indexOf("42-slept")).toBeGreaterThan(0);
    expect(text.indexOf("42-slept")).toBeLessThan(text.indexOf("echo $((7*8))-after"));
  });

  it("python -i running a subprocess: a follow-up is typed only once it has ended", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "python", "import subprocess");
    await followUpWaits(c, job.id, 'subprocess.run(["sleep", "600"]).returncode', "print(6 * 9)");
    await untilRow(c, job.id, "the follow-up ran", (r) => r.summary === "54");
    const text = transcript(job.id);
    expect(text.indexOf("-15")).toBeGreaterThan(0); // the sleep's end, as Python prints it
    expect(text.indexOf("-15")).toBeLessThan(text.indexOf("print(6 * 9)"));
  });

  it("python -i started by a launcher that waits on it: idle at its prompt; a subprocess of its own still holds a follow-up", async () => {
    const { c } = t;
    // The launcher's child is the program (server/pty/processes.ts, `launched`): else, on the
    // terminal in the launcher's group, it would count as a command at work, and the job never idle.
    const job = await t.dispatch(c, "launched-python", "import subprocess");
    await followUpWaits(c, job.id, 'subprocess.run(["sleep", "600"]).returncode', "print(6 * 9)");
    const done = await untilRow(
      c,
      job.id,
      "the follow-up ran, its turn",
      (r) => r.summary === "54" && r.view === "your turn",
    );
    expect(done.status).toBe("idle");
  });
});
