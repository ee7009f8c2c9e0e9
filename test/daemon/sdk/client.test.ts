/** `pi-roost/client`: DaemonClient against a real daemon, through a restart. */
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { DaemonClient, type Subscribed } from "../../../sdk/ts/client/index.js";
import { OPS, type OpName, RoostError, SESSION_OPS } from "../../../sdk/ts/protocol/index.js";
import { startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { GIT_IDENTITY, head, makeRepo } from "../../helpers/git.js";

let d: TestDaemon;
let client: DaemonClient | undefined;
afterEach(async () => {
  client?.close();
  await d?.cleanup();
});

describe("DaemonClient", () => {
  it("speaks every hub op, typed; errors carry the wire's code", async () => {
    d = await startDaemon({ env: { SHELL: "/bin/bash", ...GIT_IDENTITY } });
    client = new DaemonClient({ socket: d.socket });
    const c = client;
    /** The hub ops this test spoke through the client: at the end, every one of the schema set. */
    const spoken = new Set<string>();
    const speak = <T>(op: OpName, run: () => Promise<T>): Promise<T> => {
      spoken.add(op);
      return run();
    };

    const { job } = await speak("dispatch", () =>
      c.dispatch({ profile: "shell", task: "echo from-the-client", cwd: d.env.HOME! }),
    );
    expect(job.id).toBe("j1");
    const id = job.id;
    await speak("rename", () => c.rename(id, "named"));
    await speak("pin", () => c.pin(id));
    await speak("reorder", () => c.reorder([id]));
    const { rows } = await speak("list", () => c.list());
    expect(rows[0]).toMatchObject({ id: "j1", name: "named", pinned: true });
    expect((await speak("reply", () => c.reply({ id, text: "echo replied" }))).seq).toBe(2);
    await until("the reply typed", async () => (await c.call("pending", { id })).replies.length === 0);
    expect(await speak("pending", () => c.call("pending", { id }))).toEqual({ replies: [] });
    await speak("resize", () => c.resize(id, 100, 30));
    const screen = await speak("attach", () => c.call("attach", { id }));
    expect([screen.cols, screen.rows]).toEqual([100, 30]);
    expect(await speak("input", () => c.input(id, "echo typed-$((2+2))\r"))).toEqual({});
    await until("the typing run", async () => (await c.list(id)).rows[0]?.summary === "typed-4");
    expect(await speak("detach", () => c.call("detach", { id }))).toEqual({});
    const err = await speak("stop", () => c.stop("j404")).catch((e) => e);
    expect(err).toBeInstanceOf(RoostError);
    expect(err.code).toBe("not_found");
    const sub = c.subscribe();
    spoken.add("subscribe");
    const first = await sub.next();
    expect(first.value).toMatchObject({ event: "rows" });
    await sub.return?.();
    const { events } = await speak("events", () => c.events({ id }));
    expect(events.map((e) => e.kind)).toEqual(["dispatch", "start", "rename", "reply"]);
    // A shell streams no conversation: an empty one, not an error.
    expect((await speak("conversation", () => c.conversation(id))).entries).toEqual([]);
    expect((await speak("profiles", () => c.profiles())).profiles.map((p) => p.name)).toContain("shell");
    expect(await speak("whoami", () => c.whoami())).toMatchObject({ token: null, readOnly: false });
    const budgeted = await speak("budget", () => c.budget({ id, cost: 5 }));
    expect(budgeted).toMatchObject({ continued: false, job: { id, budget: { own: { cost: 5 } } } });
    const spend = await speak("spend", () => c.spend(3));
    expect(spend.days.every((day) => day.day <= spend.today)).toBe(true);
    expect(spend.limits).toEqual({});
    const { task } = await speak("task", () => c.task({ action: "add", title: "from the client" }));
    expect(task).toMatchObject({ id: 1, state: "open", by: { who: "user", whoId: null } });
    const made = await speak("token", () => c.token({ action: "create", name: "dash", readOnly: true }));
    expect(made.link).toMatch(new RegExp(`^${d.url}login\\?token=`));
    expect((await c.token({ action: "list" })).tokens).toEqual([made.token]);
    expect(await speak("remotes-reload", () => c.remotesReload())).toEqual({ remotes: [] });
    expect(await speak("notify-test", () => c.notifyTest())).toEqual({ hooks: [] }); // none in roost.json
    const { schedule } = await speak("schedule-add", () =>
      c.scheduleAdd({
        when: "daily 07:00",
        launch: { profile: "shell", task: "echo scheduled", cwd: d.env.HOME! },
      }),
    );
    expect(schedule).toMatchObject({ id: "s1", words: "every day at 07:00", runs: [] });
    expect((await speak("schedules", () => c.schedules())).schedules).toEqual([schedule]);
    expect((await speak("schedule-when", () => c.scheduleWhen("every 2h", 2))).next).toHaveLength(2);
    expect(await speak("schedule-pause", () => c.schedulePause("s1"))).toEqual({});
    const { job: ran } = await speak("schedule-run", () => c.scheduleRun("s1"));
    expect(ran).toMatchObject({ id: "j2", profile: "shell" });
    expect(await speak("schedule-rm", () => c.scheduleRm("s1"))).toEqual({});
    // The concierge: its status, the user's standing order; asking it with none is refused.
    expect((await speak("concierge", () => c.concierge({ action: "status" }))).on).toBe(false);
    const { order } = await speak("concierge-order", () =>
      c.conciergeOrder({ action: "add", text: "watch CI" }),
    );
    expect(order).toMatchObject({ id: 1, by: "user" });
    const off = await speak("concierge-ask", () => c.conciergeAsk("hi")).catch((e) => e);
    expect(off.code).toBe("bad_request");
    await c.rm(ran.id);
    expect(await c.stop(id)).toEqual({});
    expect((await c.list(id)).rows[0]?.life).toBe("stopped");
    // A job in a worktree of its own: its changes, and its branch merged into main.
    const repo = makeRepo();
    const { job: edit } = await c.dispatch({
      profile: "shell",
      task: "echo added > added.txt && git add added.txt && git commit -qm added && echo committed-$((1+1))",
      cwd: repo,
      worktree: true,
    });
    expect(edit.worktree).toMatchObject({ branch: `roost/${edit.id}`, base: "main" });
    await until("the commit", async () => (await c.list(edit.id)).rows[0]?.summary === "committed-2");
    const diff = await speak("changes", () => c.changes(edit.id));
    expect(diff.files).toEqual([expect.objectContaining({ path: "added.txt", added: 1, removed: 0 })]);
    expect(diff.diff).toContain("+added");
    const merged = await speak("merge", () => c.merge({ id: edit.id }));
    expect(merged).toMatchObject({ into: "main", fastForward: true, files: ["added.txt"] });
    expect(head(repo, "main")).toBe(merged.commit);
    // The merge queue: the branch queued again has nothing left to land; an ended entry stays.
    const { entries } = await speak("queue-add", () => c.queueAdd({ ids: [edit.id] }));
    expect(entries).toMatchObject([{ id: edit.id, into: "main", state: "queued" }]);
    await until(
      "the entry ended",
      async () => (await speak("queue", () => c.queue())).entries[0]?.state === "landed",
    );
    const ended = await speak("queue-cancel", () => c.queueCancel(entries[0]!.n)).catch((e) => e);
    expect(ended.code).toBe("conflict");
    await c.stop(edit.id);
    await c.rm(edit.id);
    fs.rmSync(repo, { recursive: true, force: true });
    const { job: again } = await speak("respawn", () => c.respawn(id));
    expect(again).toMatchObject({ id, life: "running" });
    expect(await speak("rm", () => c.rm(id))).toEqual({});
    expect((await c.list()).rows).toEqual([]);
    const exited = new Promise((resolve) => d.proc!.once("exit", resolve));
    expect(await speak("shutdown", () => c.shutdown())).toEqual({});
    await exited;

    const hubOps = Object.keys(OPS).filter((op) => !SESSION_OPS.includes(op as OpName));
    expect([...spoken].sort()).toEqual(hubOps.sort());
  });

  it("subscribes as an async iterator, and carries on across a daemon restart", async () => {
    d = await startDaemon({ env: { SHELL: "/bin/bash" } });
    client = new DaemonClient({ socket: d.socket });
    const seen: Subscribed[] = [];
    const sub = client.subscribe();
    const reading = (async () => {
      for await (const e of sub) seen.push(e);
    })();
    await until("the first rows", () => seen.some((e) => e.event === "rows"));
    const { job } = await client.dispatch({ profile: "shell", cwd: d.env.HOME! });
    await until("a row push", () => seen.some((e) => e.event === "row" && e.row.id === job.id));
    const firstRows = seen.filter((e) => e.event === "rows").length;
    await d.restart("SIGKILL");
    await until(
      "the rows again after the restart",
      () => seen.filter((e) => e.event === "rows").length > firstRows,
    );
    // A call after the restart connects again by itself.
    expect((await client.list(job.id)).rows[0]?.life).toBe("running");
    await client.rename(job.id, "after");
    await until("a push on the new connection", () =>
      seen.some((e) => e.event === "row" && e.row.name === "after"),
    );
    await sub.return?.();
    await reading;
  });
});
