/**
 * Two of the protocol's rules (docs/protocol.md), through the socket of a real daemon: the
 * concierge answers only a question (`concierge-reply` refused on a dialog or a first prompt), and a
 * `notice` entry carries the id of the job that caused it (`whoId`). Sessions are inert protocol
 * jobs spoken for by raw clients (helpers/board.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectError, nextDelivery, session } from "../helpers/board.js";
import { blockedOn, CONFIG, conciergeOn, reportAs } from "../helpers/concierge.js";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { row } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let hub: RawClient;

beforeAll(async () => {
  d = await startDaemon({ config: CONFIG });
  hub = await d.client();
});
afterAll(async () => d?.cleanup());
afterEach(async () => {
  const { rows } = await hub.ok("list");
  await Promise.all(rows.map((r: any) => hub.ok("rm", { id: r.id })));
  await hub.ok("concierge", { action: "answer", answer: "never" });
});

const sess = (name: string) => session(d, hub, name);
const feed = async (kind: string) =>
  (await hub.ok("events", { limit: 1000 })).events.filter((e: any) => e.kind === kind);

describe("concierge-reply answers a question only", () => {
  it("a row blocked on a dialog or a first prompt is refused bad_request, even under answer: always; nothing sent", async () => {
    const a = await sess("asker");
    const c = await conciergeOn(d, hub);
    await hub.ok("concierge", { action: "answer", answer: "always" });
    for (const waitingFor of ["dialog", "first-prompt"]) {
      await reportAs(a, {
        state: "blocked",
        status: "waiting",
        waitingFor,
        question: "Allow bash: rm -rf build?",
      });
      expectError(
        await c.c.request("concierge-reply", { id: a.id, text: "yes" }),
        "bad_request",
        `(waitingFor: ${waitingFor}), not a question: only the user answers that`,
      );
    }
    // Blocked without saying on what: not a question either.
    await reportAs(a, { state: "blocked", status: "waiting", question: "Go on?" });
    expectError(
      await c.c.request("concierge-reply", { id: a.id, text: "yes" }),
      "bad_request",
      "waitingFor: null",
    );
    expect(await row(hub, a.id)).toMatchObject({ pending: 0, lastSeq: 0 });
    // A question is answered.
    await blockedOn(a, "Run the migration?", ["yes", "no"]);
    const { answered } = await c.c.ok("concierge-reply", { id: a.id, text: "yes" });
    expect(answered).toMatchObject({ id: a.id, text: "yes" });
  });
});

describe("an answer says who gave it", () => {
  it("the concierge's delivery says answeredBy concierge with its why, after a reconnect too; the user's says none", async () => {
    const a = await sess("asker");
    const c = await conciergeOn(d, hub);
    await hub.ok("concierge", { action: "answer", answer: "routine" });
    await blockedOn(a, "Run the migration?", ["yes", "no"]);
    await c.c.ok("concierge-reply", { id: a.id, text: "yes", why: "routine: a dev database" });
    const got = await nextDelivery(a, 1);
    expect(got).toMatchObject({ text: "yes", answeredBy: "concierge", why: "routine: a dev database" });
    expect(got.kind).toBeUndefined();
    // Kept with the reply: sent again on a new connection, it says the same.
    a.c.close();
    const again = await session(d, hub, "asker", { id: a.id });
    expect(await nextDelivery(again, 1)).toMatchObject({
      seq: got.seq,
      answeredBy: "concierge",
      why: "routine: a dev database",
    });
    await again.c.ok("ack", { id: a.id, token: again.token, seq: got.seq });
    // Without a policy's words: the policy is its why.
    await blockedOn(again, "And the docs?", ["yes", "no"]);
    await c.c.ok("concierge-reply", { id: a.id, text: "no" });
    expect(await nextDelivery(again, 2)).toMatchObject({
      answeredBy: "concierge",
      why: "answered by the concierge (policy: routine)",
    });
    await hub.ok("reply", { id: a.id, text: "mine" });
    const user = await nextDelivery(again, 3);
    expect(user.text).toBe("mine");
    expect(user.answeredBy).toBeUndefined();
    expect(user.why).toBeUndefined();
  });
});

describe("a notice's feed entry", () => {
  it("is by roost, with whoId the watched session whose change caused it", async () => {
    const w = await sess("watcher");
    const t = await sess("target");
    expect((await w.c.ok("watch", { id: t.id, when: "idle" })).fired).toBe(false);
    await reportAs(t, { state: "done", summary: "all green" });
    await nextDelivery(w, 1);
    const entry = (await feed("notice")).find((e: any) => e.id === w.id);
    expect(entry).toMatchObject({ id: w.id, who: "roost", whoId: t.id });
  });
});
