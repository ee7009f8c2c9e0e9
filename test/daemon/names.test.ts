/**
 * Names from outside, found from an outside attack: a profile named `__proto__`, `constructor`
 * or `toString` gave `busy` and a stack trace in the log on every call (the profiles were looked
 * up as an object's keys, its prototype's included); and the bidirectional controls (U+202E and
 * friends) passed through name folding, so a name could read backwards in the hub and the CLI.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { api } from "../helpers/http.js";
import { rawAgent, silentProfile } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const run = promisify(execFile);
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

let d: TestDaemon;
let hub: RawClient;
beforeAll(async () => {
  // `toString` is a real profile here: a name is only a name.
  d = await startDaemon({
    config: { agentProfiles: { silent: silentProfile(), toString: silentProfile() } },
  });
  hub = await d.client();
});
afterAll(async () => d?.cleanup());

describe("a profile named as an object's own keys", () => {
  for (const name of ["__proto__", "constructor", "hasOwnProperty", "valueOf"]) {
    it(`${name} is no profile: bad_request listing the profiles, on the socket and over HTTP, and no bug in the log`, async () => {
      const bySocket = await hub.request("dispatch", { profile: name });
      expect(bySocket).toMatchObject({ ok: false, code: "bad_request" });
      expect(bySocket.error).toContain(`no profile ${JSON.stringify(name)}`);
      expect(bySocket.error).toContain("silent");
      const byHttp = await api(d, "dispatch", { profile: name });
      expect(byHttp.status).toBe(400);
      expect(byHttp.body).toMatchObject({ ok: false, code: "bad_request", error: bySocket.error });
      expect(d.output).not.toMatch(/op failed|TypeError|could not do this/);
    });
  }

  it("toString, when roost.json defines it, is that profile", async () => {
    const { job } = await hub.ok("dispatch", { profile: "toString", name: "by toString" });
    expect(job).toMatchObject({ profile: "toString", name: "by toString", life: "running" });
    const listed = (await hub.ok("profiles", {})).profiles.map((p: any) => p.name);
    expect(listed).toContain("toString");
    await hub.ok("rm", { id: job.id });
  });
});

describe("bidirectional controls in a name", () => {
  it("are folded away wherever a name comes in: dispatch, rename, the agent's report and hello; roost ls shows none", async () => {
    const { job } = await hub.ok("dispatch", { profile: "silent", name: "invoice\u202Efdp.exe" });
    expect(job.name).toBe("invoicefdp.exe");
    await hub.ok("rename", { id: job.id, name: "\u2067evil\u2069 \u200Fname\u061C" });
    expect((await hub.ok("list", { id: job.id })).rows[0].name).toBe("evil name");

    const other = (await hub.ok("dispatch", { profile: "silent" })).job;
    const { agent, token } = await rawAgent(d, hub, other.id);
    await agent.ok("hello", { protocol: 1, agent: { name: "agent\u202Ex", version: "1\u202E0" } });
    await agent.ok("report", {
      id: other.id,
      token,
      report: { state: "working", name: "\u202Dsession\u202C" },
    });
    const [row] = (await hub.ok("list", { id: other.id })).rows;
    expect(row.name).toBe("session");
    expect(row.agent).toEqual({ name: "agentx", version: "10" });

    // What an agent writes elsewhere (its summary) is shown by the CLI without them too.
    await agent.ok("report", {
      id: other.id,
      token,
      report: { state: "working", summary: "done \u202Etxet" },
    });
    const ls = await run(process.execPath, [CLI, "ls"], { env: d.env });
    expect(ls.stdout).toContain("evil name");
    expect(ls.stdout).toContain("done txet");
    expect(ls.stdout).not.toMatch(BIDI);
    await hub.ok("rm", { id: job.id });
    await hub.ok("rm", { id: other.id });
  });

  it("a name that is nothing but them is empty once folded: refused", async () => {
    const r = await hub.request("dispatch", { profile: "silent", name: "\u202E\u2066" });
    expect(r).toMatchObject({ ok: false, code: "bad_request" });
    expect(r.error).toContain("empty once folded");
  });
});

describe("the name rules, one for every way a name comes in", () => {
  it("a reserved or empty name is refused when asked for, and ignored (never refused) when an agent reports it", async () => {
    const { job } = await hub.ok("dispatch", { profile: "silent" });
    for (const name of ["concierge", "Concierge"]) {
      const refused = await hub.request("rename", { id: job.id, name });
      expect(refused).toMatchObject({ ok: false, code: "bad_request" });
      expect(refused.error).toContain("reserved");
    }
    const { agent, token } = await rawAgent(d, hub, job.id);
    for (const name of ["concierge", " CONCIERGE\n", "\u202E"]) {
      await agent.ok("report", { id: job.id, token, report: { state: "working", name, summary: name } });
      const [row] = (await hub.ok("list", { id: job.id })).rows;
      expect(row.name, JSON.stringify(name)).toBe("silent"); // the name ignored, the report kept
      expect(row.summary).toBe(name);
    }
    await agent.ok("report", { id: job.id, token, report: { state: "working", name: "a\nworker" } });
    expect((await hub.ok("list", { id: job.id })).rows[0].name).toBe("a worker");
    await hub.ok("rm", { id: job.id });
  });
});

describe("a reserved name's lookalikes", () => {
  // Found from an outside attack: `concierge\u200b`, `concierge\u00ad`, or with a Cyrillic `о`, were
  // taken where `Concierge` was refused. Each is the reserved name to a reader.
  const LOOKALIKES = [
    "concierge\u200b", // a zero-width space after it
    "concierge\u00ad", // a soft hyphen
    "con\u00adcierge",
    "c\u043encierge", // a Cyrillic о
    "\u0441oncierge", // a Cyrillic с
    "conci\u0435rge", // a Cyrillic е
    "conc\u0456erge", // a Cyrillic і
    "c\u03bfncierge", // a Greek ο
    "conc\u0131erge", // a dotless ı
    "concier\u0261e", // a Latin script ɡ
    "\uff23\uff4f\uff4e\uff43\uff49\uff45\uff52\uff47\uff45", // fullwidth
    "\u{1d41c}\u{1d428}\u{1d427}\u{1d41c}\u{1d422}\u{1d41e}\u{1d42b}\u{1d420}\u{1d41e}", // mathematical bold
    "CONCIERGE\ufe0f", // a variation selector
    "con\u2060cier\u034fge", // a word joiner and a combining grapheme joiner
  ];

  it("are refused by dispatch, rename, spawn and peer_register, and ignored in a report", async () => {
    const { job } = await hub.ok("dispatch", { profile: "silent" });
    const { agent, token } = await rawAgent(d, hub, job.id);
    for (const name of LOOKALIKES) {
      const said = JSON.stringify(name);
      for (const [op, args] of [
        ["dispatch", { profile: "silent", name }],
        ["rename", { id: job.id, name }],
      ] as const) {
        const r = await hub.request(op, args);
        expect(r, `${op} ${said}`).toMatchObject({ ok: false, code: "bad_request" });
        expect(r.error, `${op} ${said}`).toContain("reserved");
      }
      const spawned = await agent.request("spawn", { profile: "silent", task: "x", name });
      expect(spawned, `spawn ${said}`).toMatchObject({ ok: false, code: "bad_request" });
      expect(spawned.error).toContain("reserved");
      const registered = await (await d.client()).request("peer_register", { name });
      expect(registered, `peer_register ${said}`).toMatchObject({ ok: false, code: "bad_request" });
      expect(registered.error).toContain("reserved");
      await agent.ok("report", { id: job.id, token, report: { state: "working", name, summary: said } });
      const [row] = (await hub.ok("list", { id: job.id })).rows;
      expect(row.name, `report ${said}`).toBe("silent");
      expect(row.summary).toBe(said);
    }
    // A name that only holds the word, or another script's own word, is a name like any other.
    for (const name of ["my concierge", "concierges", "консьерж"]) {
      await hub.ok("rename", { id: job.id, name });
      expect((await hub.ok("list", { id: job.id })).rows[0].name).toBe(name);
    }
    await hub.ok("rm", { id: job.id });
  });
});
