/**
 * The HTTP face's guard (docs/http.md, "Auth"), against a real
 * daemon: Host, then Origin, then the token, before any route runs or any WebSocket upgrades.
 */
import fs from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { daemonRefusal, startDaemon, type TestDaemon, until } from "../../helpers/daemon.js";
import { api, closeAllSockets, rawRequest, TestSocket, upgradeLines } from "../../helpers/http.js";

let d: TestDaemon;
let host: string;
beforeAll(async () => {
  d = await startDaemon({ config: { agentProfiles: { sleeper: { command: ["sleep", "600"] } } } });
  host = new URL(d.url).host;
});
afterAll(async () => {
  closeAllSockets();
  await d?.cleanup();
});
afterEach(() => closeAllSockets());

/** Logs in with the login link and returns the cookie it set (`name=value`). */
async function login(token: string): Promise<string> {
  const res = await fetch(`${d.url}login?token=${encodeURIComponent(token)}`, { redirect: "manual" });
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/");
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

describe("the token", () => {
  it("lets /healthz through without one, and nothing else", async () => {
    expect((await fetch(`${d.url}healthz`)).status).toBe(200);
    const none = await api(d, "list", {}, { token: null });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ ok: false, code: "unauthorized" });
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await api(d, "list", {}, { token: null, method: "GET" })).status).toBe(401);
    expect((await fetch(`${d.url}api/openapi.json`)).status).toBe(401);
    // A person opening the hub without a login gets a page that says how, not JSON.
    const page = await fetch(d.url, { headers: { accept: "text/html" } });
    expect(page.status).toBe(401);
    expect(await page.text()).toContain("roost open");
  });

  it("refuses a wrong token, a token that is one character off, and a malformed header", async () => {
    const good = d.token;
    const offByOne = good.slice(0, -1) + (good.endsWith("A") ? "B" : "A");
    for (const token of ["wrong", offByOne, `${good}x`, ""]) {
      const res = await api(d, "list", {}, { token });
      expect(res.status, token).toBe(401);
      expect(res.body.code).toBe("unauthorized");
    }
    const basic = await api(d, "list", {}, { token: null, headers: { authorization: `Basic ${good}` } });
    expect(basic.status).toBe(401);
    expect((await api(d, "list")).status).toBe(200);
  });

  it("is never logged", async () => {
    await fetch(`${d.url}login?token=${encodeURIComponent(d.token)}`, { redirect: "manual" });
    await api(d, "list");
    await api(d, "list", {}, { token: "wrong-token-123" });
    expect(d.output).not.toContain(d.token);
    expect(d.output).not.toContain("wrong-token-123");
  });
});

describe("the login link", () => {
  it("sets an HttpOnly, SameSite=Strict cookie and sends the browser to / without the token", async () => {
    const res = await fetch(`${d.url}login?token=${encodeURIComponent(d.token)}`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/); // plain http on loopback: a Secure cookie would never come back
    const list = await api(d, "list", {}, { token: null, headers: { cookie: cookie.split(";")[0]! } });
    expect(list.status).toBe(200);
  });

  it("marks the cookie Secure when the request came over https (a tunnel in front says so)", async () => {
    const res = await fetch(`${d.url}login?token=${encodeURIComponent(d.token)}`, {
      redirect: "manual",
      headers: { "x-forwarded-proto": "https" },
    });
    expect(res.headers.get("set-cookie")).toMatch(/; Secure/);
  });

  it("sets no cookie for a wrong token", async () => {
    const res = await fetch(`${d.url}login?token=nope`, { redirect: "manual" });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("good once (`token once`, roost open's): logs in as the owner once; used or made up, nothing", async () => {
    const owner = await d.client();
    const { link } = await owner.ok("token", { action: "once" });
    expect(link).not.toContain(d.token);
    const first = await fetch(link, { redirect: "manual" });
    expect(first.status).toBe(303);
    const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie.endsWith(`=${encodeURIComponent(d.token)}`)).toBe(true);
    expect((await api(d, "list", {}, { token: null, headers: { cookie } })).status).toBe(200);
    for (const again of [link, `${d.url}login?once=${"A".repeat(43)}`, `${d.url}login?once=`]) {
      const res = await fetch(again, { redirect: "manual" });
      expect(res.status, again).toBe(401);
      expect(res.headers.get("set-cookie"), again).toBeNull();
    }
    owner.close();
  });
});

describe("the Host", () => {
  it("refuses a Host that is not this machine (DNS rebinding), on HTTP and before an upgrade", async () => {
    const auth = `Authorization: Bearer ${d.token}`;
    const plain = await rawRequest(d, ["GET /api/list HTTP/1.1", "Host: evil.test", auth]);
    expect(plain.status).toBe(403);
    expect(plain.text).toContain('"code":"policy"');
    expect(plain.text).toContain("http.allowedHosts");
    const evilPort = await rawRequest(d, [
      "GET /api/list HTTP/1.1",
      `Host: evil.test:${new URL(d.url).port}`,
      auth,
    ]);
    expect(evilPort.status).toBe(403);
    const upgrade = await rawRequest(d, upgradeLines("/api/subscribe", "evil.test", [auth]));
    expect(upgrade.status).toBe(403);
    expect(upgrade.text).not.toContain("101 Switching Protocols");
    // The same requests by a loopback name go through.
    for (const name of [host, `localhost:${new URL(d.url).port}`]) {
      expect((await rawRequest(d, ["GET /api/list HTTP/1.1", `Host: ${name}`, auth])).status).toBe(200);
    }
    expect((await rawRequest(d, upgradeLines("/api/subscribe", host, [auth]))).status).toBe(101);
  });

  it("lets in a name listed in http.allowedHosts (a tunnel's), and an origin in http.allowedOrigins", async () => {
    const dash = "https://dash.example.com";
    const other = await startDaemon({
      config: { http: { allowedHosts: ["roost.example.ts.net"], allowedOrigins: [dash] } },
    });
    try {
      const auth = `Authorization: Bearer ${other.token}`;
      const ok = await rawRequest(other, ["GET /api/list HTTP/1.1", "Host: roost.example.ts.net", auth]);
      expect(ok.status).toBe(200);
      const evil = await rawRequest(other, ["GET /api/list HTTP/1.1", "Host: evil.example.ts.net", auth]);
      expect(evil.status).toBe(403);

      // The listed dashboard: its preflight (no token) is answered, and it may act, with CORS headers.
      const preflight = await fetch(`${other.url}api/pin`, {
        method: "OPTIONS",
        headers: { origin: dash, "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe(dash);
      expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization");
      const acted = await api(other, "pin", { id: "j9", pinned: true }, { headers: { origin: dash } });
      expect(acted.body.code).toBe("not_found"); // it got through to the op
      expect(acted.headers.get("access-control-allow-origin")).toBe(dash);
      const foreign = await api(
        other,
        "pin",
        { id: "j9", pinned: true },
        { headers: { origin: "https://evil.test" } },
      );
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await other.cleanup();
    }
  });
});

describe("the Origin", () => {
  it.each([
    "https://evil.test",
    "http://192.168.1.5",
    "null",
  ])("refuses an upgrade from Origin %s before it upgrades, with the right token", async (origin) => {
    const res = await rawRequest(
      d,
      upgradeLines("/api/subscribe", host, [`Authorization: Bearer ${d.token}`, `Origin: ${origin}`]),
    );
    expect(res.status).toBe(403);
    expect(res.text).not.toContain("101 Switching Protocols");
    expect(res.text).toContain('"code":"policy"');
    await expect(TestSocket.open(d, "/api/subscribe", { headers: { origin } })).rejects.toThrow(
      /upgrade refused: 403/,
    );
  });

  it("lets the hub's own page upgrade", async () => {
    const ws = await TestSocket.open(d, "/api/subscribe", { headers: { origin: `http://${host}` } });
    expect((await ws.next((m) => "ok" in m, "the rows")).ok).toBe(true);
  });

  it("refuses a cross-site form POST that carries the login cookie, and acts on nothing", async () => {
    const cookie = await login(d.token);
    const before = (await api(d, "list")).body.result.rows.length;
    const form = await rawRequest(
      d,
      [
        "POST /api/dispatch HTTP/1.1",
        `Host: ${host}`,
        `Cookie: ${cookie}`,
        "Origin: https://evil.test",
        "Content-Type: application/x-www-form-urlencoded",
      ],
      "profile=sleeper",
    );
    expect(form.status).toBe(403);
    // A browser that sends no Origin still says the request is cross-site.
    const noOrigin = await rawRequest(
      d,
      [
        "POST /api/dispatch HTTP/1.1",
        `Host: ${host}`,
        `Cookie: ${cookie}`,
        "Sec-Fetch-Site: cross-site",
        "Content-Type: application/json",
      ],
      '{"profile":"sleeper"}',
    );
    expect(noOrigin.status).toBe(403);
    // A form cannot send JSON: a same-origin form post is refused for its body too.
    const sameOriginForm = await rawRequest(
      d,
      [
        "POST /api/dispatch HTTP/1.1",
        `Host: ${host}`,
        `Cookie: ${cookie}`,
        `Origin: http://${host}`,
        "Content-Type: application/x-www-form-urlencoded",
      ],
      "profile=sleeper",
    );
    expect(sameOriginForm.status).toBe(400);
    expect(sameOriginForm.text).toContain("Content-Type: application/json");
    expect((await api(d, "list")).body.result.rows.length).toBe(before);
    // The hub's own page, with the cookie, acts.
    const own = await api(
      d,
      "dispatch",
      { profile: "sleeper" },
      { token: null, headers: { cookie, origin: `http://${host}` } },
    );
    expect(own.status).toBe(200);
    expect((await api(d, "list")).body.result.rows.length).toBe(before + 1);
    await api(d, "rm", { id: own.body.result.job.id });
  });
});

describe("a read-only token", () => {
  it("may list, read events and subscribe; never dispatch, reply, stop or type", async () => {
    const owner = await d.client();
    const made = await owner.ok("token", { action: "create", name: "dash", readOnly: true });
    expect(made.token).toMatchObject({ name: "dash", readOnly: true });
    const secret = new URL(made.link).searchParams.get("token")!;
    const job = (await api(d, "dispatch", { profile: "sleeper" })).body.result.job;

    expect((await api(d, "list", {}, { token: secret, method: "GET" })).body.ok).toBe(true);
    expect((await api(d, "list", {}, { token: secret })).body.ok).toBe(true);
    expect((await api(d, "events", { limit: 5 }, { token: secret, method: "GET" })).body.ok).toBe(true);
    expect((await api(d, "whoami", {}, { token: secret })).body.result).toMatchObject({
      token: "dash",
      readOnly: true,
    });
    const sub = await TestSocket.open(d, "/api/subscribe", { token: secret });
    expect((await sub.next((m) => "ok" in m, "the rows")).result.rows.map((r: any) => r.id)).toContain(
      job.id,
    );

    for (const [op, args] of [
      ["dispatch", { profile: "sleeper" }],
      ["reply", { id: job.id, text: "hello" }],
      ["stop", { id: job.id }],
      ["rm", { id: job.id }],
      ["pin", { id: job.id, pinned: true }],
      ["input", { id: job.id, data: "x" }],
      ["shutdown", {}],
    ] as const) {
      const res = await api(d, op, args, { token: secret });
      expect(res.status, op).toBe(403);
      expect(res.body.code, op).toBe("policy");
    }
    // Watching a terminal is looking; typing into it is acting.
    const term = await TestSocket.open(d, `/api/jobs/${job.id}/terminal`, { token: secret });
    expect((await term.next((m) => "ok" in m, "the screen")).ok).toBe(true);
    term.send({ op: "input", args: { data: "echo typed\r" } });
    term.send({ op: "resize", args: { cols: 100, rows: 30 } });
    expect((await term.next((m) => m.op === "input", "the refusal")).code).toBe("policy");
    expect((await term.next((m) => m.op === "resize", "the refusal")).code).toBe("policy");
    // Nothing it tried happened.
    const after = (await api(d, "list", { id: job.id })).body.result.rows[0];
    expect(after).toMatchObject({ life: "running", pinned: false, pending: 0 });

    // Revoked: its requests are refused, and the WebSockets it holds open are closed.
    await owner.ok("token", { action: "revoke", name: "dash" });
    expect((await api(d, "list", {}, { token: secret })).status).toBe(401);
    await until("the revoked token's subscription closed", () => sub.closed);
    expect(sub.closed).toMatchObject({ code: 1008, reason: "the token was revoked" });
    await until("the revoked token's terminal closed", () => term.closed);
    await api(d, "rm", { id: job.id });
  });
});

describe("the body", () => {
  it("over the limit is 413 in roost's shape, and the daemon goes on serving", async () => {
    // As curl sends a large body: the length first. roost answers before reading the rest.
    const res = await rawRequest(
      d,
      [
        "POST /api/reply HTTP/1.1",
        `Host: ${host}`,
        `Authorization: Bearer ${d.token}`,
        "Content-Type: application/json",
        `Content-Length: ${5 * 1024 * 1024}`,
      ],
      `{"id": "j1", "text": "${"x".repeat(65536)}`,
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text.slice(res.text.indexOf("\r\n\r\n") + 4))).toMatchObject({
      ok: false,
      code: "limit",
    });
    expect((await api(d, "list")).status).toBe(200);
  });

  it("that is not JSON, or not an object, is bad_request", async () => {
    const res = await fetch(`${d.url}api/list`, {
      method: "POST",
      headers: { authorization: `Bearer ${d.token}`, "content-type": "application/json" },
      body: "{nope",
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false, code: "bad_request" });
    const array = await api(d, "list", [1, 2]);
    expect(array.status).toBe(400);
    expect(array.body.error).toContain("JSON object");
  });
});

describe("what HTTP does not serve", () => {
  it("keeps the agent protocol and token minting on the owner's socket", async () => {
    for (const op of ["hello", "report", "ack", "token"]) {
      for (const method of ["POST", "GET"] as const) {
        const res = await api(d, op, {}, { method });
        expect(res.status, `${method} ${op}`).toBe(405);
        expect(res.body.code, `${method} ${op}`).toBe("unsupported");
        expect(res.body.error, `${method} ${op}`).toContain("only on the unix socket");
      }
    }
  });

  it("answers a stream op over plain HTTP with where its WebSocket is", async () => {
    const res = await api(d, "subscribe");
    expect(res.status).toBe(405);
    expect(res.body.error).toContain("GET /api/subscribe");
    const get = await fetch(`${d.url}api/subscribe`, { headers: { authorization: `Bearer ${d.token}` } });
    expect(get.status).toBe(400);
    expect(await get.json()).toMatchObject({ code: "bad_request" });
  });

  it("says an acting op is POST when it is asked for with GET", async () => {
    const res = await api(d, "dispatch", { profile: "sleeper" }, { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.body.error).toContain("POST /api/dispatch");
  });

  it("sends no CORS headers, and headers that keep the hub out of frames", async () => {
    const res = await api(d, "list", {}, { headers: { origin: "https://evil.test" }, method: "GET" });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});

describe("GET /api/openapi.json", () => {
  it("describes every op HTTP serves, with the schema set's args and results", async () => {
    const spec = (await api(d, "openapi.json", {}, { method: "GET" })).body;
    expect(spec.openapi).toBe("3.1.0");
    for (const op of ["list", "dispatch", "reply", "events", "pending", "profiles", "whoami", "reorder"]) {
      expect(spec.paths[`/api/${op}`]?.post, op).toBeDefined();
    }
    for (const op of ["hello", "report", "ack", "token"])
      expect(spec.paths[`/api/${op}`], op).toBeUndefined();
    expect(spec.paths["/api/list"].get.parameters.map((p: any) => p.name)).toEqual(["id"]);
    expect(spec.paths["/api/dispatch"].get).toBeUndefined();
    const dispatch = spec.paths["/api/dispatch"].post;
    expect(dispatch.requestBody.content["application/json"].schema.required).toEqual(["profile"]);
    expect(dispatch.responses["200"].content["application/json"].schema.properties.result.required).toContain(
      "job",
    );
    expect(spec.paths["/api/subscribe"].get.responses["101"]).toBeDefined();
  });
});

describe("where it listens", () => {
  it("listens beyond this machine when roost.json asks, and still wants the token and a known Host", async () => {
    const open = await startDaemon({ config: { http: { host: "0.0.0.0" } } });
    try {
      expect(open.output).toContain("listening beyond this machine (0.0.0.0, from roost.json)");
      expect(open.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect((await api(open, "list", {}, { token: null })).status).toBe(401);
      expect((await api(open, "list")).status).toBe(200);
    } finally {
      await open.cleanup();
    }
  });

  afterEach(() => {
    for (const suffix of ["-other", "-taken"])
      fs.rmSync(`${d.home}${suffix}`, { recursive: true, force: true });
  });

  it("refuses a non-loopback address from the environment: only roost.json may ask for one", async () => {
    const err = await daemonRefusal({ ...d.env, ROOST_HOME: `${d.home}-other`, ROOST_HOST: "0.0.0.0" });
    expect(err.code).toBe(2);
    expect(err.stderr).toContain("http.host in roost.json");
  });

  it("says which port is taken, and exits", async () => {
    const port = new URL(d.url).port;
    const err = await daemonRefusal({ ...d.env, ROOST_HOME: `${d.home}-taken`, ROOST_PORT: port });
    expect(err.code).toBe(1);
    expect(err.stderr).toContain(`${port} is in use`);
  });
});
