/**
 * A remote cannot take the hub down (docs/fleet.md, "What a remote may send"). A real daemon whose
 * roost.json names two fake remotes (test/helpers/fake-remote.ts): `evil`, which sends what no
 * daemon would (deep nesting, rows that are not rows, more than a remote may keep, answers larger
 * than any), and `good`, which behaves. Whatever evil sends, this daemon's own list, `/api/list`,
 * `subscribe` (socket and WebSocket) and `roost ls` keep working, good's row stays, nothing evil
 * sent out of bounds is kept or relayed, and evil's connection ends with the reason logged and
 * pushed (`remote`).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../sdk/ts/protocol/index.js";
import { INERT } from "../helpers/board.js";
import { roost } from "../helpers/cli.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import {
  FakeRemote,
  type OnSubscribe,
  remoteRow,
  rowPush,
  rssKiB,
  sendWhenRoom,
  subscribed,
} from "../helpers/fake-remote.js";
import { api, closeAllSockets, TestSocket } from "../helpers/http.js";
import type { RawClient } from "../helpers/raw-client.js";

let d: TestDaemon;
let hub: RawClient;
/** Subscribed from the start: every `remote` push. */
let watcher: RawClient;
let evil: FakeRemote;
let good: FakeRemote;
let mine: string;

const GOOD_ROW = remoteRow("j1", { name: "good-one" });
/** What evil does when a test has not told it otherwise: a real daemon's answer, one row. */
const BENIGN: OnSubscribe = (ws) => ws.send(subscribed([remoteRow("j1", { name: "evil-benign" })]));

beforeAll(async () => {
  evil = await FakeRemote.start();
  good = await FakeRemote.start();
  good.onSubscribe = (ws) => ws.send(subscribed([GOOD_ROW]));
  evil.onSubscribe = BENIGN;
  d = await startDaemon({
    config: {
      agentProfiles: { inert: INERT },
      remotes: [
        { name: "evil", url: evil.url, token: "evil-token" },
        { name: "good", url: good.url, token: "good-token" },
      ],
    },
  });
  hub = await d.client();
  watcher = await d.client();
  await watcher.ok("subscribe", {});
  mine = (await hub.ok("dispatch", { profile: "inert", name: "mine" })).job.id;
  await until("both remotes' rows here", async () => {
    const ids = (await hub.ok("list")).rows.map((r: any) => r.id);
    return ids.includes("good:j1") && ids.includes("evil:j1");
  });
}, 60_000);
afterEach(() => {
  evil.onSubscribe = BENIGN;
  closeAllSockets();
});
afterAll(async () => {
  await d?.cleanup();
  await Promise.all([evil?.close(), good?.close()]);
});

/** evil's next subscriber gets `behaviour`: its current connections are cut, and the daemon comes back. */
async function evilDoes(behaviour: OnSubscribe): Promise<void> {
  const before = evil.subscribers.length;
  evil.onSubscribe = behaviour;
  for (const ws of evil.subscribers) ws.terminate();
  await until("the daemon subscribed to evil again", () => evil.subscribers.length > before);
}

/** The `remote` push about evil, after the `from`th event, whose error matches `why`. */
const evilEnded = (from: number, why: RegExp) =>
  watcher.waitFor(
    () =>
      watcher.events
        .slice(from)
        .find((e) => e.event === "remote" && e.name === "evil" && !e.reachable && why.test(e.error ?? "")),
    `a remote push about evil saying ${why}`,
  );

/** Sent on `ws` and written out: the daemon has it, or will at its next read. */
const sent = (ws: import("ws").WebSocket, text: string) =>
  new Promise<void>((resolve, reject) => ws.send(text, (err) => (err ? reject(err) : resolve())));

/** This daemon's own face, whole: the list on the socket and over HTTP, subscribe both ways, `roost ls`. */
async function faceWorks(): Promise<string[]> {
  const listed = await hub.request("list");
  expect(listed.ok, JSON.stringify(listed).slice(0, 300)).toBe(true);
  const ids = listed.result.rows.map((r: any) => r.id);
  expect(ids).toEqual(expect.arrayContaining([mine, "good:j1"]));
  const overHttp = await api(d, "list", {}, { method: "GET" });
  expect(overHttp.status, JSON.stringify(overHttp.body).slice(0, 300)).toBe(200);
  const sub = await d.client();
  const onSocket = await sub.request("subscribe", {});
  expect(onSocket.ok, JSON.stringify(onSocket).slice(0, 300)).toBe(true);
  sub.close();
  const ws = await TestSocket.open(d, "/api/subscribe");
  const first = await ws.next((m) => "ok" in m, "subscribe's answer over the WebSocket");
  expect(first.ok, JSON.stringify(first).slice(0, 300)).toBe(true);
  ws.close();
  const ls = await roost(["ls"], d.env);
  expect(ls.code, ls.stderr).toBe(0);
  expect(ls.stdout).toContain("mine");
  expect(ls.stdout).toContain("good-one");
  return ids;
}

/** The daemon's log since `from` holds the reason for evil, and no failure. */
function logged(from: number, why: RegExp): void {
  const log = d.output.slice(from);
  expect(log).toMatch(new RegExp(`the remote evil .*${why.source}`));
  expect(log).not.toMatch(/uncaught|unhandled|Maximum call stack|TypeError|could not be encoded/i);
}

describe("a remote that sends what no daemon would", () => {
  it("usage nested 200,000 deep: the row is refused, evil's connection ends saying why; the local list, /api/list, subscribe and roost ls keep working", async () => {
    const from = watcher.events.length;
    const logFrom = d.output.length;
    const deep = `${'{"a":'.repeat(200_000)}1${"}".repeat(200_000)}`;
    const row = JSON.stringify(remoteRow("j2", { name: "deep" })).replace('"usage":null', `"usage":${deep}`);
    let pushed: Promise<void> | undefined;
    await evilDoes((ws) => {
      ws.send(subscribed([remoteRow("j1", { name: "evil-benign" })]));
      pushed = sent(ws, `{"event":"row","row":${row}}`);
    });
    await pushed;
    const ids = await faceWorks();
    expect(ids).not.toContain("evil:j2");
    const ended = await evilEnded(from, /usage\.a is nested deeper than 32 levels/);
    expect(ended.error).toContain("its row evil:j2");
    expect(ids).not.toContain("evil:j2");
    logged(logFrom, /usage\.a is nested deeper than 32 levels/);
  });

  it("a remote replaced by one answering {rows: 5}: no uncaught error, the old rows swapped out, a remote push saying why", async () => {
    await evilDoes((ws) => ws.send(subscribed([remoteRow("j5", { name: "old-row" })])));
    await until("evil's old row here", async () =>
      (await hub.ok("list")).rows.some((r: any) => r.id === "evil:j5"),
    );
    const from = watcher.events.length;
    const logFrom = d.output.length;
    const port = evil.port;
    await evil.close();
    const replaced = await FakeRemote.start(port);
    try {
      replaced.onSubscribe = (ws) => ws.send(JSON.stringify({ id: null, ok: true, result: { rows: 5 } }));
      await until("the daemon subscribed to the new evil", () => replaced.subscribers.length > 0);
      const ended = await evilEnded(from, /rows must be array/);
      expect(ended.error).toContain("its answer to subscribe");
      await watcher.waitFor(
        () => watcher.events.slice(from).find((e) => e.event === "removed" && e.id === "evil:j5"),
        "the old row removed",
      );
      const ids = await faceWorks();
      expect(ids.filter((id) => id.startsWith("evil:"))).toEqual([]);
      logged(logFrom, /rows must be array/);
    } finally {
      await replaced.close();
      evil = await FakeRemote.start(port);
    }
  });

  it("a row with name: 5: the message refused, roost ls works", async () => {
    const from = watcher.events.length;
    const logFrom = d.output.length;
    let pushed: Promise<void> | undefined;
    await evilDoes((ws) => {
      ws.send(subscribed([remoteRow("j1", { name: "evil-benign" })]));
      pushed = sent(ws, rowPush(remoteRow("j7", { name: 5 })));
    });
    await pushed;
    const ids = await faceWorks();
    expect(ids).not.toContain("evil:j7");
    const ended = await evilEnded(from, /name must be string/);
    expect(ended.error).toContain("its row evil:j7");
    logged(logFrom, /name must be string/);
  });

  it("a message that is not JSON, and one that is no message: the connection ends saying so", async () => {
    for (const [text, why] of [
      ["{not json", /sent a message that is not JSON/],
      ['"just a string"', /sent a message that is neither an answer nor a push/],
      ['{"event":"removed","id":{"x":1}}', /its removed push: id must be string/],
      [
        rowPush(remoteRow("x".repeat(64))),
        /id: named here as REMOTE:ID, it must not have more than 64 characters/,
      ],
    ] as const) {
      const from = watcher.events.length;
      let pushed: Promise<void> | undefined;
      await evilDoes((ws) => {
        ws.send(subscribed([]));
        pushed = sent(ws, text);
      });
      await pushed;
      await evilEnded(from, why);
    }
    await faceWorks();
  });
});

describe("a remote's terminal", () => {
  it("an attach answer that is not attach's, and output that is not text: refused, the viewer told why", async () => {
    const terminal =
      (first: object, then?: object): OnSubscribe =>
      (ws, _fake, path) => {
        if (!path.endsWith("/terminal")) return BENIGN(ws, evil, path);
        ws.send(JSON.stringify(first));
        if (then) ws.send(JSON.stringify(then));
      };
    evil.onSubscribe = terminal({ ok: true, result: { screen: 5, cols: 80, rows: 24 } });
    const viewer = await d.client();
    const refused = await viewer.request("attach", { id: "evil:j1" });
    expect(refused).toMatchObject({ ok: false, code: "busy" });
    expect(refused.error).toContain("its answer to attach: screen must be string");
    evil.onSubscribe = terminal(
      { ok: true, result: { screen: "", cols: 80, rows: 24 } },
      { event: "output", data: { evil: true }, id: "j1" },
    );
    await until("evil followed again", async () =>
      (await hub.ok("list")).rows.some((r: any) => r.id === "evil:j1" && r.reachable),
    );
    expect((await viewer.request("attach", { id: "evil:j1" })).ok).toBe(true);
    const detached = await viewer.event((e) => e.event === "detached" && e.id === "evil:j1", "detached");
    expect(detached.why).toContain("its terminal's output: data must be string");
    expect(viewer.events.filter((e) => e.event === "output")).toEqual([]);
    await faceWorks();
  });
});

describe("a remote that sends more than it may", () => {
  it(`more than ${LIMITS.remoteRows} rows in its answer: refused, none kept`, async () => {
    const from = watcher.events.length;
    const rows = Array.from({ length: LIMITS.remoteRows + 1 }, (_, i) => remoteRow(`j${i + 100}`));
    await evilDoes((ws) => ws.send(subscribed(rows)));
    await evilEnded(from, new RegExp(`more than ${LIMITS.remoteRows} rows`));
    const ids = await faceWorks();
    expect(ids.filter((id) => id.startsWith("evil:"))).toEqual([]);
  });

  it("20,000 rows of 20 KB: capped, the daemon's memory bounded", async () => {
    const from = watcher.events.length;
    const before = rssKiB(d.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKiB(d.pid));
    }, 20);
    let rowsSent = 0;
    let done: Promise<void> | undefined;
    try {
      // The flood once: the daemon, cut off, subscribes again soon after, and a second flood on
      // that subscription would count as this one's rows (seen: 20,570 sent in all).
      await evilDoes((ws, server, path) => {
        if (done) return BENIGN(ws, server, path);
        done = (async () => {
          ws.send(subscribed([]));
          for (let i = 0; i < 20_000; i++) {
            const row = remoteRow(`j${i + 1000}`, { cwd: `/${"x".repeat(20_000)}` });
            if (!(await sendWhenRoom(ws, rowPush(row)))) return;
            rowsSent++;
          }
        })();
      });
      await done;
      await evilEnded(from, new RegExp(`rows came to more than ${LIMITS.remoteBytes / 1024 / 1024} MiB`));
      evil.onSubscribe = BENIGN;
      const ids = await faceWorks();
      expect(ids.filter((id) => id.startsWith("evil:") && id !== "evil:j1")).toEqual([]);
    } finally {
      clearInterval(sampler);
    }
    const grew = (peak - before) / 1024;
    console.log(
      `20,000 rows of 20 KB: evil sent ${rowsSent} rows; the daemon's RSS ${Math.round(before / 1024)} MB before, peak ${Math.round(peak / 1024)} MB (+${Math.round(grew)} MB)`,
    );
    expect(rowsSent).toBeLessThan(20_000); // its connection was cut, not read to the end
    expect(grew).toBeLessThan(150);
  });

  it("a push larger than a message may be: the connection ends at the cap, nothing kept", async () => {
    const from = watcher.events.length;
    const big = rowPush(remoteRow("j9", { cwd: `/${"x".repeat(LIMITS.remoteBytes)}` }));
    await evilDoes((ws) => {
      ws.send(subscribed([]));
      ws.send(big);
    });
    await evilEnded(from, new RegExp(`more than ${LIMITS.remoteBytes / 1024 / 1024} MiB at once`));
    expect(await faceWorks()).not.toContain("evil:j9");
  });

  it("a 400 MB answer to a relayed list (a read-only token asks): refused at the cap, the memory bounded, the daemon still answers", async () => {
    const ro = await hub.ok("token", { action: "create", name: "looker", readOnly: true });
    const roToken = new URL(ro.link).searchParams.get("token")!;
    let written = 0;
    evil.onCall = async (op, _args, res) => {
      if (op !== "list") return void res.end(JSON.stringify({ ok: true, result: {} }));
      const chunk = Buffer.alloc(1024 * 1024, "x");
      res.write('{"ok":true,"result":{"rows":[{"cwd":"');
      while (written < 400 * 1024 * 1024 && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk))
          await new Promise((r) => {
            res.once("drain", r);
            res.once("close", r);
          });
      }
      res.end('"}]}}');
    };
    const before = rssKiB(d.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKiB(d.pid));
    }, 20);
    let answer: Awaited<ReturnType<typeof api>>;
    try {
      answer = await api(d, "list", { id: "evil:j1" }, { method: "GET", token: roToken });
    } finally {
      clearInterval(sampler);
    }
    const grew = (peak - before) / 1024;
    console.log(
      `a 400 MB answer: evil wrote ${Math.round(written / 1024 / 1024)} MB; the daemon's RSS ${Math.round(before / 1024)} MB before, peak ${Math.round(peak / 1024)} MB (+${Math.round(grew)} MB)`,
    );
    expect(answer.body).toMatchObject({ ok: false, code: "busy" });
    expect(answer.body.error).toContain(
      `answered list with more than ${LIMITS.remoteBytes / 1024 / 1024} MiB`,
    );
    expect(written).toBeLessThan(400 * 1024 * 1024);
    expect(grew).toBeLessThan(150);
    await faceWorks();
  });

  it("a relayed answer that is not its op's: refused, never relayed", async () => {
    evil.onCall = (_op, _args, res) => {
      res.end(JSON.stringify({ ok: true, result: { rows: [remoteRow("j1", { name: 5 })] } }));
    };
    const listed = await hub.request("list", { id: "evil:j1" });
    expect(listed).toMatchObject({ ok: false, code: "busy" });
    expect(listed.error).toContain("its answer to list: rows[0].name must be string");
    evil.onCall = (_op, _args, res) => {
      res.end(JSON.stringify({ ok: true, result: { rows: [remoteRow("x".repeat(64))] } }));
    };
    const named = await hub.request("list", { id: "evil:j1" });
    expect(named).toMatchObject({ ok: false, code: "busy" });
    expect(named.error).toContain("its answer to list: its row evil:xxx");
    expect(named.error).toContain("id: named here as REMOTE:ID, it must not have more than 64 characters");
    evil.onCall = (_op, _args, res) => {
      res.end(JSON.stringify({ ok: true, result: { replies: 5 } }));
    };
    const pending = await hub.request("pending", { id: "evil:j1" });
    expect(pending).toMatchObject({ ok: false, code: "busy" });
    expect(pending.error).toContain("its answer to pending: replies must be array");
    await faceWorks();
  });
});
