/**
 * A concierge on pi-roost/agent (docs/protocol.md, "The concierge"): the scripted agent of the client's
 * tests (test/fixtures/sdk-agent.mjs, the BUILT client) is the concierge (`concierge {action: "on",
 * launch}`): it takes its digests as agent items and acks them, and calls the concierge's ops on its
 * own connection when a reply tells it to (`call OP JSON`). `npm run build` first.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { INERT, session } from "../../helpers/board.js";
import { blockedOn } from "../../helpers/concierge.js";
import { FIXTURES, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { lines, row, untilRow } from "../../helpers/jobs.js";
import type { RawClient } from "../../helpers/raw-client.js";

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

const SDK_AGENT = {
  command: [process.execPath, path.join(FIXTURES, "sdk-agent.mjs")],
  task: "type",
  protocol: true,
  env: { AGENT_ITEMS: "1" },
};

/** Has the concierge call an op (a reply it understands) and waits for its answer in calls.jsonl. */
async function conciergeCalls(c: RawClient, id: string, op: string, args: unknown): Promise<any> {
  const file = path.join(d!.home, "jobs", id, "calls.jsonl");
  const before = lines(file).length;
  await c.ok("reply", { id, text: `call ${op} ${JSON.stringify(args)}` });
  return until(`${id}: ${op}`, () => lines(file)[before]);
}

describe("pi-roost/agent as the concierge", () => {
  it("takes a digest about a blocked session, suggests, answers once the policy allows", async () => {
    d = await startDaemon({ config: { agentProfiles: { sdk: SDK_AGENT, inert: INERT } } });
    const c = await d.client();
    const on = await c.ok("concierge", { action: "on", launch: { profile: "sdk", cwd: "/tmp" } });
    const id = on.id as string;
    await untilRow(c, id, "the concierge connected", (r) => r.connected && r.summary === "starting");
    expect(await row(c, id)).toMatchObject({
      role: "concierge",
      name: "concierge",
      capabilities: expect.arrayContaining(["agent-items"]),
    });

    const asker = await session(d, c, "migrator");
    await blockedOn(asker, "Run the migration?", ["yes", "no"]);
    const items = () => lines(path.join(d!.home, "jobs", id, "items.jsonl"));
    const digest = await until("a digest", () => items().find((i) => i.text.includes("Run the migration?")));
    expect(digest).toMatchObject({ kind: "digest", from: { id: "roost", name: "roost" }, relation: "roost" });
    await untilRow(c, id, "its digests taken", (r) => r.pending === 0);

    const suggested = await conciergeCalls(c, id, "concierge-suggest", { id: asker.id, text: "yes" });
    expect(suggested).toMatchObject({ op: "concierge-suggest", ok: true });
    expect((await row(c, asker.id)).suggested).toMatchObject({ text: "yes" });
    const refused = await conciergeCalls(c, id, "concierge-reply", { id: asker.id, text: "yes" });
    expect(refused).toMatchObject({ ok: false, code: "policy" });

    await c.ok("concierge", { action: "answer", answer: "always" });
    const answered = await conciergeCalls(c, id, "concierge-reply", {
      id: asker.id,
      text: "yes",
      why: "a dev database",
    });
    expect(answered.ok).toBe(true);
    const got = await asker.c.event((e) => e.event === "deliver" && e.text === "yes", "the answer");
    expect(got.kind).toBeUndefined();
    const { events } = await c.ok("events", { id: asker.id });
    expect(events.filter((e: any) => e.kind === "reply")).toEqual([
      expect.objectContaining({ who: "concierge", whoId: id, why: "a dev database" }),
    ]);
  });
});
