/**
 * `roost tasks`: the built CLI against a real daemon. The board as a table (blocked tasks marked,
 * who holds or did each, a done one's result), `add` with --detail and --after, `assign` to a
 * session (an inert protocol job spoken for by a raw client, which gets the message), `drop`,
 * --json, and each wrong command line told what to fix before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import { deliveries, INERT, type Session, session } from "../helpers/board.js";
import { json, needsBuild, ok, PLAIN_SHELL, roost } from "../helpers/cli.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import type { RawClient } from "../helpers/raw-client.js";

beforeAll(needsBuild);

let d: TestDaemon;
let hub: RawClient;
let worker: Session;
beforeAll(async () => {
  d = await startDaemon({ env: PLAIN_SHELL, config: { agentProfiles: { inert: INERT } } });
  hub = await d.client();
  worker = await session(d, hub, "worker");
});
afterAll(async () => d?.cleanup());

const env = () => ({ ...d.env, COLUMNS: "160" });

describe("roost tasks", () => {
  it("an empty board says how to add one", async () => {
    expect(await ok(["tasks"], env())).toBe(
      'no tasks yet: try `roost tasks add "write the release notes"`\n',
    );
    expect(await json(["tasks"], env())).toEqual({ tasks: [] });
  });

  it("add, then the table: blocked ones marked, the holder and the doer named, a done one's result", async () => {
    expect(await ok(["tasks", "add", "build", "the", "tarball", "--detail", "npm pack"], env())).toBe(
      'added #1 "build the tarball"\n',
    );
    expect(await ok(["tasks", "add", "write the notes"], env())).toBe('added #2 "write the notes"\n');
    expect(await ok(["tasks", "add", "publish", "--after", "1,#2"], env())).toBe(
      'added #3 "publish", after #1, #2\n',
    );
    const added = await json(["tasks", "add", "tell the team", "--after", "3"], env());
    expect(added.task).toMatchObject({
      id: 4,
      title: "tell the team",
      state: "open",
      after: [3],
      detail: null,
    });
    expect(added.tasks.map((t: any) => t.id)).toEqual([1, 2, 3, 4]);

    // The worker claims #1 and does #2.
    await worker.c.ok("task", { action: "claim", id: 1 });
    await worker.c.ok("task", { action: "claim", id: 2 });
    await worker.c.ok("task", { action: "done", id: 2, result: "notes in NEWS.md" });

    const [head, ...lines] = (await ok(["tasks"], env())).trimEnd().split("\n");
    expect(head).toMatch(/^ID +STATE +AFTER +WHO +TITLE$/);
    const who = `worker \\(${worker.id}\\)`;
    expect(lines[0]).toMatch(new RegExp(`^#1 +claimed +- +${who} +build the tarball$`));
    expect(lines[1]).toMatch(new RegExp(`^#2 +done +- +${who} +write the notes → notes in NEWS\\.md$`));
    expect(lines[2]).toMatch(/^#3 +blocked +#1,#2 +- +publish$/);
    expect(lines[3]).toMatch(/^#4 +blocked +#3 +- +tell the team$/);
    expect(lines).toHaveLength(4);

    // The feed says what happened to each (its why), `roost events` too.
    const events = await ok(["events"], env());
    expect(events).toMatch(/task +added #1 build the tarball \(user\)/);
    expect(events).toMatch(
      new RegExp(`${worker.id} +task +claimed #1 build the tarball \\(worker ${worker.id}\\)`),
    );
    expect(events).toMatch(/task +done #2 write the notes: notes in NEWS\.md/);

    const listed = await json(["tasks"], env());
    expect(listed.tasks[0]).toMatchObject({
      id: 1,
      state: "claimed",
      owner: { id: worker.id, name: "worker" },
    });
    expect(listed.tasks[0].detail).toBe("npm pack");
  });

  it("assign sends the session the task: it gets a message, the table says to whom", async () => {
    const { task } = await json(["tasks", "add", "rebase the branch"], env());
    const before = deliveries(worker).length;
    expect(await ok(["tasks", "assign", String(task.id), "worker"], env())).toBe(
      `#${task.id} "rebase the branch" sent to worker (${worker.id}): delivered\n`,
    );
    const got = await until("the worker's message", () => deliveries(worker)[before]);
    expect(got).toMatchObject({ kind: "message" });
    expect(got.text).toContain("rebase the branch");
    const line = (await ok(["tasks"], env())).split("\n").find((l) => l.startsWith(`#${task.id} `));
    expect(line).toMatch(
      new RegExp(`^#${task.id} +open +- +→ worker \\(${worker.id}\\) +rebase the branch$`),
    );
  });

  it("assign to a session it cannot reach (20 items waiting): not sent, saying why; the task stays open", async () => {
    const swamped = await session(d, hub, "swamped");
    for (let i = 0; i < LIMITS.peerItemsWaiting; i++)
      await worker.c.ok("send", { to: swamped.id, text: `item ${i}` });
    const { task } = await json(["tasks", "add", "no room for it"], env());
    const said = await ok(["tasks", "assign", String(task.id), swamped.id], env());
    expect(said).toContain(
      `#${task.id} "no room for it" not sent to ${swamped.id}: ${swamped.id} was not reached (full)`,
    );
    expect(said).toContain("20 peer items waiting");
    const line = (await ok(["tasks"], env())).split("\n").find((l) => l.startsWith(`#${task.id} `));
    expect(line).toMatch(new RegExp(`^#${task.id} +open +- +- +no room for it$`));
  });

  it("drop takes a task off the board: dropped, its dependants no longer wait on it", async () => {
    const first = (await json(["tasks", "add", "a step that is no longer needed"], env())).task.id;
    const next = (await json(["tasks", "add", "what came after it", "--after", String(first)], env())).task
      .id;
    expect(await ok(["tasks", "drop", `#${first}`], env())).toBe(
      `dropped #${first} "a step that is no longer needed"\n`,
    );
    const lines = (await ok(["tasks"], env())).split("\n");
    expect(lines.find((l) => l.startsWith(`#${first} `))).toMatch(/^#\d+ +dropped /);
    expect(lines.find((l) => l.startsWith(`#${next} `))).toMatch(/^#\d+ +open +#\d+ /);
    // Dropped already: the daemon's word, its code with --json.
    const again = await roost(["tasks", "drop", String(first), "--json"], env());
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toMatchObject({ ok: false, code: "bad_request" });
  });

  it("the daemon's refusals: an unknown after, an unknown session, a missing task", async () => {
    const unknownAfter = await roost(["tasks", "add", "x", "--after", "999"], env());
    expect(unknownAfter.code).toBe(1);
    expect(unknownAfter.stderr).toMatch(/^roost: .*999/);
    const nobody = await roost(["tasks", "assign", "1", "nobody-by-that-name", "--json"], env());
    expect(JSON.parse(nobody.stderr)).toMatchObject({ code: "not_found" });
    const missing = await roost(["tasks", "drop", "998", "--json"], env());
    expect(JSON.parse(missing.stderr).code).toMatch(/^(not_found|bad_request)$/);
  });

  it("a wrong command line: exit 64, what to fix and the usage, nothing sent", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["tasks", "frobnicate"],
        /no action "frobnicate": `roost tasks` lists the board; its actions are add, assign, drop/,
      ],
      [["tasks", "add"], /usage: roost tasks add TITLE \[--detail TEXT\] \[--after IDS\]/],
      [["tasks", "add", "x", "--after", "1,,2"], /--after takes IDs separated by commas, e.g. 1,2/],
      [["tasks", "add", "x", "--after", "one"], /each of --after's IDs is a number such as 3/],
      [["tasks", "assign", "1"], /usage: roost tasks assign ID JOB/],
      [
        ["tasks", "drop", "first"],
        /a task's ID is a number such as 3 \(`roost tasks` lists them\), not "first"/,
      ],
      [["tasks", "drop", "1", "--detail", "x"], /--detail and --after go with `roost tasks add`, not `drop`/],
      [["tasks", "--after", "1"], /--detail and --after go with `roost tasks add TITLE`/],
    ];
    const before = (await json(["tasks"], env())).tasks.length;
    for (const [args, said] of cases) {
      const r = await roost(args, env());
      expect(r.code, args.join(" ")).toBe(64);
      expect(r.stderr, args.join(" ")).toMatch(said);
      expect(r.stderr).toContain("usage: roost tasks [add TITLE | assign ID JOB | drop ID]");
    }
    expect((await json(["tasks"], env())).tasks.length).toBe(before);
  });

  it("--help: what each action does, with examples", async () => {
    const help = await ok(["tasks", "--help"], env());
    expect(help).toContain(
      "usage: roost tasks [add TITLE | assign ID JOB | drop ID] [--detail TEXT] [--after IDS] [--json]",
    );
    expect(help).toContain("assign ID JOB     sends the session");
    expect(help).toContain('roost tasks add "write the release notes" --after 1,2');
    expect(await ok(["help"], env())).toMatch(/^ {2}tasks +Show the task board/m);
  });
});
