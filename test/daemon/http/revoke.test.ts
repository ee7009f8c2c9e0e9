/**
 * Revoking a token ends its power at once. From an outside attack: a terminal WebSocket whose
 * token was revoked kept typing into the job for about 30 s, because `revoke` sent a close frame
 * and waited for the handshake while the messages that came meanwhile still ran with the identity
 * taken at the upgrade. The attacker's client simply never answered the close frame.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDaemon, until } from "../../helpers/daemon.js";
import { api, TestSocket, upgradeLines } from "../../helpers/http.js";
import { rawAgent, rmTemp, silentProfile, startCleanDaemon, tempDir, untilRow } from "../../helpers/jobs.js";
import type { RawClient } from "../../helpers/raw-client.js";

/** One masked text frame, as a client must send it (RFC 6455, 5.2), for a payload under 64 KiB. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = crypto.randomBytes(4);
  const head =
    payload.length < 126
      ? Buffer.from([0x81, 0x80 | payload.length])
      : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([head, mask, masked]);
}

/** A WebSocket client that never answers a close frame: it only upgrades, sends, and notes the end. */
class DeafClient {
  ended = false;
  received = Buffer.alloc(0);
  private constructor(readonly socket: net.Socket) {
    socket.on("data", (chunk) => {
      this.received = Buffer.concat([this.received, chunk]);
    });
    socket.on("close", () => {
      this.ended = true;
    });
    socket.on("error", () => {});
  }

  static async open(d: TestDaemon, urlPath: string, token: string): Promise<DeafClient> {
    const { hostname, port } = new URL(d.url);
    const socket = net.connect(Number(port), hostname);
    const client = new DeafClient(socket);
    const lines = upgradeLines(urlPath, `${hostname}:${port}`, [`Authorization: Bearer ${token}`]);
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    await until("the upgrade", () => client.received.toString("latin1").startsWith("HTTP/1.1 101"));
    return client;
  }

  send(message: unknown): void {
    if (!this.socket.destroyed) this.socket.write(textFrame(JSON.stringify(message)));
  }
}

describe("a revoked token", () => {
  let d: TestDaemon;
  let owner: RawClient;
  let dir: string;
  beforeAll(async () => {
    ({ d } = await startCleanDaemon({ agentProfiles: { silent: silentProfile() } }));
    owner = await d.client();
    dir = tempDir();
  });
  afterAll(async () => {
    await d?.cleanup();
    rmTemp(dir);
  });

  it("stops typing into a terminal at once, whose client never answers the close frame (the attack)", async () => {
    const { link } = await owner.ok("token", { action: "create", name: "typist" });
    const secret = new URL(link).searchParams.get("token")!;
    const { job } = await owner.ok("dispatch", { profile: "shell", cwd: dir });
    await untilRow(owner, job.id, "running", (r) => r.life === "running");
    const deaf = await DeafClient.open(d, `/api/jobs/${job.id}/terminal`, secret);
    deaf.send({ op: "input", args: { data: "echo before > before.txt\r" } });
    await until("typed before the revoke", () => fs.existsSync(path.join(dir, "before.txt")));

    await owner.ok("token", { action: "revoke", name: "typist" });
    // What it sends after the revoke, as the attacker did, for as long as the connection lets it.
    for (let i = 0; i < 20 && !deaf.ended; i++) {
      deaf.send({ op: "input", args: { data: `echo after > after-${i}.txt\r` } });
      await new Promise((r) => setTimeout(r, 50));
    }
    await until("the revoked token's terminal cut", () => deaf.ended);
    // The owner types after it: once that has run, anything typed before it would have too.
    await owner.ok("reply", { id: job.id, text: "echo owner > owner.txt" });
    await until("the owner's command ran", () => fs.existsSync(path.join(dir, "owner.txt")));
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("after-"))).toEqual([]);
    // The close frame went out before the cut, with why.
    expect(deaf.received.includes(Buffer.from("the token was revoked"))).toBe(true);
    await owner.ok("rm", { id: job.id });
  });

  it("refuses every message on a WebSocket whose token was revoked, and cuts the subscription at once", async () => {
    const { link } = await owner.ok("token", { action: "create", name: "watcher" });
    const secret = new URL(link).searchParams.get("token")!;
    const sub = await TestSocket.open(d, "/api/subscribe", { token: secret });
    await sub.next((m) => m.ok === true, "the subscribe answer");
    const deafSub = await DeafClient.open(d, "/api/subscribe", secret);
    await owner.ok("token", { action: "revoke", name: "watcher" });
    await until("the subscription closed", () => sub.closed);
    expect(sub.closed).toMatchObject({ code: 1008, reason: "the token was revoked" });
    await until("the deaf subscription cut", () => deafSub.ended);
    expect((await api(d, "list", {}, { token: secret })).status).toBe(401);
  });

  it("a new token of the same name does not bring an old connection's power back", async () => {
    const first = new URL(
      (await owner.ok("token", { action: "create", name: "again" })).link,
    ).searchParams.get("token")!;
    const { job } = await owner.ok("dispatch", { profile: "shell", cwd: dir });
    await untilRow(owner, job.id, "running", (r) => r.life === "running");
    const term = await TestSocket.open(d, `/api/jobs/${job.id}/terminal`, { token: first });
    await term.next((m) => "ok" in m, "the screen");
    await owner.ok("token", { action: "revoke", name: "again" });
    await owner.ok("token", { action: "create", name: "again" });
    await until("the old terminal closed", () => term.closed);
    expect(term.closed).toMatchObject({ code: 1008, reason: "the token was revoked" });
    expect((await api(d, "whoami", {}, { token: first })).status).toBe(401);
    await owner.ok("rm", { id: job.id });
  });

  it("on the socket, a job's own connection loses its power when the job ends, and when it is removed", async () => {
    const { job } = await owner.ok("dispatch", { profile: "silent" });
    const { agent, token } = await rawAgent(d, owner, job.id);
    await owner.ok("stop", { id: job.id });
    await agent.closed; // its connection ends with its job; its token speaks for it on no other
    const again = await d.client();
    const ended = await again.request("report", {
      id: job.id,
      token,
      report: { state: "working", summary: "still me" },
    });
    expect(ended).toMatchObject({ ok: false, code: "unauthorized" });
    expect(ended.error).toContain("has ended");
    await owner.ok("rm", { id: job.id });
    const removed = await again.request("report", { id: job.id, token, report: { state: "working" } });
    expect(removed).toMatchObject({ ok: false, code: "not_found" });
    expect((await owner.ok("list", {})).rows.map((r: any) => r.id)).not.toContain(job.id);
  });
});
