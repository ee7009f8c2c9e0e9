/**
 * The web face under attack, on every route it has (the OpenAPI document's, the hub's pages, the
 * two WebSockets), in a random order and with the variants a browser or an attacker sends:
 *
 * - DNS rebinding: a Host that is not this machine, on every route and method and before every
 *   upgrade, with the right token: refused (403), never 101.
 * - Cross-site WebSockets: Origin evil, a LAN address, `null`: refused before the upgrade.
 * - A cross-site form POST carrying the login cookie, to every op that acts: refused, nothing done.
 * - A read-only token, every op that acts, over HTTP: refused (`policy`), nothing done.
 * - A revoked token's open WebSockets (subscribe and a terminal): closed at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OP_TABLE } from "../../server/ops/index.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { api, closeAllSockets, rawRequest, TestSocket, upgradeLines } from "../helpers/http.js";
import { silentProfile } from "../helpers/jobs.js";
import { caseSeed, faultPlan, once, Random, reportCase } from "./chaos.js";

let d: TestDaemon;
let job: string;
beforeAll(async () => {
  d = await startDaemon({ config: { agentProfiles: { silent: silentProfile() } } });
  job = (await once(d, "dispatch", { profile: "silent" })).job.id;
});
afterAll(async () => {
  closeAllSockets();
  await d?.cleanup();
});

/** Args that make an op act (the ops whose acting depends on them: their args are checked first). */
const ACTING_ARGS: Record<string, unknown> = {
  task: { action: "add", title: "from elsewhere" },
  concierge: { action: "on", launch: { profile: "silent" } },
  "concierge-order": { action: "add", text: "from elsewhere" },
};

const actingOps = () =>
  [...OP_TABLE.values()].filter((op) => op.acts !== false).map((op) => op.name as string);

function shuffled<T>(rand: Random, items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rand.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** What changes when something acts: the rows, the board, the schedules, the feed's length. */
async function state() {
  return JSON.stringify([
    (await once(d, "list", {})).rows.map((r: any) => [r.id, r.life, r.pinned, r.name, r.lastSeq]),
    (await once(d, "task", { action: "list" })).tasks,
    (await once(d, "schedules", {})).schedules,
    (await once(d, "events", {})).events.length,
  ]);
}

async function login(): Promise<string> {
  const res = await fetch(`${d.url}login?token=${d.token}`, { redirect: "manual" });
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

describe("the web face under attack", () => {
  it("a foreign Host on every route and method, and before every upgrade: 403, never 101", async () => {
    const seed = caseSeed(7);
    const rand = new Random(seed);
    const spec = (await api(d, "openapi.json", {}, { method: "GET" })).body;
    const port = new URL(d.url).port;
    const paths = [
      ...Object.keys(spec.paths).map((p: string) => p.replace("{id}", job)),
      "/",
      "/login",
      "/healthz",
      "/index.html",
    ];
    const evil = [
      "evil.test",
      `evil.test:${port}`,
      `127.0.0.1.evil.test:${port}`,
      `localhost.evil.test`,
      "[::ffff:7f00:1]x",
    ];
    const auth = `Authorization: Bearer ${d.token}`;
    let tries = 0;
    for (let round = 0; round < faultPlan(2).count; round++) {
      for (const p of shuffled(rand, paths)) {
        const host = rand.pick(evil);
        for (const method of ["GET", "POST"]) {
          const res = await rawRequest(
            d,
            [`${method} ${p} HTTP/1.1`, `Host: ${host}`, auth, "Content-Type: application/json"],
            "{}",
          );
          expect([p, method, host, res.status]).toEqual([p, method, host, 403]);
          tries++;
        }
      }
      for (const p of ["/api/subscribe", `/api/jobs/${job}/terminal`]) {
        const res = await rawRequest(d, upgradeLines(p, rand.pick(evil), [auth]));
        expect([p, res.status, res.text.includes("101 Switching")]).toEqual([p, 403, false]);
        tries++;
      }
    }
    reportCase("a foreign Host on every route", seed, {
      routes: paths.length,
      requests: tries,
      refused: tries,
    });
  });

  it("an upgrade from Origin evil, a LAN address or null, on both WebSockets: refused before it upgrades", async () => {
    const origins = [
      "https://evil.test",
      "http://192.168.1.5",
      "http://10.0.0.7:7777",
      "null",
      "http://localhost.evil.test",
    ];
    const host = new URL(d.url).host;
    let tries = 0;
    for (const p of ["/api/subscribe", `/api/jobs/${job}/terminal`]) {
      for (const origin of origins) {
        const res = await rawRequest(
          d,
          upgradeLines(p, host, [`Authorization: Bearer ${d.token}`, `Origin: ${origin}`]),
        );
        expect([p, origin, res.status, res.text.includes("101 Switching")]).toEqual([p, origin, 403, false]);
        tries++;
      }
    }
    reportCase("cross-site WebSocket origins", caseSeed(8), { requests: tries, refused: tries });
  });

  it("a cross-site form POST with the login cookie, to every op that acts: refused, nothing done", async () => {
    const cookie = await login();
    const host = new URL(d.url).host;
    const before = await state();
    let tries = 0;
    for (const op of actingOps()) {
      for (const [origin, type] of [
        ["Origin: https://evil.test", "application/x-www-form-urlencoded"],
        ["Sec-Fetch-Site: cross-site", "application/json"],
        ["Origin: null", "text/plain"],
      ] as const) {
        const body = JSON.stringify(ACTING_ARGS[op] ?? { id: job, text: "x", profile: "silent" });
        const res = await rawRequest(
          d,
          [`POST /api/${op} HTTP/1.1`, `Host: ${host}`, `Cookie: ${cookie}`, origin, `Content-Type: ${type}`],
          body,
        );
        expect([op, origin, res.status]).toEqual([op, origin, 403]);
        tries++;
      }
    }
    expect(await state()).toBe(before);
    reportCase("cross-site form POSTs with the cookie", caseSeed(9), {
      ops: actingOps().length,
      requests: tries,
    });
  });

  it("a read-only token, every op that acts: refused with policy, nothing done", async () => {
    const made = await once(d, "token", { action: "create", name: "dash", readOnly: true });
    const secret = new URL(made.link).searchParams.get("token")!;
    const before = await state();
    const ops = actingOps();
    for (const op of ops)
      if (typeof OP_TABLE.get(op)!.acts === "function")
        expect(Object.keys(ACTING_ARGS), `${op} acts by its args: give it acting args above`).toContain(op);
    for (const op of ops) {
      const res = await api(d, op, ACTING_ARGS[op] ?? { id: job, text: "x", profile: "silent" }, {
        token: secret,
      });
      // An op not for HTTP (the socket's alone, or a session's) is refused as such before its
      // token is weighed: nothing acts either way.
      const def = OP_TABLE.get(op)!;
      const notHere = def.socketOnly || !def.allow.includes("hub");
      expect([op, res.status, res.body.code]).toEqual(
        notHere ? [op, 405, "unsupported"] : [op, 403, "policy"],
      );
    }
    expect(await state()).toBe(before);
    // What only looks, it may.
    expect((await api(d, "list", {}, { token: secret })).status).toBe(200);
    reportCase("a read-only token on every acting op", caseSeed(10), {
      ops: ops.length,
      refused: ops.length,
    });
  });

  it("a revoked token's open WebSockets, subscribe and a terminal: closed at once", async () => {
    const made = await once(d, "token", { action: "create", name: "soon-gone" });
    const secret = new URL(made.link).searchParams.get("token")!;
    const sub = await TestSocket.open(d, "/api/subscribe", { token: secret });
    await sub.next((m) => "ok" in m, "the rows");
    const term = await TestSocket.open(d, `/api/jobs/${job}/terminal`, { token: secret });
    await term.next((m) => "ok" in m, "the screen");
    await once(d, "token", { action: "revoke", name: "soon-gone" });
    await until("both closed", () => sub.closed && term.closed);
    expect([sub.closed!.code, term.closed!.code]).toEqual([1008, 1008]);
    expect((await api(d, "list", {}, { token: secret })).status).toBe(401);
  });
});
