/**
 * Remotes (docs/fleet.md): two real daemons on two homes and ports of this machine, `here` joined to
 * `far` as a remote (`roost remote add`, the token read from stdin). `here` lists both's rows (far's
 * marked and named `far:ID`); a reply, a stop and a terminal go through `here` to far with far's
 * token, which the hub's callers never see; far taken down is shown as such, its rows kept greyed,
 * and comes back by itself. The CLI's ls, reply, stop and attach take `far:ID`. `roost remote add`
 * and `rm` take effect in the running daemon (`remotes-reload`), with no restart.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INERT } from "../helpers/board.js";
import { json, ok, roost } from "../helpers/cli.js";
import { CLI, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { api, TestSocket } from "../helpers/http.js";
import { bashProfile, untilRow } from "../helpers/jobs.js";
import { freePort } from "../helpers/processes.js";
import type { RawClient } from "../helpers/raw-client.js";

let far: TestDaemon;
let here: TestDaemon;
let farHub: RawClient;
let hub: RawClient;
let farToken: string;

/** `roost remote ...` with `env`, `stdin` written to it and closed. */
const remoteCommand = (env: Record<string, string>, args: string[], stdin: string) =>
  roost(["remote", ...args], env, undefined, stdin);

beforeAll(async () => {
  // far on a port of its own, so that it comes back where `here` looks for it.
  far = await startDaemon({
    config: { agentProfiles: { inert: INERT, bash: bashProfile() } },
    env: { ROOST_PORT: String(await freePort()), SHELL: "/bin/bash" },
  });
  farHub = await far.client();
  const made = await farHub.ok("token", { action: "create", name: "here" });
  farToken = new URL(made.link).searchParams.get("token")!;
  // here's roost.json, written by `roost remote add` while here runs: followed at once.
  here = await startDaemon({ config: { agentProfiles: { inert: INERT } } });
  const added = await remoteCommand(here.env, ["add", "far", far.url], `${farToken}\n`);
  expect(added.code, added.stderr).toBe(0);
  expect(added.stdout).toContain(`added far (${far.url})`);
  expect(added.stdout).toContain("the daemon follows far now");
  hub = await here.client();
});
afterAll(async () => {
  await Promise.all([here?.cleanup(), far?.cleanup()]);
});

const rowsOf = async (c: RawClient) => (await c.ok("list")).rows as any[];
const hereRow = async (id: string) => (await rowsOf(hub)).find((r) => r.id === id);

describe("roost remote", () => {
  it("add wrote roost.json owner-only with the token, which it never prints; ls lists the remotes without it", async () => {
    const file = path.join(here.home, "roost.json");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const config = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(config.remotes).toEqual([{ name: "far", url: far.url, token: farToken }]);
    expect(config.agentProfiles.inert).toEqual(INERT); // what was there is kept
    const ls = await ok(["remote", "ls"], here.env);
    expect(ls).toContain(`far                  ${far.url}`);
    expect(ls).not.toContain(farToken);
    expect((await json(["remote", "ls"], here.env)).remotes).toEqual([{ name: "far", url: far.url }]);
  });

  it("add refuses a token the remote refuses, a name in use, a bad name, and an empty stdin, writing nothing", async () => {
    const before = fs.readFileSync(path.join(here.home, "roost.json"), "utf8");
    const wrong = await remoteCommand(here.env, ["add", "other", far.url], "not-a-token\n");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("refused that token (401)");
    expect((await remoteCommand(here.env, ["add", "far", far.url], `${farToken}\n`)).stderr).toContain(
      "a remote is named far already",
    );
    expect((await remoteCommand(here.env, ["add", "local", far.url], `${farToken}\n`)).code).toBe(64);
    expect((await remoteCommand(here.env, ["add", "a:b", far.url], `${farToken}\n`)).code).toBe(64);
    expect((await remoteCommand(here.env, ["add", "empty", far.url], "")).stderr).toContain("no token read");
    expect(fs.readFileSync(path.join(here.home, "roost.json"), "utf8")).toBe(before);
  });
});

describe("one list, actions routed", () => {
  it("here's list has both daemons' rows, far's marked with its name and their ids far:ID; its hubs' subscribe too", async () => {
    const mine = (await hub.ok("dispatch", { profile: "inert", name: "mine" })).job.id;
    const theirs = (await farHub.ok("dispatch", { profile: "inert", name: "theirs" })).job.id;
    const row = await until("far's row on here", async () => hereRow(`far:${theirs}`));
    expect(row).toMatchObject({ name: "theirs", daemon: "far", reachable: true });
    expect((await hereRow(mine)).daemon).toBeUndefined();
    const sub = await here.client();
    const { rows, remotes } = await sub.ok("subscribe", {});
    expect(rows.map((r: any) => r.id)).toEqual(expect.arrayContaining([mine, `far:${theirs}`]));
    expect(remotes).toEqual([{ name: "far", url: far.url, reachable: true, error: null }]);
    // A change on far is pushed to here's subscribers.
    await farHub.ok("rename", { id: theirs, name: "renamed-on-far" });
    await sub.waitFor(
      () =>
        sub.events.find(
          (e) => e.event === "row" && e.row.id === `far:${theirs}` && e.row.name === "renamed-on-far",
        ),
      "the rename pushed through here",
    );
    // One job asked by its id here: far answers, its row named as here names it.
    expect((await hub.ok("list", { id: `far:${theirs}` })).rows[0]).toMatchObject({
      id: `far:${theirs}`,
      daemon: "far",
    });
  });

  it("a reply and a stop sent to here for far:ID reach far's job; here's own jobs are untouched", async () => {
    const mine = (await hub.ok("dispatch", { profile: "inert", name: "stays" })).job.id;
    const theirs = (await farHub.ok("dispatch", { profile: "inert", name: "answered" })).job.id;
    await until("far's row on here", async () => hereRow(`far:${theirs}`));
    const saved = await hub.ok("reply", { id: `far:${theirs}`, text: "from the other machine" });
    expect(saved.saved).toBe(true);
    const pending = await farHub.ok("pending", { id: theirs });
    expect(pending.replies.map((r: any) => r.text)).toContain("from the other machine");
    expect((await hub.ok("pending", { id: `far:${theirs}` })).replies.map((r: any) => r.text)).toContain(
      "from the other machine",
    );
    await hub.ok("stop", { id: `far:${theirs}` });
    await untilRow(farHub, theirs, "stopped on far", (r) => r.life === "stopped");
    await until("stopped on here", async () => (await hereRow(`far:${theirs}`))?.life === "stopped");
    expect((await hereRow(mine)).life).toBe("running");
    // Far's refusal comes back as far's, named.
    const r = await hub.request("stop", { id: "far:j99999" });
    expect(r).toMatchObject({ ok: false, code: "not_found" });
    expect(r.error).toMatch(/^far: /);
    const unknown = await hub.request("stop", { id: "nowhere:j1" });
    expect(unknown).toMatchObject({ ok: false, code: "not_found" });
    expect(unknown.error).toContain('no remote is named "nowhere" (roost.json\'s remotes: far)');
  });

  it("over HTTP, a reply to far:ID with here's token goes through; a read-only token of here's may not act on far", async () => {
    const theirs = (await farHub.ok("dispatch", { profile: "inert", name: "by-http" })).job.id;
    await until("far's row on here", async () => hereRow(`far:${theirs}`));
    const post = (token: string, op: string, args: object) =>
      fetch(`${here.url}api/${op}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(args),
      }).then((res) => res.json() as Promise<any>);
    expect((await post(here.token, "reply", { id: `far:${theirs}`, text: "over http" })).ok).toBe(true);
    const ro = await hub.ok("token", { action: "create", name: "looker", readOnly: true });
    const roToken = new URL(ro.link).searchParams.get("token")!;
    expect(await post(roToken, "stop", { id: `far:${theirs}` })).toMatchObject({ ok: false, code: "policy" });
    expect((await rowsOf(farHub)).find((r) => r.id === theirs).life).toBe("running");
  });

  it("a terminal of far's, through here's terminal WebSocket: its screen, what is typed, its output", async () => {
    const theirs = (await farHub.ok("dispatch", { profile: "bash", name: "remote-shell" })).job.id;
    await untilRow(farHub, theirs, "running", (r) => r.life === "running");
    await until("far's row on here", async () => hereRow(`far:${theirs}`));
    const ws = await TestSocket.open(here, `/api/jobs/${encodeURIComponent(`far:${theirs}`)}/terminal`);
    const first = await ws.next((m) => "ok" in m, "attach's answer");
    expect(first.ok, JSON.stringify(first)).toBe(true);
    ws.send({ op: "input", args: { data: "echo relayed-$((6*7))\r" } });
    await ws.next(
      (m) => m.event === "output" && m.id === `far:${theirs}` && /relayed-42/.test(m.data),
      "the output",
    );
    // Attached again (the hub does, to repaint after a resize) and typed into at once: the keys
    // wait for the new relay to far's terminal, where they were once dropped while it opened.
    ws.send({ op: "attach" });
    ws.send({ op: "input", args: { data: "echo again-$((6*8))\r" } });
    const again = await ws.next((m) => m.op === "attach", "the second attach's answer");
    expect(again.ok, JSON.stringify(again)).toBe(true);
    await ws.next(
      (m) => m.event === "output" && m.id === `far:${theirs}` && /again-48/.test(m.data),
      "the output of what was typed as it attached again",
    );
    ws.close();
  });
});

describe("the CLI takes daemon:job ids", () => {
  it("ls shows far's rows as far:ID (and one by its id); reply and stop act on far; attach shows its terminal", async () => {
    const theirs = (await farHub.ok("dispatch", { profile: "bash", name: "cli-target" })).job.id;
    const qid = `far:${theirs}`;
    await untilRow(farHub, theirs, "running", (r) => r.life === "running");
    await until("far's row on here", async () => hereRow(qid));
    expect(await ok(["ls"], here.env)).toContain(qid);
    expect((await json(["ls", qid], here.env)).rows[0]).toMatchObject({ id: qid, name: "cli-target" });
    expect((await json(["ls", "--daemon", "far"], here.env)).rows.every((r: any) => r.daemon === "far")).toBe(
      true,
    );
    expect((await json(["ls", "--daemon", "local"], here.env)).rows.some((r: any) => r.daemon)).toBe(false);
    // attach: what is typed reaches far's shell, its output comes back; Ctrl-] detaches.
    const proc = spawn(process.execPath, [CLI, "attach", qid], { env: here.env, stdio: "pipe" });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d) => {
      out += d;
    });
    proc.stderr.on("data", (d) => {
      err += d;
    });
    const exited = new Promise((resolve) => proc.on("exit", resolve));
    await until("attached", () => err.includes(`attached to ${qid}`));
    proc.stdin.write("echo through-$((20+3))\r");
    await until("its output", () => out.includes("through-23"));
    proc.stdin.write("\x1d");
    expect(await exited).toBe(0);
    expect(await ok(["reply", qid, "echo", "replied-$((1+1))"], here.env)).toContain(`to ${qid}`);
    expect((await ok(["stop", qid], here.env)).trim()).toBe(`stopped ${qid}`);
    await untilRow(farHub, theirs, "stopped on far", (r) => r.life !== "running");
    const bad = await roost(["stop", "nowhere:j1"], here.env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('no remote is named "nowhere"');
  });
});

describe("a remote that goes away", () => {
  it("is said not to answer, its rows kept and marked unreachable; once back, they are live again, by themselves", async () => {
    const theirs = (await farHub.ok("dispatch", { profile: "inert", name: "survivor" })).job.id;
    const qid = `far:${theirs}`;
    await until("far's row on here", async () => hereRow(qid));
    const sub = await here.client();
    await sub.ok("subscribe", {});
    await far.kill("SIGTERM");
    await sub.waitFor(
      () => sub.events.find((e) => e.event === "remote" && e.reachable === false),
      "far unreachable",
    );
    await sub.waitFor(
      () => sub.events.find((e) => e.event === "row" && e.row.id === qid && e.row.reachable === false),
      "its row pushed greyed",
    );
    expect(await hereRow(qid)).toMatchObject({ reachable: false, life: "running" });
    const refused = await hub.request("reply", { id: qid, text: "while it is down" });
    expect(refused).toMatchObject({ ok: false, code: "busy" });
    expect(refused.error).toContain(`the remote far (${far.url}) did not answer`);
    expect((await json(["remote", "ls"], here.env)).remotes).toHaveLength(1);
    await far.start();
    farHub = await far.client();
    await sub.waitFor(() => sub.events.find((e) => e.event === "remote" && e.reachable === true), "far back");
    await until("its row live again", async () => (await hereRow(qid))?.reachable === true);
    expect((await hub.ok("reply", { id: qid, text: "once it is back" })).saved).toBe(true);
  });
});

describe("roost.json's remotes changed while here runs", () => {
  it("rm lets far go: its rows removed from here's hubs, its terminals ended, a remote push gone; add follows it again", async () => {
    const theirs = (await farHub.ok("dispatch", { profile: "inert", name: "followed" })).job.id;
    const qid = `far:${theirs}`;
    await until("far's row on here", async () => (await hereRow(qid))?.reachable === true);
    const sub = await here.client();
    await sub.ok("subscribe", {});
    const viewer = await here.client();
    await viewer.ok("attach", { id: qid });
    const rm = await remoteCommand(here.env, ["rm", "far"], "");
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain("the daemon follows no remote now");
    await sub.waitFor(
      () => sub.events.find((e) => e.event === "removed" && e.id === qid),
      "far's row removed",
    );
    const gone = await sub.waitFor(
      () => sub.events.find((e) => e.event === "remote" && e.name === "far" && e.gone === true),
      "far let go",
    );
    expect(gone).toMatchObject({ url: far.url });
    const goneAt = sub.events.indexOf(gone);
    const detached = await viewer.waitFor(
      () => viewer.events.find((e) => e.event === "detached" && e.id === qid),
      "the relayed terminal ended",
    );
    expect(detached.why).toContain("the remote far is no longer followed: it was removed from roost.json");
    expect(await hereRow(qid)).toBeUndefined();
    expect(await hub.request("reply", { id: qid, text: "to nobody" })).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect((await farHub.ok("list", { id: theirs })).rows[0].life).toBe("running"); // far itself untouched

    const added = await remoteCommand(here.env, ["add", "far", far.url], `${farToken}\n`);
    expect(added.stdout).toContain("the daemon follows far now");
    // Nothing more was said of the far let go (its closing connection is not news): the next
    // `remote` push is the new one's, not yet connected.
    const next = sub.events.slice(goneAt + 1).find((e) => e.event === "remote");
    expect(next).toMatchObject({ name: "far", reachable: false, error: "not connected yet" });
    await sub.waitFor(
      () => sub.events.find((e) => e.event === "remote" && e.name === "far" && e.reachable === true),
      "far followed again",
    );
    await until("its row back, live", async () => (await hereRow(qid))?.reachable === true);
  });

  it("remotes-reload is the owner socket's alone; a roost.json that does not read changes nothing", async () => {
    const overHttp = await api(here, "remotes-reload", {});
    expect(overHttp.status).toBe(405);
    expect(overHttp.body).toMatchObject({ ok: false, code: "unsupported" });
    const file = path.join(here.home, "roost.json");
    const before = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, "{ not json");
    try {
      const bad = await hub.request("remotes-reload", {});
      expect(bad).toMatchObject({ ok: false, code: "bad_request" });
      expect(bad.error).toContain("not valid JSON");
      expect(bad.error).toContain("the remotes followed are as they were");
    } finally {
      fs.writeFileSync(file, before);
    }
    const { remotes } = await hub.ok("remotes-reload", {});
    expect(remotes).toEqual([{ name: "far", url: far.url, reachable: true, error: null }]);
    const text = await ok(["remote", "reload"], here.env);
    expect(text.trim()).toBe(`far                  ${far.url}`);
  });
});
