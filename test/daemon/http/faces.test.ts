/**
 * One list of op cases, each run through both faces (the unix socket and HTTP) on one daemon:
 * the same results and the same error codes (docs/protocol.md, "The hub's ops": "the same ops,
 * args, results and error codes on the unix socket and over HTTP").
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../../sdk/ts/protocol/index.js";
import { startDaemon, type TestDaemon } from "../../helpers/daemon.js";
import { api } from "../../helpers/http.js";
import { QUIET_MS, SLEEPER, silentProfile, untilRow } from "../../helpers/jobs.js";
import type { RawClient } from "../../helpers/raw-client.js";

let d: TestDaemon;
let c: RawClient;
/**
 * Each test's own jobs, made before it (a case's args may name one: `$job`, `$other`): no test
 * leans on what one before it did. `job`: a protocol job whose agent never connects, its task
 * waiting as reply 1; `other`: a terminal job. Both settled (see beforeEach).
 */
let made: Record<string, string> = {};

beforeAll(async () => {
  d = await startDaemon({
    config: {
      agentProfiles: {
        silent: silentProfile({ quietMs: QUIET_MS }),
        sleeper: { command: SLEEPER, quietMs: QUIET_MS },
      },
    },
  });
  c = await d.client();
});
beforeEach(async () => {
  made = {
    job: (await c.ok("dispatch", { profile: "silent", task: "first task" })).job.id,
    other: (await c.ok("dispatch", { profile: "sleeper", name: "other" })).job.id,
  };
  // Both rows are read from their screens until they settle (`idle` once quiet): settled first,
  // so that the two faces' answers, a moment apart, see the same rows.
  for (const id of Object.values(made)) await untilRow(c, id, "its screen read", (r) => r.status !== null);
});
afterAll(async () => d?.cleanup());

type Expect = "equal" | "duplicate" | keyof typeof ERROR_CODES;
interface Case {
  what: string;
  op: string;
  args: Record<string, unknown>;
  expect: Expect;
  /** What the case needs done first, on the socket (ids as in `made`). */
  before?: (ids: Record<string, string>) => Promise<void>;
}

const CASES: Case[] = [
  { what: "list every row", op: "list", args: {}, expect: "equal" },
  { what: "list one row", op: "list", args: { id: "$job" }, expect: "equal" },
  { what: "list a job that is not there", op: "list", args: { id: "j999" }, expect: "not_found" },
  { what: "list with an id of the wrong type", op: "list", args: { id: 5 }, expect: "bad_request" },
  { what: "an op that does not exist", op: "nope", args: {}, expect: "bad_request" },
  { what: "dispatch without a profile", op: "dispatch", args: {}, expect: "bad_request" },
  {
    what: "dispatch an unknown profile",
    op: "dispatch",
    args: { profile: "no-such" },
    expect: "bad_request",
  },
  {
    what: "dispatch with a bad requestId",
    op: "dispatch",
    args: { profile: "silent", requestId: "a b" },
    expect: "bad_request",
  },
  {
    what: "dispatch sent twice",
    op: "dispatch",
    args: { profile: "silent", task: "t", requestId: "faces-d1" },
    expect: "duplicate",
  },
  {
    what: "reply to a job that is not there",
    op: "reply",
    args: { id: "j999", text: "hi" },
    expect: "not_found",
  },
  { what: "reply with no text", op: "reply", args: { id: "$job", text: "" }, expect: "bad_request" },
  {
    what: "reply in a mode that is not one",
    op: "reply",
    args: { id: "$job", text: "x", mode: "sideways" },
    expect: "bad_request",
  },
  {
    what: "reply sent twice",
    op: "reply",
    args: { id: "$job", text: "hello", requestId: "faces-r1" },
    expect: "duplicate",
  },
  {
    what: "a slash command to an agent not connected",
    op: "reply",
    args: { id: "$job", text: "/compact" },
    expect: "busy",
  },
  {
    what: "reply to a job with 50 replies waiting",
    op: "reply",
    args: { id: "$job", text: "one too many" },
    expect: "full",
    // The task is reply 1: 49 more make 50 waiting.
    before: async (ids) => {
      for (let i = 2; i <= 50; i++) expect((await c.ok("reply", { id: ids.job, text: `r${i}` })).seq).toBe(i);
    },
  },
  { what: "the replies not yet taken", op: "pending", args: { id: "$job" }, expect: "equal" },
  { what: "pending of a job that is not there", op: "pending", args: { id: "j999" }, expect: "not_found" },
  { what: "pin", op: "pin", args: { id: "$job", pinned: true }, expect: "equal" },
  {
    what: "list after pinning",
    op: "list",
    args: {},
    expect: "equal",
    before: async (ids) => void (await c.ok("pin", { id: ids.job, pinned: true })),
  },
  { what: "rename to nothing", op: "rename", args: { id: "$job", name: "" }, expect: "bad_request" },
  { what: "rename", op: "rename", args: { id: "$job", name: "renamed" }, expect: "equal" },
  { what: "reorder with no ids", op: "reorder", args: { ids: [] }, expect: "bad_request" },
  { what: "reorder", op: "reorder", args: { ids: ["$other", "$job"] }, expect: "equal" },
  { what: "stop a job that is not there", op: "stop", args: { id: "j999" }, expect: "not_found" },
  { what: "respawn a job that is not there", op: "respawn", args: { id: "j999" }, expect: "not_found" },
  { what: "events, the newest", op: "events", args: { limit: 5 }, expect: "equal" },
  { what: "events of one job", op: "events", args: { id: "$job" }, expect: "equal" },
  { what: "events involving one job", op: "events", args: { involving: "$job" }, expect: "equal" },
  { what: "events involving no id", op: "events", args: { involving: "" }, expect: "bad_request" },
  { what: "events with a limit of 0", op: "events", args: { limit: 0 }, expect: "bad_request" },
  { what: "events with an unknown arg", op: "events", args: { after: 0, colour: "red" }, expect: "equal" },
  { what: "profiles", op: "profiles", args: {}, expect: "equal" },
  { what: "whoami (the owner)", op: "whoami", args: {}, expect: "equal" },
  {
    what: "input to a job that is not there",
    op: "input",
    args: { id: "j999", data: "x" },
    expect: "not_found",
  },
  { what: "resize too small", op: "resize", args: { id: "$other", cols: 1, rows: 1 }, expect: "bad_request" },
  { what: "rm", op: "rm", args: { id: "$other" }, expect: "not_found" /* the second face finds it gone */ },
];

/** `$name` in args is an id a case made. */
const resolve = (args: Record<string, unknown>): Record<string, unknown> =>
  JSON.parse(JSON.stringify(args), (_k, v) =>
    typeof v === "string" && v.startsWith("$") ? made[v.slice(1)] : v,
  );

describe("the socket and HTTP answer alike", () => {
  for (const k of CASES) {
    it(`${k.what}: ${k.expect}`, async () => {
      await k.before?.(made);
      const args = resolve(k.args);
      const bySocket = await c.request(k.op, args);
      const byHttp = await api(d, k.op, args);
      const http = byHttp.body;
      if (k.expect === "equal") {
        expect(bySocket.ok, JSON.stringify(bySocket)).toBe(true);
        expect(byHttp.status).toBe(200);
        expect(http).toEqual({ ok: true, result: bySocket.result });
      } else if (k.expect === "duplicate") {
        // The socket made it; HTTP sent the same requestId again and was told so, with the same answer.
        expect(bySocket.ok, JSON.stringify(bySocket)).toBe(true);
        expect(http.ok).toBe(true);
        expect(http.result.duplicate).toBe(true);
        if (k.op === "dispatch") expect(http.result.job.id).toBe(bySocket.result.job.id);
        if (k.op === "reply") expect(http.result.saved).toBe(true);
      } else if (k.op === "rm") {
        // rm is done once: the socket's removes it, HTTP's is told it is gone.
        expect(bySocket.ok).toBe(true);
        expect(http).toMatchObject({ ok: false, code: k.expect });
        expect(byHttp.status).toBe(ERROR_CODES[k.expect].status);
      } else {
        expect(bySocket).toMatchObject({ ok: false, code: k.expect });
        expect(http).toMatchObject({ ok: false, code: k.expect });
        expect(byHttp.status).toBe(ERROR_CODES[k.expect].status);
        expect(http.error).toBe(bySocket.error);
      }
    });
  }

  it("pending lists the job's replies not yet taken, oldest first, with their text", async () => {
    // The silent agent never connects: its first task and the reply sent here both wait.
    await c.ok("reply", { id: made.job, text: "hello" });
    const { replies } = (await api(d, "pending", { id: made.job }, { method: "GET" })).body.result;
    expect(replies.map((r: any) => [r.seq, r.text, r.mode, r.kind])).toEqual([
      [1, "first task", null, null],
      [2, "hello", null, null],
    ]);
  });

  it("GET with query parameters answers as POST does, for the ops that only look", async () => {
    for (const [op, args] of [
      ["list", { id: made.job }],
      ["events", { limit: 3, id: made.job }],
      ["events", { limit: "many" }],
      ["profiles", {}],
      ["whoami", {}],
      ["pending", { id: made.job }],
    ] as const) {
      const post = await api(d, op, args);
      const get = await api(d, op, args, { method: "GET" });
      expect(get.status, op).toBe(post.status);
      expect(get.body, op).toEqual(post.body);
    }
  });

  it("a refusal's status is its code's over HTTP: 429 for full, with the socket's answer", async () => {
    for (let i = 2; i <= 50; i++) await c.ok("reply", { id: made.job, text: `r${i}` });
    const byHttp = await api(d, "reply", { id: made.job, text: "one too many", requestId: "faces-full" });
    expect(byHttp.status).toBe(429);
    expect(byHttp.body).toMatchObject({ ok: false, code: "full" });
    expect(byHttp.body.error).toContain("50");
    const { replies } = await c.ok("pending", { id: made.job });
    expect(replies).toHaveLength(50); // not kept
  });

  it("token create with a name that exists: conflict on the socket; over HTTP token is refused (405) before it runs", async () => {
    const name = `faces-${made.job}`;
    const first = await c.ok("token", { action: "create", name });
    const again = await c.request("token", { action: "create", name });
    expect(again).toMatchObject({ ok: false, code: "conflict" });
    expect(ERROR_CODES.conflict.status).toBe(409);
    // `token` is the owner's socket's alone: over HTTP no token op runs, so none can conflict.
    const byHttp = await api(d, "token", { action: "create", name });
    expect(byHttp.status).toBe(405);
    expect(byHttp.body).toMatchObject({ ok: false, code: "unsupported" });
    const { tokens } = await c.ok("token", { action: "list" });
    expect(tokens.filter((t: any) => t.name === name)).toEqual([first.token]);
    await c.ok("token", { action: "revoke", name });
  });
});
