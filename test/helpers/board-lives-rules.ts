/**
 * Claims follow lives (docs/protocol.md, "The task board"), against a real daemon: a job that
 * fails, is stopped or is removed holds nothing; a foreground pi's claims go after the grace
 * (`PI_ROOST_FG_CLAIM_GRACE_MS`, short here) unless it is back; a session away past the grace is
 * taken over; a respawned job keeps its claims; and across a kill -9 of the daemon, a session that
 * came back keeps its claims while one that did not loses them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import { added, expectError, INERT, session, task, taskEntries, taskOk } from "./board.js";
import { sleep, startDaemon, type TestDaemon, until } from "./daemon.js";
import { row, untilRow } from "./jobs.js";
import type { RawClient } from "./raw-client.js";

/**
 * Claims following lives on the board `board()` configures (`{}` for roost.db's, `{board: {url}}` for a
 * PostgreSQL one): one list of cases, run on each store (board.test.ts, board-lives.test.ts,
 * board-pg.test.ts).
 */
export function boardLives(store: string, board: () => Promise<Record<string, unknown>>): void {
  describe(`on ${store}`, () => {
    const GRACE_MS = 1500;

    let d: TestDaemon;
    let hub: RawClient;

    beforeAll(async () => {
      d = await startDaemon({
        config: { agentProfiles: { inert: INERT }, ...(await board()) },
        env: { PI_ROOST_FG_CLAIM_GRACE_MS: String(GRACE_MS) },
      });
      hub = await d.client();
    });
    afterAll(async () => d?.cleanup());
    afterEach(async () => {
      const { rows } = await hub.ok("list");
      await Promise.all(rows.map((r: any) => hub.ok("rm", { id: r.id })));
    });

    const sess = (name: string, opts?: { id?: string }) => session(d, hub, name, opts);
    const boardTask = async (id: number) =>
      (await taskOk(hub, { action: "list" })).tasks.find((t: any) => t.id === id);
    const untilOpen = (id: number, what: string) =>
      until(what, async () => ((await boardTask(id)).state === "open" ? true : null), 30000);

    describe("a job that ends holds nothing", () => {
      it("one that fails: its claims are released, a task event with why release", async () => {
        const a = await sess("crasher");
        const id = await added(hub, "half done");
        await taskOk(a.c, { action: "claim", id });
        process.kill((await row(hub, a.id)).pid, "SIGKILL");
        await untilOpen(id, "released when it failed");
        expect(await boardTask(id)).toMatchObject({ state: "open", owner: null, claimedAt: null });
        expect((await taskEntries(hub, id)).at(-1)).toBe(
          `release: #${id} half done: ${a.id} "crasher" failed`,
        );
      });

      it("one that is stopped, and one that is removed", async () => {
        const a = await sess("stopped");
        const b = await sess("removed");
        const one = await added(hub, "stop me");
        const two = await added(hub, "remove me");
        await taskOk(a.c, { action: "claim", id: one });
        await taskOk(b.c, { action: "claim", id: two });
        await hub.ok("stop", { id: a.id });
        await hub.ok("rm", { id: b.id });
        // Released with the life change: before its answer left.
        expect((await boardTask(one)).state).toBe("open");
        expect((await boardTask(two)).state).toBe("open");
        expect((await taskEntries(hub, one)).at(-1)).toBe(
          `release: #${one} stop me: ${a.id} "stopped" was stopped`,
        );
        expect((await taskEntries(hub, two)).at(-1)).toBe(
          `release: #${two} remove me: ${b.id} "removed" was removed`,
        );
        const { events } = await hub.ok("events", { limit: 1000 });
        expect(events.find((e: any) => e.why === "release" && e.text.startsWith(`#${one} `))).toMatchObject({
          kind: "task",
          id: a.id,
          who: "roost",
        });
      });
    });

    describe("a job respawned", () => {
      it("keeps its claims: the same session goes on (its conversation with it), to finish them", async () => {
        const a = await sess("respawned");
        const id = await added(hub, "carry on");
        await taskOk(a.c, { action: "claim", id });
        await hub.ok("respawn", { id: a.id });
        expect(await boardTask(id)).toMatchObject({ state: "claimed", owner: { id: a.id } });
        expect(await taskEntries(hub, id)).toEqual([`add: #${id} carry on`, `claim: #${id} carry on`]);
      });
    });

    describe("a foreground pi", () => {
      it("keeps its claims when it is back within the grace; once away past it, they go", async () => {
        const pi = await d.client();
        const { id, token } = await pi.ok("peer_register", { name: "my pi", session: "fg-board" });
        await pi.ok("report", { id, token, report: { state: "working" } });
        const t = await added(hub, "foreground work");
        await pi.ok("task", { action: "claim", id: t });
        pi.close();
        await untilRow(hub, id, "not connected", (r) => !r.connected);
        const again = await d.client();
        expect((await again.ok("peer_register", { name: "my pi", session: "fg-board" })).id).toBe(id);
        // Another pi goes away now and is not back: once its claim is released, past its grace,
        // the first one's grace (begun before, as long) has run out too, and it kept its claim.
        const other = await d.client();
        const o = await other.ok("peer_register", { name: "other pi", session: "fg-other" });
        await other.ok("report", { id: o.id, token: o.token, report: { state: "working" } });
        const t2 = await added(hub, "the other's work");
        await other.ok("task", { action: "claim", id: t2 });
        other.close();
        await untilOpen(t2, "the other's claim released after the grace");
        expect((await boardTask(t)).owner).toEqual({ id, name: "my pi" });
        again.close();
        await untilOpen(t, "released after the grace");
        expect((await row(hub, id)).life).toBe("exited");
        expect((await taskEntries(hub, t)).at(-1)).toBe(
          `release: #${t} foreground work: ${id} "my pi" did not come back`,
        );
      });
    });

    describe("a session that is gone", () => {
      it("holds its claim within the grace (conflict); past it, the next claimer takes it over, with the event", async () => {
        const a = await sess("wanderer");
        const b = await sess("successor");
        const id = await added(hub, "abandoned");
        await taskOk(a.c, { action: "claim", id });
        a.c.close();
        await untilRow(hub, a.id, "not connected", (r) => !r.connected);
        expectError(await task(b.c, { action: "claim", id }), "conflict", `claimed by ${a.id}`);
        await sleep(GRACE_MS);
        const { task: t } = await taskOk(b.c, { action: "claim", id });
        expect(t.owner).toEqual({ id: b.id, name: "successor" });
        expect((await taskEntries(hub, id)).slice(-2)).toEqual([
          `release: #${id} abandoned: ${a.id} "wanderer" is gone: taken over by ${b.id} "successor"`,
          `claim: #${id} abandoned`,
        ]);
      });
    });

    describe("across a daemon restart", () => {
      it("kill -9: the board is kept; a session that came back keeps its claim, one that did not loses it, one that ended meanwhile at once, one respawned since keeps it", async () => {
        const back = await sess("comes-back");
        const gone = await sess("stays-away");
        const dead = await sess("dies");
        const again = await sess("respawned");
        const kept = await added(hub, "kept");
        const lost = await added(hub, "lost");
        const died = await added(hub, "died");
        const slow = await added(hub, "its agent slow to start again");
        await taskOk(back.c, { action: "claim", id: kept });
        await taskOk(gone.c, { action: "claim", id: lost });
        await taskOk(dead.c, { action: "claim", id: died });
        await taskOk(again.c, { action: "claim", id: slow });
        const late = await added(hub, "written before the answer");
        const deadPid = (await row(hub, dead.id)).pid;
        await d.kill("SIGKILL");
        process.kill(deadPid, "SIGKILL");
        const restarted = Date.now();
        await d.start();
        hub = await d.client();
        expect((await boardTask(late)).title).toBe("written before the answer");
        expect(await added(hub, "after the restart")).toBe(late + 1); // ids go on, never reused
        // The one whose job ended while roost was down: released as the daemon found it ended.
        expect((await boardTask(died)).state).toBe("open");
        // The others wait for their agents: still theirs meanwhile.
        expect((await boardTask(lost)).owner.id).toBe(gone.id);
        await sess("comes-back", { id: back.id });
        // Respawned after the restart, its agent not yet connected when the restart is judged: a
        // respawn keeps its claims, as it does without a restart.
        await hub.ok("respawn", { id: again.id });
        await untilOpen(lost, "released: it did not come back");
        expect((await taskEntries(hub, lost)).at(-1)).toBe(
          `release: #${lost} lost: ${gone.id} "stays-away" did not come back after roost restarted`,
        );
        expect((await boardTask(kept)).owner).toEqual({ id: back.id, name: "comes-back" });
        expect((await boardTask(slow)).owner).toEqual({ id: again.id, name: "respawned" });
        expect((await row(hub, gone.id)).life).toBe("running");
        // Judged no sooner than the clients' longest wait between reconnections and the grace.
        const { events } = await hub.ok("events", { limit: 1000 });
        const release = events.find((e: any) => e.why === "release" && e.text.startsWith(`#${lost} `));
        expect(Date.parse(release.at) - restarted).toBeGreaterThanOrEqual(LIMITS.reconnectMs + GRACE_MS);
      });
    });
  });
}
