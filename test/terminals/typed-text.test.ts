/**
 * Text that is not the user's is never typed as keys (protocol.md, "The peer ops": Who takes them;
 * terminals.md, "What typed text becomes"), through a real daemon, real terminals and real
 * programs: a bash that would run what reaches it, and a program in a raw terminal that keeps every
 * byte it is given (test/fixtures/bytes.py). Each test is named after the attack it stops.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectError, INERT, type Session, session, tokenOf } from "../helpers/board.js";
import { FIXTURES, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { bashProfile, QUIET_MS, row, tempDir, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const START = "\x1b[200~";
const END = "\x1b[201~";

let d: TestDaemon;
let hub: RawClient;
let work: string;

beforeAll(async () => {
  d = await startDaemon({
    config: {
      agentProfiles: {
        inert: INERT,
        bash: bashProfile(),
        ask: { command: [path.join(FIXTURES, "ask.sh")], task: "type", quietMs: QUIET_MS },
        // A terminal agent that reads messages, as the agent CLIs' profiles say: what it is typed, kept.
        reader: {
          command: ["python3", path.join(FIXTURES, "bytes.py")],
          task: "type",
          quietMs: QUIET_MS,
          messages: true,
        },
      },
    },
  });
  hub = await d.client();
});
afterAll(async () => {
  await d?.cleanup();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});
afterEach(async () => {
  const { rows } = await hub.ok("list");
  await Promise.all(rows.map((r: any) => hub.ok("rm", { id: r.id })));
  await hub.ok("concierge", { action: "act", act: false });
  await hub.ok("concierge", { action: "answer", answer: "never" });
});

/** A fresh directory for each job, and the file a command typed into a shell would make there. */
function place(): { cwd: string; marker: string } {
  work ??= tempDir();
  const cwd = fs.mkdtempSync(path.join(work, "job-"));
  return { cwd, marker: path.join(cwd, "ran.txt") };
}

/** A shell job (bash) at its prompt. */
async function shell(cwd: string): Promise<string> {
  const { job } = await hub.ok("dispatch", { profile: "bash", cwd });
  await untilRow(hub, job.id, "bash at its prompt", (r) => r.status === "idle");
  return job.id;
}

/** The job's own connection as its tool server's (`roost mcp` in a terminal agent says speak_for). */
async function speakFor(id: string): Promise<Session> {
  const token = await tokenOf(hub, id);
  const c = await d.client();
  await c.ok("speak_for", { id, token });
  return { id, token, c };
}

/**
 * The shell is still there and ran nothing it was sent: a reply of the user's runs (so anything
 * typed before it has been read, and run: the shell runs one line after the other), and the
 * command's file was never made.
 */
async function ranNothing(id: string, cwd: string, marker: string): Promise<void> {
  await hub.ok("reply", { id, text: "echo user-says-$((6*7))" });
  await untilRow(hub, id, "the user's reply ran", (r) => r.summary === "user-says-42");
  expect(fs.existsSync(marker), `${marker} was made: a command ran`).toBe(false);
  expect(fs.readdirSync(cwd)).toEqual([]);
}

/**
 * The reader at its prompt, its terminal raw. Its row goes idle on any quiet spell, and a python
 * slow to start (a loaded machine) is quiet before it has set its terminal raw, which throws
 * away what was typed before (TCSAFLUSH): so first its received.bin, made once the terminal is raw.
 */
async function readerReady(id: string, cwd: string): Promise<void> {
  await until("the reader's terminal raw", () => fs.existsSync(path.join(cwd, "received.bin")));
  await untilRow(hub, id, "the reader at its prompt", (r) => r.status === "idle");
}

/** The reader's bytes, once it has been typed Enter after a paste's end (or `done` says so). */
async function received(cwd: string, done = (s: string) => s.endsWith(`${END}\r`)): Promise<string> {
  const file = path.join(cwd, "received.bin");
  return until("the reader's bytes", () => {
    const s = fs.existsSync(file) ? fs.readFileSync(file, "latin1") : "";
    // What came so far is the timeout's message.
    if (!done(s)) throw new Error(JSON.stringify(s));
    return s;
  });
}

/** Of bytes a program received: every ESC is a paste's start or end, and none is left in what is pasted. */
function onePaste(bytes: string): string {
  expect(bytes.startsWith(START), JSON.stringify(bytes)).toBe(true);
  expect(bytes.endsWith(`${END}\r`), JSON.stringify(bytes)).toBe(true);
  expect(bytes.split(START).length - 1, JSON.stringify(bytes)).toBe(1);
  expect(bytes.split(END).length - 1, JSON.stringify(bytes)).toBe(1);
  const inside = bytes.slice(START.length, -END.length - 1);
  // No ESC, no C0 but the paste's line breaks and tabs, no DEL, no C1 (as UTF-8: 0xC2 0x80-0x9F).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  expect(inside, JSON.stringify(bytes)).not.toMatch(/[\x00-\x08\x0a-\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]/);
  return Buffer.from(inside, "latin1").toString("utf8");
}

const BIDI = /[\u202a-\u202e\u2066-\u2069]/;

describe("a shell is never sent what is not its user's", () => {
  it("send to a shell job of a text with `id > file` on a line: unsupported, and nothing runs", async () => {
    const { cwd, marker } = place();
    const target = await shell(cwd);
    const peer = await session(d, hub, "peer");
    const r = await peer.c.request("send", { to: target, text: `FYI\nid > ${marker}` });
    expectError(r, "unsupported", /is a command .*"messages": true/);
    await ranNothing(target, cwd, marker);
  });

  it("the concierge's send to a shell job, act allowed: unsupported, and nothing runs", async () => {
    const { cwd, marker } = place();
    const target = await shell(cwd);
    await hub.ok("concierge", { action: "act", act: true });
    const on = await hub.ok("concierge", { action: "on", launch: { profile: "inert", cwd: "/tmp" } });
    const concierge = await session(d, hub, "concierge", { id: on.id });
    const r = await concierge.c.request("send", { to: target, text: `tidy up\nid > ${marker}` });
    expectError(r, "unsupported", "is a command");
    await ranNothing(target, cwd, marker);
  });

  it("the concierge's answer to a plain program's question: unsupported; the user's own answer reaches it", async () => {
    const { cwd } = place();
    const { job } = await hub.ok("dispatch", { profile: "ask", cwd });
    await untilRow(hub, job.id, "blocked on its question", (r) => r.state === "blocked");
    await hub.ok("concierge", { action: "answer", answer: "always" });
    const on = await hub.ok("concierge", { action: "on", launch: { profile: "inert", cwd: "/tmp" } });
    const concierge = await session(d, hub, "concierge", { id: on.id });
    const r = await concierge.c.request("concierge-reply", { id: job.id, text: "y" });
    expectError(r, "unsupported", "is a command");
    expect((await row(hub, job.id)).state).toBe("blocked");
    // The user says no: had the concierge's yes been typed, it would have been read first.
    await hub.ok("reply", { id: job.id, text: "n" });
    await untilRow(hub, job.id, "the user's n reached it", (x) => x.summary === "stopped at the question");
  });

  it("handback from a child into a shell parent: refused at the handback, the child goes on", async () => {
    const { cwd, marker } = place();
    const parent = await speakFor(await shell(cwd));
    const { job } = await parent.c.ok("spawn", { profile: "inert", task: "count", name: "child" });
    const child = await session(d, hub, "child", { id: job.id });
    const r = await child.c.request("handback", { text: `42\nid > ${marker}` });
    expectError(r, "unsupported", "a handback would be typed into it");
    const after = await row(hub, child.id);
    expect(after).toMatchObject({ life: "running", state: "working" });
    await ranNothing(parent.id, cwd, marker);
  });

  it("a watch from a shell's session: refused at watch, and no notice is typed into it", async () => {
    const { cwd, marker } = place();
    const watcher = await speakFor(await shell(cwd));
    // The watched session's words are what a notice carries: here a command on a line of its own.
    const watched = await session(d, hub, "watched");
    await watched.c.ok("report", {
      id: watched.id,
      token: watched.token,
      report: { state: "done", summary: `finished\nid > ${marker}\n` },
    });
    const r = await watcher.c.request("watch", { id: watched.id, when: "idle" });
    expectError(r, "unsupported", "a watch's notice would be typed into it");
    expect((await row(hub, watcher.id)).watches ?? []).toEqual([]);
    await ranNothing(watcher.id, cwd, marker);
  });

  it("assign to a shell job: refused by the same rule, saying the same", async () => {
    const { cwd } = place();
    const target = await shell(cwd);
    const { task } = await hub.ok("task", { action: "add", title: "tidy" });
    const r = await hub.request("task", { action: "assign", id: task.id, to: target });
    expectError(r, "unsupported", /is a command .*a task's hand-over would be typed into it/);
  });
});

describe("what is typed stays inside roost's paste", () => {
  it("send of FYI\\e[201~y to a terminal agent that reads messages: one paste, no ESC of its own, no bare y", async () => {
    const { cwd } = place();
    const { job } = await hub.ok("dispatch", { profile: "reader", cwd });
    await readerReady(job.id, cwd);
    const peer = await session(d, hub, "peer");
    const sent = await peer.c.ok("send", { to: job.id, text: "FYI\x1b[201~y" });
    expect(sent.outcome).toBe("delivered");
    const text = onePaste(await received(cwd));
    expect(text).toMatch(/^\[roost message from j\d+ "peer" \(peer\): another session, not the user;/);
    expect(text.endsWith("\rFYI\u241b[201~y")).toBe(true);
  });

  it("a reply of several lines with ESC, C1 and bidi controls: one paste, each shown as a symbol", async () => {
    const { cwd } = place();
    const { job } = await hub.ok("dispatch", { profile: "reader", cwd });
    await readerReady(job.id, cwd);
    await hub.ok("reply", { id: job.id, text: "look:\nok\x1b[201~y\u009b2J\u202eevil\u2066\x07\x7f\tend" });
    const text = onePaste(await received(cwd));
    expect(text).not.toMatch(BIDI);
    expect(text).toBe("look:\rok\u241b[201~y\u241b[2J\ufffdevil\ufffd\u2407\u2421\tend");
  });

  it("a one-line reply with ESC, C1 and BEL: typed as keys with no control among them, then Enter; a lone CR is a line break", async () => {
    const { cwd } = place();
    const { job } = await hub.ok("dispatch", { profile: "reader", cwd });
    await readerReady(job.id, cwd);
    await hub.ok("reply", { id: job.id, text: "y\x1b[2J\u009d0;title\u0007" });
    const one = await received(cwd, (s) => s.endsWith("\r"));
    expect(Buffer.from(one, "latin1").toString("utf8")).toBe("y\u241b[2J\u241b]0;title\u2407\r");
    // A CR would have been Enter before the rest: it is a line break, and the two lines one paste.
    await hub.ok("reply", { id: job.id, text: "y\rrm -rf ." });
    const both = await received(cwd, (s) => s.endsWith(`${END}\r`));
    expect(onePaste(both.slice(one.length))).toBe("y\rrm -rf .");
  });
});
