/**
 * A board agents can work (docs/protocol.md, "The task board"): `claim` with `next`, the word each
 * task is shown by (`view`), a done or release by a session that no longer holds the task
 * (`conflict`, naming who holds or finished it), and the creating actions' request ids kept across
 * a kill -9. One list of cases, on each store (board-next.test.ts, board-pg.test.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { added, expectError, INERT, type Session, session, task, taskOk } from "./board.js";
import { startDaemon, type TestDaemon } from "./daemon.js";
import type { RawClient } from "./raw-client.js";

export function boardNext(store: string, board: () => Promise<Record<string, unknown>>): void {
  describe(`on ${store}`, () => {
    let d: TestDaemon;
    let hub: RawClient;

    beforeAll(async () => {
      d = await startDaemon({ config: { agentProfiles: { inert: INERT }, ...(await board()) } });
      hub = await d.client();
    });
    afterAll(async () => d?.cleanup());
    afterEach(async () => {
      // Each test starts on a board with nothing to claim: what is left is dropped, the sessions go.
      const { tasks } = await taskOk(hub, { action: "list" });
      for (const t of tasks)
        if (t.state === "open" || t.state === "claimed") await taskOk(hub, { action: "drop", id: t.id });
      const { rows } = await hub.ok("list");
      await Promise.all(rows.map((r: any) => hub.ok("rm", { id: r.id })));
    });

    const sess = (name: string) => session(d, hub, name);

    it("claim next: the oldest task the session may claim, skipping blocked ones, those another holds and those handed to another", async () => {
      const first = await added(hub, "first");
      const blocked = await added(hub, "waits", { after: [first] });
      const handed = await added(hub, "for b");
      const free = await added(hub, "free");
      const a = await sess("next-a");
      const b = await sess("next-b");
      await taskOk(hub, { action: "assign", id: handed, to: b.id });
      const one = await taskOk(a.c, { action: "claim", next: true });
      expect(one.task).toMatchObject({ id: first, state: "claimed", owner: { id: a.id }, view: "claimed" });
      // Every task of the answer has its word: the one after an unfinished task is blocked.
      expect(one.tasks.find((t: any) => t.id === blocked).view).toBe("blocked");
      expect((await taskOk(a.c, { action: "claim", next: true })).task.id).toBe(free);
      expectError(await task(a.c, { action: "claim", next: true }), "not_found", "1 blocked");
      expect((await taskOk(b.c, { action: "claim", next: true })).task.id).toBe(handed);
      await taskOk(a.c, { action: "done", id: first });
      expect((await taskOk(b.c, { action: "claim", next: true })).task.id).toBe(blocked);
      const listed = (await taskOk(hub, { action: "list" })).tasks.find((t: any) => t.id === blocked);
      expect(listed.view).toBe("claimed");
      expectError(await task(hub, { action: "claim", next: true }), "unsupported");
      expectError(await task(a.c, { action: "claim", id: free, next: true }), "bad_request", "not both");
    });

    it("claim next from many sessions at once (pipelined): each gets a task of its own, none refused", async () => {
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) ids.push(await added(hub, `many ${i}`));
      const sessions: Session[] = [];
      for (let i = 0; i < 6; i++) sessions.push(await sess(`many-${i}`));
      const answers = await Promise.all(sessions.map((s) => task(s.c, { action: "claim", next: true })));
      expect(
        answers.every((r) => r.ok),
        JSON.stringify(answers.filter((r) => !r.ok)),
      ).toBe(true);
      const got = answers.map((r) => r.result.task.id).sort((x: number, y: number) => x - y);
      expect(got).toEqual(ids);
    });

    it("a done or release by a session that no longer holds the task is conflict, saying who holds or finished it; the holder's own done again is a duplicate", async () => {
      const a = await sess("former");
      const b = await sess("latter");
      const id = await added(hub, "passed on");
      await taskOk(a.c, { action: "claim", id });
      await taskOk(hub, { action: "release", id }); // a's claim let go
      await taskOk(b.c, { action: "claim", id });
      expectError(
        await task(a.c, { action: "done", id }),
        "conflict",
        `#${id} is held by ${b.id} "latter" now`,
      );
      await taskOk(b.c, { action: "done", id, result: "by b" });
      expectError(
        await task(a.c, { action: "done", id }),
        "conflict",
        `#${id} was finished by ${b.id} "latter"`,
      );
      expectError(await task(a.c, { action: "release", id }), "conflict", "was finished by");
      const again = await taskOk(b.c, { action: "done", id });
      expect([again.duplicate, again.task.result]).toEqual([true, "by b"]);
      // A release of an open task by a session (its own release again): so it is, nothing changes.
      const open = await added(hub, "let go");
      await taskOk(a.c, { action: "claim", id: open });
      await taskOk(a.c, { action: "release", id: open });
      expect((await taskOk(a.c, { action: "release", id: open })).task.state).toBe("open");
    });

    it("add and claim next with a requestId: sent again after a kill -9, answered what the first did (duplicate), nothing made or claimed twice", async () => {
      const a = await sess("resender");
      const made = await taskOk(a.c, { action: "add", title: "made once", requestId: "add-1" });
      const spare = await added(hub, "spare");
      const claimed = await taskOk(a.c, { action: "claim", next: true, requestId: "next-1" });
      await d.restart("SIGKILL");
      hub = await d.client();
      const c = await d.client();
      await c.ok("hello", { protocol: 1 });
      await c.ok("report", { id: a.id, token: a.token, report: { state: "working" } });
      const addAgain = await taskOk(c, { action: "add", title: "made once", requestId: "add-1" });
      expect([addAgain.duplicate, addAgain.task.id]).toEqual([true, made.task.id]);
      const nextAgain = await taskOk(c, { action: "claim", next: true, requestId: "next-1" });
      expect([nextAgain.duplicate, nextAgain.task.id]).toEqual([true, claimed.task.id]);
      const { tasks } = await taskOk(hub, { action: "list" });
      expect(tasks.filter((t: any) => t.title === "made once")).toHaveLength(1);
      expect(tasks.filter((t: any) => t.owner?.id === a.id && t.state === "claimed")).toHaveLength(1);
      expect(tasks.find((t: any) => t.id === spare).state).toBe("open");
      // Another request id is another action.
      expect(
        (await taskOk(c, { action: "claim", next: true, requestId: "next-2" })).duplicate,
      ).toBeUndefined();
    });
  });
}
