/**
 * A row's `asked` and `reply`'s `ifAsked` (docs/protocol.md, "A row", "reply"), against a real
 * daemon: `asked` moves with the question, its choices and an answer, and is the same in `list`,
 * pushes, HTTP and `roost ls --json`; an answer drawn for another `asked` is refused `conflict` and
 * nothing is stored or sent, over the socket, HTTP, the TypeScript client, the Python client and the
 * CLI; a restart keeps it.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DaemonClient } from "../../../sdk/ts/client/index.js";
import { RoostError } from "../../../sdk/ts/protocol/index.js";
import { roost, userEnv } from "../../helpers/cli.js";
import { ROOT } from "../../helpers/daemon.js";
import { api } from "../../helpers/http.js";
import {
  cleanDaemonPerFile,
  delivered,
  rawAgent,
  rmTemp,
  row,
  silentProfile,
  startCleanDaemon,
  stopRunningJobs,
  tempDir,
  untilRow,
} from "../../helpers/jobs.js";
import type { RawClient } from "../../helpers/raw-client.js";

const shared = cleanDaemonPerFile({ agentProfiles: { silent: silentProfile() } }, startCleanDaemon);
const temps: string[] = [];
afterEach(async () => {
  for (const t of temps.splice(0)) rmTemp(t);
  await stopRunningJobs(shared.d);
});

/** A job spoken for by a raw agent, blocked on `question` with `choices`; its row as then. */
async function blockedJob(question = "Deploy?", choices = ["y", "n"]) {
  const dir = tempDir();
  temps.push(dir);
  const c = await shared.d.client();
  const { job } = await c.ok("dispatch", { profile: "silent", cwd: dir });
  const { agent, token } = await rawAgent(shared.d, c, job.id);
  const ask = async (q: string | null, ch: string[] | null) => {
    await agent.ok("report", {
      id: job.id,
      token,
      report: q === null ? { state: "working" } : { state: "blocked", question: q, choices: ch },
    });
    return row(c, job.id);
  };
  const blocked = await ask(question, choices);
  return { c, agent, id: job.id as string, blocked, ask };
}

const conflictOf = (r: { ok: boolean; code?: string; error?: string }) => ({ code: r.code, error: r.error });

describe("asked", () => {
  it("moves when the question or its choices change and when answered, not on a report that asks the same", async () => {
    const { c, id, blocked, ask } = await blockedJob();
    expect(blocked.asked).toBeGreaterThan(0);
    const a = blocked.asked as number;
    expect((await ask("Deploy?", ["y", "n"])).asked).toBe(a); // the same again
    const b = (await ask("Deploy?", ["y", "n", "later"])).asked;
    expect(b).toBe(a + 1);
    const q = (await ask("Deploy to prod?", ["y", "n", "later"])).asked;
    expect(q).toBe(b + 1);
    await c.ok("reply", { id, text: "y", ifAsked: q });
    expect((await row(c, id)).asked).toBe(q + 1);
    expect((await ask(null, null)).asked).toBe(q + 2); // no question now
  });

  it("is the same in list, a push, HTTP's list and roost ls --json", async () => {
    const sub = await shared.d.client();
    await sub.ok("subscribe", {});
    const { id, blocked } = await blockedJob("Ship it?", ["yes", "no"]);
    const pushed = await sub.event(
      (e) => e.event === "row" && e.row.id === id && e.row.question === "Ship it?",
      "the blocked row's push",
    );
    expect(pushed.row.asked).toBe(blocked.asked);
    const http = await api(shared.d, "list", {});
    expect(http.status).toBe(200);
    expect((http.body as any).result.rows.find((r: any) => r.id === id).asked).toBe(blocked.asked);
    const ls = await roost(["ls", id, "--json"], cliEnv());
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.stdout).rows[0].asked).toBe(blocked.asked);
  });
});

describe("reply's ifAsked", () => {
  it("over the socket: the asked now is taken; another is refused conflict, nothing stored or sent", async () => {
    const { c, agent, id, blocked, ask } = await blockedJob("Deploy j?", ["y", "n"]);
    const stale = blocked.asked as number;
    const now = (await ask("Deploy to prod?", ["y", "n"])).asked as number;
    const before = await row(c, id);
    const refused = await c.request("reply", { id, text: "y", ifAsked: stale });
    expect(refused.ok).toBe(false);
    expect(conflictOf(refused)).toEqual({
      code: "conflict",
      error: expect.stringContaining(`${id} now asks something else`),
    });
    expect(refused.error).toContain("Deploy to prod?");
    const after = await row(c, id);
    expect({ pending: after.pending, lastSeq: after.lastSeq, asked: after.asked }).toEqual({
      pending: before.pending,
      lastSeq: before.lastSeq,
      asked: now,
    });
    // The answer to the question as it is now goes through, and is the only one the agent gets.
    expect(await c.ok("reply", { id, text: "n", ifAsked: now })).toEqual({ saved: true, seq: 1 });
    await agent.waitFor(() => delivered(agent, id)[0], "the delivery");
    expect(delivered(agent, id).map((e) => e.text)).toEqual(["n"]);
    // The same answer again (a second click) is past: the row was answered.
    expect((await c.request("reply", { id, text: "n", ifAsked: now })).code).toBe("conflict");
    // Without ifAsked a reply is as before.
    expect((await c.ok("reply", { id, text: "more" })).seq).toBe(2);
    expect((await c.request("reply", { id, text: "x", ifAsked: -1 })).code).toBe("bad_request");
    expect((await c.request("reply", { id, text: "x", ifAsked: "3" })).code).toBe("bad_request");
  });

  it("two answers in one turn drawn for the same question: one taken, one refused", async () => {
    const { c, agent, id, blocked } = await blockedJob();
    const [one, two] = await Promise.all([
      c.request("reply", { id, text: "y", ifAsked: blocked.asked }),
      c.request("reply", { id, text: "n", ifAsked: blocked.asked }),
    ]);
    expect([one.ok, two.ok]).toEqual([true, false]);
    expect(two.code).toBe("conflict");
    await agent.waitFor(() => delivered(agent, id)[0], "the delivery");
    expect((await row(c, id)).pending + delivered(agent, id).length).toBeGreaterThan(0);
    expect(delivered(agent, id).map((e) => e.text)).toEqual(["y"]);
  });

  it("a resend of a taken answer with its request id is its duplicate, not a conflict", async () => {
    const { c, id, blocked } = await blockedJob();
    const args = { id, text: "y", ifAsked: blocked.asked, requestId: "click-1" };
    expect((await c.ok("reply", args)).saved).toBe(true);
    expect(await c.ok("reply", args)).toEqual({ duplicate: true, saved: true });
  });

  it("over HTTP: 409 conflict, nothing stored", async () => {
    const { c, id, blocked, ask } = await blockedJob();
    await ask("Deploy again?", ["y", "n"]);
    const r = await api(shared.d, "reply", { id, text: "y", ifAsked: blocked.asked });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ ok: false, code: "conflict" });
    expect((r.body as any).error).toContain(`${id} now asks something else`);
    expect((await row(c, id)).lastSeq).toBe(0);
    const now = (await row(c, id)).asked;
    const taken = await api(shared.d, "reply", { id, text: "y", ifAsked: now });
    expect(taken.status).toBe(200);
    expect((await row(c, id)).lastSeq).toBe(1);
  });

  it("through the TypeScript client: a RoostError with code conflict", async () => {
    const { c, id, blocked, ask } = await blockedJob();
    const now = (await ask("Which region?", ["eu", "us"])).asked;
    const client = new DaemonClient({ socket: shared.d.socket });
    try {
      const err = await client.reply({ id, text: "y", ifAsked: blocked.asked }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RoostError);
      expect((err as RoostError).code).toBe("conflict");
      expect((await row(c, id)).lastSeq).toBe(0);
      expect(await client.reply({ id, text: "eu", ifAsked: now })).toEqual({ saved: true, seq: 1 });
    } finally {
      client.close();
    }
  });

  it("through the Python client (RoostHub): RoostError conflict, then the answer to what it asks now", async () => {
    const { c, id, blocked, ask } = await blockedJob();
    const now = (await ask("Which region?", ["eu", "us"])).asked;
    const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(path.join(ROOT, "sdk/python"))})
from roost_agent import RoostHub, RoostError
hub = RoostHub(${JSON.stringify(shared.d.socket)})
out = {}
row = [r for r in hub.rows() if r["id"] == ${JSON.stringify(id)}][0]
out["asked"] = row["asked"]
try:
    hub.reply(${JSON.stringify(id)}, "y", if_asked=${blocked.asked})
    out["stale"] = "taken"
except RoostError as e:
    out["stale"] = e.code
out["now"] = hub.reply(${JSON.stringify(id)}, "eu", if_asked=${now})
hub.close()
print(json.dumps(out))
`;
    const printed = await new Promise<string>((resolve, reject) =>
      execFile("python3", ["-c", script], { timeout: 20000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(JSON.parse(printed)).toEqual({ asked: now, stale: "conflict", now: { saved: true, seq: 1 } });
    expect((await row(c, id)).lastSeq).toBe(1);
  });

  it("roost reply --if-asked N: refused conflict (exit 1, the message), then taken", async () => {
    const { c, id, blocked, ask } = await blockedJob();
    const now = (await ask("Which region?", ["eu", "us"])).asked;
    const env = cliEnv();
    const stale = await roost(["reply", id, "--if-asked", String(blocked.asked), "eu"], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`${id} now asks something else`);
    expect((await row(c, id)).lastSeq).toBe(0);
    const bad = await roost(["reply", id, "--if-asked", "two", "eu"], env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("--if-asked must be");
    const taken = await roost(["reply", id, "--if-asked", String(now), "eu"], env);
    expect(taken.code).toBe(0);
    expect((await row(c, id)).lastSeq).toBe(1);
  });

  it("a restart keeps asked: an answer drawn before it for an old question is still refused", async () => {
    const { c, id, blocked, ask } = await blockedJob();
    const now = (await ask("After the restart?", ["y", "n"])).asked;
    await c.ok("reply", { id, text: "n", ifAsked: now }); // answered: asked moves again
    const answered = (await row(c, id)).asked;
    expect(answered).toBe(now + 1);
    await shared.d.restart("SIGKILL"); // the reply's commit carried it: no flush at shutdown needed
    const c2: RawClient = await shared.d.client();
    const kept = await untilRow(c2, id, "the row back", (r) => r.asked !== undefined);
    expect(kept.asked).toBe(answered);
    expect((await c2.request("reply", { id, text: "y", ifAsked: now })).code).toBe("conflict");
    expect((await c2.request("reply", { id, text: "y", ifAsked: blocked.asked })).code).toBe("conflict");
    expect((await c2.ok("reply", { id, text: "y", ifAsked: answered })).saved).toBe(true);
  });
});

function cliEnv(): Record<string, string> {
  return { ...userEnv(), ROOST_HOME: shared.d.home, ROOST_SOCKET: shared.d.socket };
}
