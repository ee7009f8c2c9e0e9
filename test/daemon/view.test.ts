/**
 * One state word everywhere (docs/protocol.md, "A row": `view`): every state a row can be in,
 * made for real on one daemon, and its `view` the same in `list`, in a push, over HTTP's GET and in
 * `roost ls --json`, and the one `viewState` gives for that row. Then the words that are not "your
 * turn" though nothing runs: a parent `waiting` on its child, a protocol agent `starting`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { viewState } from "../../sdk/ts/protocol/index.js";
import { json, needsBuild, roost } from "../helpers/cli.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { api } from "../helpers/http.js";
import { bashProfile, procEnv, row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const INERT = { command: ["sleep", "600"], task: "type", protocol: true };

let d: TestDaemon;
let hub: RawClient;
let sub: RawClient;

beforeAll(async () => {
  needsBuild();
  d = await startDaemon({ config: { agentProfiles: { inert: INERT, bash: bashProfile() } } });
  hub = await d.client();
  sub = await d.client();
  await sub.ok("subscribe", {});
});
afterAll(async () => d?.cleanup());

interface Session {
  id: string;
  token: string;
  c: RawClient;
}

/** An inert protocol job, spoken for by a raw client that reports `report` first. */
async function session(name: string, report: Record<string, unknown>): Promise<Session> {
  const id = (await hub.ok("dispatch", { profile: "inert", name })).job.id;
  const r = await untilRow(hub, id, "running with a pid", (x) => x.life === "running" && x.pid);
  const token = await until(`${id}'s token`, () => {
    const env = procEnv(r.pid);
    return env.ROOST_JOB_ID === id ? env.ROOST_JOB_TOKEN : undefined;
  });
  const c = await d.client();
  await c.ok("hello", {
    protocol: 1,
    agent: { name: "raw", version: "0" },
    capabilities: ["replies", "agent-items", "peers"],
  });
  await c.ok("report", { id, token, report: { summary: name, agentItems: true, ...report } });
  return { id, token, c };
}

/** The job's `view` as each face gives it, once `list` shows `word`: they must all be `word`. */
async function viewsOf(id: string, word: string): Promise<Record<string, string>> {
  const listed = await untilRow(hub, id, `shown ${word}`, (r) => r.view === word);
  // The job's last push, once it says what list does (pushes follow the change within a turn).
  const pushed = await sub.waitFor(() => {
    const last = sub.events.findLast((e) => e.event === "row" && e.row.id === id)?.row;
    return last?.view === word ? last : undefined;
  }, `${id}'s push saying ${word}`);
  const got = await api(d, "list", { id }, { method: "GET" });
  const http = (got.body as { result: { rows: any[] } }).result.rows[0];
  const cli = (await json(["ls", id, "--json"], d.env)).rows[0];
  return {
    list: listed.view,
    push: pushed.view,
    http: http.view,
    cli: cli.view,
    viewState: viewState(listed),
  };
}

const same = (word: string) => ({ list: word, push: word, http: word, cli: word, viewState: word });

describe("view: the one word, on every face", () => {
  it("is the same in list, a push, HTTP GET and roost ls --json, for every state", async () => {
    const ids: Record<string, string> = {};
    ids.blocked = (
      await session("asks", {
        state: "blocked",
        status: "waiting",
        waitingFor: "question",
        question: "Deploy now?",
        choices: ["yes", "no"],
      })
    ).id;
    ids.failed = (await session("broke", { state: "failed", status: "idle", error: "it broke" })).id;
    ids["your turn"] = (await session("rests", { state: "done", status: "idle" })).id;
    ids.working = (await session("works", { state: "working", status: "busy" })).id;
    // A protocol agent that has said only that it is starting (pi's first report) has not begun.
    ids.starting = (await session("wakes", { state: "working", status: "waiting" })).id;
    const parent = await session("parent", { state: "working", status: "busy" });
    const child = (await parent.c.ok("spawn", { profile: "inert", task: "help", name: "child" })).job.id;
    await parent.c.ok("report", {
      id: parent.id,
      token: parent.token,
      report: { state: "done", status: "idle" },
    });
    ids.waiting = parent.id;
    ids.done = (await hub.ok("dispatch", { profile: "bash", task: "exit 0", name: "quits" })).job.id;
    const halted: string = (await hub.ok("dispatch", { profile: "inert", name: "halted" })).job.id;
    await untilRow(hub, halted, "running", (r) => r.life === "running");
    await hub.ok("stop", { id: halted });
    ids.stopped = halted;

    for (const [word, id] of Object.entries(ids)) expect(await viewsOf(id, word), word).toEqual(same(word));
    expect((await row(hub, parent.id)).waitingOn).toEqual([child]);
    expect((await row(hub, ids["your turn"]!)).waitingOn).toEqual([]);

    // `roost ls --state` filters on it: each word (a space or a dash), and `idle` for "your turn".
    const named = async (...args: string[]) =>
      (await json(["ls", ...args, "--json"], d.env)).rows.map((r: { id: string }) => r.id).sort();
    expect(await named("--state", "waiting")).toEqual([parent.id]);
    expect(await named("--state", "your turn")).toEqual([ids["your turn"]]);
    expect(await named("--state", "your-turn")).toEqual([ids["your turn"]]);
    expect(await named("--state", "idle")).toEqual([ids["your turn"]]);
    expect(await named("--state", "starting")).toContain(ids.starting);
    const bad = await roost(["ls", "--state", "resting"], d.env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("your-turn, waiting, working, starting");

    // The feed names the word the row shows: "your turn", never "done", for an agent still running.
    const { events: entries } = await hub.ok("events", { limit: 1000 });
    const said = entries.filter((e: any) => e.kind === "state" && e.id === ids["your turn"]);
    expect(said.map((e: any) => e.text)).toEqual(["your turn: rests"]);
  });
});

/** The `deliver` events a session got, in order. */
const deliveries = (s: Session) => s.c.events.filter((e) => e.event === "deliver" && e.id === s.id);

describe("no false your turn", () => {
  it("a parent resting while its child works is waiting on it, and your turn once it hands back or ends", async () => {
    const parent = await session("planner", { state: "working", status: "busy" });
    const a = (await parent.c.ok("spawn", { profile: "inert", task: "first half", name: "half-a" })).job.id;
    const b = (await parent.c.ok("spawn", { profile: "inert", task: "second half", name: "half-b" })).job.id;
    // "waiting for helpers": as example_agent.py says it, its status `waiting`.
    await parent.c.ok("report", {
      id: parent.id,
      token: parent.token,
      report: { state: "working", status: "waiting", summary: "waiting for helpers" },
    });
    const waiting = await untilRow(hub, parent.id, "waiting on both", (r) => r.view === "waiting");
    expect(waiting.waitingOn).toEqual([a, b]);
    expect(await viewsOf(parent.id, "waiting")).toEqual(same("waiting"));
    expect((await json(["ls", "--state", "idle", "--json"], d.env)).rows.map((r: any) => r.id)).not.toContain(
      parent.id,
    );

    // One hands back (done): the parent still waits on the other.
    const token = await until(`${a}'s token`, async () => {
      const r = await row(hub, a);
      const env = r.pid ? procEnv(r.pid) : {};
      return env.ROOST_JOB_ID === a ? env.ROOST_JOB_TOKEN : undefined;
    });
    const child = await d.client();
    await child.ok("hello", { protocol: 1, agent: { name: "raw", version: "0" }, capabilities: ["replies"] });
    await child.ok("report", { id: a, token, report: { state: "working", status: "busy" } });
    await child.ok("handback", { text: "first half done" });
    await untilRow(hub, parent.id, "waiting on the other", (r) => r.waitingOn.length === 1);
    expect((await row(hub, parent.id)).waitingOn).toEqual([b]);
    expect((await row(hub, parent.id)).view).toBe("waiting");

    // The other ends (stopped): the parent's turn is the user's again.
    await hub.ok("stop", { id: b });
    const turn = await untilRow(hub, parent.id, "your turn", (r) => r.view === "your turn");
    expect(turn.waitingOn).toEqual([]);
    expect(await viewsOf(parent.id, "your turn")).toEqual(same("your turn"));
  });

  it("a protocol agent that has not begun is starting, and a watch {when: idle} on it waits for a rest after work", async () => {
    const watcher = await session("watcher", { state: "working", status: "busy" });
    const { job } = await watcher.c.ok("spawn", { profile: "inert", task: "look around", name: "newborn" });
    // Before its first report (its screen read): starting, not your turn.
    expect((await row(hub, job.id)).view).toBe("starting");
    expect((await watcher.c.ok("watch", { id: job.id, when: "idle" })).fired).toBe(false);

    const token = await until(`${job.id}'s token`, async () => {
      const r = await row(hub, job.id);
      const env = r.pid ? procEnv(r.pid) : {};
      return env.ROOST_JOB_ID === job.id ? env.ROOST_JOB_TOKEN : undefined;
    });
    const agent = await d.client();
    await agent.ok("hello", { protocol: 1, agent: { name: "raw", version: "0" }, capabilities: ["replies"] });
    const say = (report: Record<string, unknown>) =>
      agent.ok("report", { id: job.id, token, report: { summary: "newborn", ...report } });
    // pi's first report: working, waiting, nothing done. Still starting; the watch holds.
    await say({ state: "working", status: "waiting" });
    expect(await viewsOf(job.id, "starting")).toEqual(same("starting"));
    expect((await row(hub, job.id)).begun).toBe(false);
    await say({ state: "working", status: "busy", summary: "reading" });
    expect((await row(hub, job.id)).view).toBe("working");
    await say({ state: "done", status: "idle", summary: "read it all" });
    // The watch's first and only notice is the rest after the work.
    const notice = await watcher.c.waitFor(() => deliveries(watcher)[0], "the watch's notice");
    expect(notice.text).toContain(`${job.id} "newborn" is your turn: read it all (your watch: idle)`);
    expect(deliveries(watcher)).toHaveLength(1);
  });
});

describe("after a daemon restart", () => {
  it("a parent that said it waits for its helpers is still waiting on them, not starting", async () => {
    const parent = await session("keeper", { state: "working", status: "busy" });
    const { job } = await parent.c.ok("spawn", { profile: "inert", task: "keep at it", name: "kept" });
    await parent.c.ok("report", {
      id: parent.id,
      token: parent.token,
      report: { state: "working", status: "waiting", summary: "waiting for helper" },
    });
    await untilRow(hub, parent.id, "waiting", (r) => r.view === "waiting");
    await d.restart();
    hub = await d.client();
    const after = await row(hub, parent.id);
    expect(after).toMatchObject({ view: "waiting", waitingOn: [job.id], begun: true });
  });
});
