/**
 * The WebSockets (docs/http.md, "The WebSockets"): `/api/subscribe` carries the socket's
 * pushes, a subscriber that never reads is dropped without slowing the others, and
 * `/api/jobs/<id>/terminal` streams a job's terminal and takes its input and resizes.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../helpers/daemon.js";
import { api, closeAllSockets, TestSocket, upgradeLines } from "../../helpers/http.js";
import { cleanDaemonPerTest, rawAgent, silentProfile, startCleanDaemonHere } from "../../helpers/jobs.js";

const setup = cleanDaemonPerTest(
  () => ({ agentProfiles: { silent: silentProfile() } }),
  startCleanDaemonHere,
);
afterEach(() => closeAllSockets());

describe("GET /api/subscribe", () => {
  it("answers with the rows, then carries the same pushes as subscribe on the socket", async () => {
    const { d, c } = await setup();
    const first = (await api(d, "dispatch", { profile: "silent", name: "before" })).body.result.job;
    const ws = await TestSocket.open(d, "/api/subscribe");
    const hello = await ws.next((m) => "ok" in m, "the rows");
    expect(hello.result.rows.map((r: any) => r.id)).toEqual([first.id]);
    await c.ok("subscribe");

    const job = (await api(d, "dispatch", { profile: "silent", name: "after", task: "go" })).body.result.job;
    const started = (e: any) => e.event === "feed" && e.entry.id === job.id && e.entry.kind === "start";
    await ws.next(started, "the job's start in the feed");
    await until("the socket subscriber's start", () => c.events.some(started));
    const feed = (events: any[]) => events.filter((e) => e.event === "feed").map((e) => e.entry);
    expect(feed(ws.messages)).toEqual(feed(c.events));
    expect(ws.messages.some((m) => m.event === "row" && m.row.id === job.id)).toBe(true);

    await api(d, "rm", { id: job.id });
    await ws.next((m) => m.event === "removed" && m.id === job.id, "the removal");
  });

  it("drops a subscriber that never reads, while another gets every push", async () => {
    const { d, c } = await setup();
    const { job } = await c.ok("dispatch", { profile: "silent" });
    const { agent, token } = await rawAgent(d, c, job.id);

    // The slow one: upgraded, then never read from again.
    const { hostname, port } = new URL(d.url);
    const slow = net.connect(Number(port), hostname);
    let slowClosed = false;
    slow.on("close", () => {
      slowClosed = true;
    });
    slow.on("error", () => {});
    await new Promise((r) => slow.once("connect", r));
    slow.write(
      `${upgradeLines("/api/subscribe", `${hostname}:${port}`, [`Authorization: Bearer ${d.token}`]).join("\r\n")}\r\n\r\n`,
    );
    slow.pause();

    const fast = await TestSocket.open(d, "/api/subscribe");
    await fast.next((m) => "ok" in m, "the rows");

    // Each report blocks on a new 2000-character question: a row push and a feed entry each,
    // about 3 KB: 8000 of them are well past the kernel's buffers and the 16 MiB unread limit.
    const question = (n: number) => `${String(n).padStart(6, "0")} ${"q".repeat(1990)}`;
    const reports = 8000;
    for (let n = 1; n <= reports; n++) {
      await agent.ok("report", {
        id: job.id,
        token,
        report: { state: "blocked", waitingFor: "question", question: question(n), summary: "s".repeat(500) },
      });
    }
    const last = question(reports);
    await fast.next((m) => m.event === "row" && m.row.question === last, "the last row", 60000);
    const states = fast.messages
      .filter((m) => m.event === "feed" && m.entry.kind === "state")
      .map((m) => m.entry);
    expect(states).toHaveLength(reports);
    const cursors = states.map((e: any) => e.cursor);
    expect(cursors).toEqual(cursors.map((_: number, i: number) => cursors[0] + i));

    // The slow one was cut off: what it can still read ends well short of what was pushed.
    let got = 0;
    slow.on("data", (chunk: Buffer) => {
      got += chunk.length;
    });
    slow.resume();
    await until("the slow subscriber's connection closed", () => slowClosed, 30000);
    expect(got).toBeLessThan(reports * 2500);
    // And the daemon goes on serving.
    expect((await api(d, "list")).body.ok).toBe(true);
  }, 180_000);
});

describe("GET /api/jobs/<id>/terminal", () => {
  it("draws the screen, streams the output, and types what is sent", async () => {
    const { d, c } = await setup();
    const { job } = await c.ok("dispatch", { profile: "shell" });
    const term = await TestSocket.open(d, `/api/jobs/${job.id}/terminal`);
    const first = await term.next((m) => "ok" in m, "the screen");
    expect(first.result).toMatchObject({ cols: expect.any(Number), rows: expect.any(Number) });
    expect(typeof first.result.screen).toBe("string");

    term.send({ op: "input", args: { data: "echo $((6*7))x\r" } });
    await until("42x in the output", () =>
      term.messages
        .filter((m) => m.event === "output")
        .map((m) => m.data)
        .join("")
        .includes("42x"),
    );
    term.send({ op: "resize", args: { cols: 101, rows: 33 } });
    await until("the terminal at 101×33, as a new viewer sees it", async () => {
      const view = await TestSocket.open(d, `/api/jobs/${job.id}/terminal`);
      const { result } = await view.next((m) => "ok" in m, "the screen");
      view.close();
      return result.cols === 101 && result.rows === 33;
    });
    // The screen again, on this same stream: at the new size, with what was typed, and the output
    // after it still streamed.
    term.send({ op: "attach" });
    const again = await term.next((m) => m.op === "attach", "the screen again");
    expect(again).toMatchObject({ ok: true, result: { cols: 101, rows: 33 } });
    expect(again.result.screen).toContain("42x");
    term.send({ op: "input", args: { data: "echo $((7*8))y\r" } });
    await until("56y in the output after it", () =>
      term.messages
        .slice(term.messages.indexOf(again))
        .filter((m) => m.event === "output")
        .map((m) => m.data)
        .join("")
        .includes("56y"),
    );
    // Nonsense is answered, and the viewer stays.
    term.send({ op: "rm", args: {} });
    expect((await term.next((m) => m.ok === false, "the refusal")).code).toBe("bad_request");
    term.send({ op: "resize", args: { cols: 1, rows: 1 } });
    expect((await term.next((m) => m.op === "resize", "the refusal")).code).toBe("bad_request");

    await c.ok("stop", { id: job.id });
    await term.next((m) => m.event === "detached", "detached when the job ends");
    await until("closed", () => term.closed);
  });

  it("says so, and closes, for a job that is not there or not running", async () => {
    const { d, c } = await setup();
    const missing = await TestSocket.open(d, "/api/jobs/j999/terminal");
    expect(await missing.next((m) => "ok" in m, "the answer")).toMatchObject({
      ok: false,
      code: "not_found",
    });
    await until("closed", () => missing.closed);

    const { job } = await c.ok("dispatch", { profile: "silent" });
    await c.ok("stop", { id: job.id });
    const stopped = await TestSocket.open(d, `/api/jobs/${job.id}/terminal`);
    expect(await stopped.next((m) => "ok" in m, "the answer")).toMatchObject({
      ok: false,
      code: "bad_request",
    });
  });
});
