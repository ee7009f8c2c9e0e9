/**
 * One board across daemons (docs/fleet.md): two real daemons, each on its own home, naming the same
 * database of a real PostgreSQL server. Their sessions race for 200 tasks with dependencies, each
 * done exactly once and none claimed before its `after` was over; a claim held on one daemon is a
 * `conflict` on the other; a change on one reaches the other's feed and hubs at once; a daemon
 * killed while holding claims has them released once its lease ran out; a daemon restarted takes
 * its own lease back, and a second daemon under a name already held is refused.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { claimable } from "../../sdk/ts/protocol/index.js";
import { added, expectError, INERT, type Session, session, task, taskOk } from "../helpers/board.js";
import { daemonRefusal, sleep, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { daemonEnv } from "../helpers/daemon-process.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import type { RawClient } from "../helpers/raw-client.js";

const LEASE_MS = 2000;

let pg: TestPostgres;
let url: string;
let alpha: TestDaemon;
let beta: TestDaemon;
let hubA: RawClient;
let hubB: RawClient;

const config = (name: string) => ({
  agentProfiles: { inert: INERT },
  board: { url, name, leaseMs: LEASE_MS },
});

beforeAll(async () => {
  pg = await startPostgres();
  url = await pg.database("fleet");
  [alpha, beta] = await Promise.all([
    startDaemon({ config: config("alpha") }),
    startDaemon({ config: config("beta") }),
  ]);
  hubA = await alpha.client();
  hubB = await beta.client();
});
afterAll(async () => {
  await Promise.all([alpha?.cleanup(), beta?.cleanup()]);
  pg?.cleanup();
});
afterEach(async () => {
  for (const hub of [hubA, hubB]) {
    const { rows } = await hub.ok("list");
    await Promise.all(rows.map((r: any) => hub.ok("rm", { id: r.id })));
  }
});

/** `roost daemon` on a fresh home with this roost.json, expected to refuse to start. */
async function refusedWith(roostJson: unknown) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-test-"));
  try {
    fs.writeFileSync(path.join(home, "roost.json"), JSON.stringify(roostJson));
    return await daemonRefusal(daemonEnv(home));
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const list = async (hub: RawClient) => (await hub.ok("task", { action: "list" })).tasks as any[];

describe("one board, two daemons", () => {
  it("a task added on one is on the other's board, its feed and its hubs' board push, at once", async () => {
    const sub = await beta.client();
    await sub.ok("subscribe", {});
    const id = await added(hubA, "seen everywhere");
    expect((await list(hubB)).find((t) => t.id === id)).toMatchObject({
      title: "seen everywhere",
      state: "open",
    });
    await sub.waitFor(() => sub.events.find((e) => e.event === "board"), "beta's board push");
    await until("beta's feed has alpha's add", async () => {
      const { events } = await hubB.ok("events", { limit: 1000 });
      return events.some(
        (e: any) => e.kind === "task" && e.why === "add" && e.text === `#${id} seen everywhere`,
      );
    });
  });

  it("a claim held by a session of one daemon is a conflict for a session of the other; its holder named with its daemon", async () => {
    const a = await session(alpha, hubA, "on-alpha");
    const b = await session(beta, hubB, "on-beta");
    const id = await added(hubB, "wanted by both");
    await taskOk(a.c, { action: "claim", id });
    const seenOnBeta = (await list(hubB)).find((t) => t.id === id);
    expect(seenOnBeta.owner).toEqual({ id: `alpha:${a.id}`, name: "on-alpha" });
    expect((await list(hubA)).find((t) => t.id === id).owner).toEqual({ id: a.id, name: "on-alpha" });
    expectError(await task(b.c, { action: "claim", id }), "conflict", `claimed by alpha:${a.id} "on-alpha"`);
    expectError(await task(b.c, { action: "done", id }), "conflict", `held by alpha:${a.id} "on-alpha"`);
    // The session's own daemon releases its claims when it ends; the other sees it open.
    await hubA.ok("stop", { id: a.id });
    await until("open on beta", async () => (await list(hubB)).find((t) => t.id === id).state === "open");
    expect((await taskOk(b.c, { action: "claim", id })).task.owner).toEqual({ id: b.id, name: "on-beta" });
  });

  it("sessions of both daemons race for 200 tasks with dependencies: each done exactly once, none claimed before its after was over", async () => {
    // Whatever earlier tests left: dropped, so that 200 new tasks fit (the oldest finished go).
    for (const t of await list(hubA))
      if (t.state === "open" || t.state === "claimed") await taskOk(hubA, { action: "drop", id: t.id });
    const ids: number[] = [];
    for (let i = 0; i < 200; i++) {
      // Layers of ten: each task after one or two of the layer before.
      const layer = Math.floor(i / 10);
      const before =
        layer === 0 ? [] : [ids[(layer - 1) * 10 + (i % 10)]!, ids[(layer - 1) * 10 + ((i * 7) % 10)]!];
      ids.push(await added(i % 2 ? hubA : hubB, `race ${i}`, { after: before }));
    }
    const mine = new Set(ids);
    const sessions: Session[] = [];
    for (const [d, hub, name] of [
      [alpha, hubA, "a1"],
      [alpha, hubA, "a2"],
      [beta, hubB, "b1"],
      [beta, hubB, "b2"],
    ] as const)
      sessions.push(await session(d, hub, name));
    const doneBy = new Map<number, string[]>();
    const work = async (s: Session) => {
      for (;;) {
        const board = (await taskOk(s.c, { action: "list" })).tasks as any[];
        const left = board.filter((t) => mine.has(t.id) && t.state !== "done");
        if (left.length === 0) return;
        const free = claimable(board, s.id).filter((t) => mine.has(t.id));
        // Each session starts at a different place, so that they collide now and then, not always.
        const pick = free[sessions.indexOf(s) % Math.max(1, free.length)];
        if (!pick) {
          await sleep(20); // the others hold what is left: wait for them a moment
          continue;
        }
        const r = await task(s.c, { action: "claim", id: pick.id });
        if (!r.ok) {
          // Another's now, or done since the board was read (`bad_request`: nothing to claim).
          expect(["conflict", "bad_request"], JSON.stringify(r)).toContain(r.code);
          continue;
        }
        await taskOk(s.c, { action: "done", id: pick.id, result: s.id });
        doneBy.set(pick.id, [...(doneBy.get(pick.id) ?? []), s.id]);
      }
    };
    await Promise.all(sessions.map(work));
    expect([...doneBy.keys()].sort((x, y) => x - y)).toEqual(ids);
    for (const [id, by] of doneBy) expect(by, `#${id}`).toHaveLength(1);
    const final = new Map((await list(hubA)).map((t) => [t.id, t]));
    for (const id of ids) {
      const t = final.get(id)!;
      expect(t.state).toBe("done");
      for (const a of t.after)
        expect(Date.parse(t.claimedAt)).toBeGreaterThanOrEqual(Date.parse(final.get(a)!.doneAt));
    }
    // Both daemons' sessions took part.
    const owners = new Set(ids.map((id) => final.get(id)!.owner.id.split(":")[0]));
    expect(owners.has("beta")).toBe(true);
    expect([...owners].some((o) => !o.includes("beta"))).toBe(true);
    // 200 adds and 600 claims, dones and reads on a real PostgreSQL: some 20 s quiet, over 60 s
    // beside a full suite on two cores. What it checks is what happened, not how fast.
  }, 180_000);

  it("a daemon killed while its sessions hold claims: the other releases them once its lease ran out", async () => {
    const b = await session(beta, hubB, "dies-with-beta");
    const one = await added(hubA, "held by beta");
    const two = await added(hubA, "held by beta too");
    await taskOk(b.c, { action: "claim", id: one });
    await taskOk(b.c, { action: "claim", id: two });
    const a = await session(alpha, hubA, "on-alpha");
    await beta.kill("SIGKILL");
    const killed = Date.now();
    // Within the lease, beta's sessions still hold them.
    expectError(await task(a.c, { action: "claim", id: one }), "conflict", `beta:${b.id}`);
    await until(
      "released on alpha",
      async () =>
        (await list(hubA)).filter((t) => (t.id === one || t.id === two) && t.state === "open").length === 2,
      30000,
    );
    // Not before the lease it last renewed (a third of it before the kill, at most) ran out.
    expect(Date.now() - killed).toBeGreaterThanOrEqual((LEASE_MS * 2) / 3 - 100);
    const { events } = await hubA.ok("events", { limit: 1000 });
    const release = events.find(
      (e: any) => e.kind === "task" && e.why === "release" && e.text.startsWith(`#${one} `),
    );
    expect(release.text).toContain("stopped answering (its lease on the board ran out)");
    expect((await taskOk(a.c, { action: "claim", id: one })).task.owner.id).toBe(a.id);
    // beta comes back under its name (its own lease, its own home), and sees the board as it is.
    await beta.start();
    hubB = await beta.client();
    expect((await list(hubB)).find((t) => t.id === one).owner).toEqual({
      id: `alpha:${a.id}`,
      name: "on-alpha",
    });
  });

  it("a daemon under a name another live daemon holds on the board is refused (exit 2), saying so", async () => {
    const other = await startDaemon({ config: { board: { url, name: "gamma" } } });
    await other.cleanup(); // its lease runs on: another home under the name is refused
    const r = await refusedWith({ board: { url, name: "gamma" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('board.name "gamma" is another daemon\'s on this board');
  });

  it("a board database that does not answer at start: the daemon does not start, saying which", async () => {
    const dead = `postgres://postgres@127.0.0.1:${pg.port}/no_such_db`;
    const r = await refusedWith({ board: { url: dead } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`the board's database ${dead} did not answer`);
  });
});
