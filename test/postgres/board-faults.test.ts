/**
 * The shared board when its database fails (docs/fleet.md, "One board in PostgreSQL"): two real
 * daemons on one database of a real PostgreSQL server. A frozen server (SIGSTOP of its processes:
 * connections open, nothing answers, as a partition looks) makes a board op `busy` within seconds,
 * saying so, while the rest of the daemon answers; after SIGCONT the board works again. A server
 * restarted while a daemon's lease ran out: the first claim after it comes back renews the lease
 * first (a new epoch), so the other daemon's release for the lost lease does not take it, and no
 * task is done twice; once the lease is lost for real, the claims made under it are released.
 *
 * alpha's lease is an hour, so that no renewal of its own timer comes between what a test does:
 * the lease is made to run out in the database (as an outage longer than it would leave it), and
 * only alpha's writes renew it. beta's is 2 s: it reads the board again every 667 ms.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { added, expectError, INERT, type Session, session, task, taskOk } from "../helpers/board.js";
import { sleep, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import type { RawClient } from "../helpers/raw-client.js";

/** What a board op may take, at most, when the database does not answer: its 5 s, and some slack. */
const BOUND_MS = 9000;

let pg_: TestPostgres;
let url: string;
let alpha: TestDaemon;
let beta: TestDaemon;
let hubA: RawClient;
let hubB: RawClient;

const config = (name: string, leaseMs: number) => ({
  agentProfiles: { inert: INERT },
  board: { url, name, leaseMs },
});

beforeAll(async () => {
  pg_ = await startPostgres();
  url = await pg_.database("faults");
  [alpha, beta] = await Promise.all([
    startDaemon({ config: config("alpha", 3_600_000) }),
    startDaemon({ config: config("beta", 2000) }),
  ]);
  hubA = await alpha.client();
  hubB = await beta.client();
});
afterAll(async () => {
  pg_?.thaw();
  await Promise.all([alpha?.cleanup(), beta?.cleanup()]);
  pg_?.cleanup();
});

/** One statement on the board's database, as the test's own client. */
async function sql(text: string, values: unknown[] = []): Promise<any[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** alpha's lease as an outage longer than it leaves it: run out. */
const leaseRunOut = () =>
  sql("UPDATE roost_board_daemons SET lease_until = now() - interval '1 second' WHERE name = 'alpha'");
const alphaLease = async () =>
  (await sql("SELECT epoch, lease_until > now() AS live FROM roost_board_daemons WHERE name = 'alpha'"))[0];

const list = async (hub: RawClient) => (await hub.ok("task", { action: "list" })).tasks as any[];
const onBoard = async (hub: RawClient, id: number) => (await list(hub)).find((t) => t.id === id);

/** `task` on a connection, tried again while it is `busy` (the database coming back): the answer. */
async function once(c: RawClient, args: Record<string, unknown>) {
  return until(`task ${JSON.stringify(args)} answered`, async () => {
    const r = await task(c, args);
    return r.ok || r.code !== "busy" ? r : null;
  });
}

/** Whether beta's feed has the `task` entry whose text begins so, with this why. */
async function inFeed(hub: RawClient, why: string, text: string): Promise<boolean> {
  const { events } = await hub.ok("events", { limit: 1000 });
  return events.some((e: any) => e.kind === "task" && e.why === why && e.text.startsWith(text));
}

describe("a frozen database (SIGSTOP: connections open, nothing answers)", () => {
  it("a board op is busy within seconds, saying so, the rest of the daemon answers; after SIGCONT the board works again", async () => {
    const before = await added(hubA, "before the freeze");
    pg_.freeze();
    try {
      const started = Date.now();
      // Three at once, taken one at a time by the daemon: none waits out the freeze.
      const answers = await Promise.all([
        task(hubA, { action: "list" }).then((r) => ({ r, ms: Date.now() - started })),
        task(hubA, { action: "add", title: "during the freeze" }).then((r) => ({
          r,
          ms: Date.now() - started,
        })),
        task(hubB, { action: "list" }).then((r) => ({ r, ms: Date.now() - started })),
      ]);
      for (const { r, ms } of answers) {
        expectError(r, "busy", "the shared board's database");
        expect(r.error).toMatch(/did not answer in 5 s/);
        expect(r.error).toContain("try again once it does");
        expect(ms, JSON.stringify(r)).toBeLessThan(BOUND_MS);
      }
      // Asked again while it is still frozen: busy at once, not after another 5 s.
      const again = Date.now();
      expectError(await task(hubA, { action: "list" }), "busy", "did not answer in 5 s");
      expect(Date.now() - again).toBeLessThan(2000);
      // Nothing else waits for the board's database: the jobs' list answers.
      expect((await hubA.ok("list")).rows).toBeInstanceOf(Array);
    } finally {
      pg_.thaw();
    }
    const back = Date.now();
    await until("the board answers again on alpha", async () => (await task(hubA, { action: "list" })).ok);
    await until("the board answers again on beta", async () => (await task(hubB, { action: "list" })).ok);
    expect(Date.now() - back).toBeLessThan(BOUND_MS);
    expect((await onBoard(hubB, before)).title).toBe("before the freeze");
    const after = await added(hubA, "after the thaw");
    await until("beta sees it", async () => (await onBoard(hubB, after))?.state === "open");
  });

  it("a session's claim across a freeze is busy within seconds too; after the thaw it claims the task, once", async () => {
    const a = await session(alpha, hubA, "writer");
    const id = await added(hubA, "claimed across a freeze");
    pg_.freeze();
    let claim: Awaited<ReturnType<typeof task>>;
    const started = Date.now();
    try {
      claim = await task(a.c, { action: "claim", id });
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
      expectError(claim, "busy", "did not answer in 5 s");
    } finally {
      pg_.thaw();
    }
    // The claim may have reached the server before it froze: either way it is the session's to take.
    const r = await once(a.c, { action: "claim", id });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(r.result.task.owner.id).toBe(a.id);
    await taskOk(a.c, { action: "done", id, result: "once" });
  });
});

describe("a lease that ran out, and the claims made under it", () => {
  let a: Session;
  let b: Session;

  beforeAll(async () => {
    a = await session(alpha, hubA, "alpha-worker");
    b = await session(beta, hubB, "beta-worker");
  });

  it("PostgreSQL restarted, alpha's lease run out meanwhile: its first claim renews it first, and beta's release for the lost lease does not take it; no task done twice", async () => {
    const held = await added(hubA, "held before the outage");
    const fresh = await added(hubA, "claimed after the outage");
    await taskOk(a.c, { action: "claim", id: held });
    const { epoch } = await alphaLease();
    pg_.stop();
    await sleep(2500); // beta's lease (2 s) runs out too while the server is down
    pg_.start();
    await leaseRunOut(); // and alpha's, as an outage longer than its lease leaves it
    // At once, before any renewal: the claim's own write takes the lease again, a new epoch.
    const r = await once(a.c, { action: "claim", id: fresh });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const lease = await alphaLease();
    expect(lease.live).toBe(true);
    expect(Number(lease.epoch)).toBe(Number(epoch) + 1);
    const [row] = await sql("SELECT claim_epoch FROM roost_board_tasks WHERE id = $1", [fresh]);
    expect(Number(row.claim_epoch)).toBe(Number(epoch) + 1);
    // beta read the board with that claim in it (its feed has it), and judged alpha's sessions then:
    // a step on beta after it comes after any release that judgement made.
    await until("beta's feed has the claim", () => inFeed(hubB, "claim", `#${fresh} `), 20000);
    const seen = await onBoard(hubB, fresh);
    expect(seen.state).toBe("claimed");
    expect(seen.owner.id).toBe(`alpha:${a.id}`);
    expect(await inFeed(hubB, "release", `#${fresh} `)).toBe(false);
    // No task done twice: beta's session cannot take it, alpha's finishes it, once.
    expectError(await task(b.c, { action: "claim", id: fresh }), "conflict", `alpha:${a.id}`);
    await taskOk(a.c, { action: "done", id: fresh, result: "by alpha" });
    expect((await task(b.c, { action: "done", id: fresh })).ok).toBe(false);
    const done = await onBoard(hubB, fresh);
    expect(done).toMatchObject({ state: "done", result: "by alpha", owner: { id: `alpha:${a.id}` } });
    // `held` was claimed under the lease that ran out: beta may have released it before alpha's
    // claim renewed the lease, or not; either way it is alpha's session's no more than once.
    await task(a.c, { action: "release", id: held });
  });

  it("a claim made after the lease was taken again stands; once the lease is lost for real, the claims made under it go", async () => {
    const old = await added(hubA, "under the first lease");
    const newer = await added(hubB, "under the lease taken again");
    await taskOk(a.c, { action: "claim", id: old });
    await leaseRunOut();
    // alpha's write of the claim renews the lease before it claims: beta sees alpha live, and
    // does not release it (`old` it may have, had it read the board in the moment between).
    await taskOk(a.c, { action: "claim", id: newer });
    await until("beta's feed has the claim", () => inFeed(hubB, "claim", `#${newer} `));
    expect((await onBoard(hubB, newer)).owner?.id).toBe(`alpha:${a.id}`);
    expect(await inFeed(hubB, "release", `#${newer} `)).toBe(false);
    if ((await onBoard(hubB, old)).state === "open") await taskOk(a.c, { action: "claim", id: old });
    // alpha stops answering for real (its lease runs out, and it writes nothing): both are the
    // lost lease's, and beta releases them, saying why.
    await leaseRunOut();
    await until(
      "both released on beta",
      async () => {
        const board = await list(hubB);
        return [old, newer].every((id) => board.find((t) => t.id === id)?.state === "open");
      },
      20000,
    );
    for (const id of [old, newer]) expect(await inFeed(hubB, "release", `#${id} `)).toBe(true);
    const { events } = await hubB.ok("events", { limit: 1000 });
    const release = events.find(
      (e: any) => e.kind === "task" && e.why === "release" && e.text.startsWith(`#${newer} `),
    );
    expect(release.text).toContain("stopped answering (its lease on the board ran out)");
    // beta's session takes it now, and alpha's is refused, told who holds it.
    await taskOk(b.c, { action: "claim", id: newer });
    const refused = await task(a.c, { action: "done", id: newer });
    expect(refused.ok).toBe(false);
    expect(refused.error).toContain(`beta:${b.id}`);
  });
});
