/**
 * `roost concierge`, `roost ask`, `roost orders`: the built CLI against a real daemon (the concierge
 * an inert protocol job, given with --profile): on, status, the policy, off; asking it; the
 * standing orders added, listed and removed; --json; a wrong command line's usage.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, needsBuild, ok, PLAIN_SHELL, roost } from "../helpers/cli.js";
import { CONFIG } from "../helpers/concierge.js";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { untilRow } from "../helpers/jobs.js";

beforeAll(needsBuild);

describe("roost concierge, ask, orders", () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon({ env: PLAIN_SHELL, config: CONFIG });
  });
  afterAll(async () => d?.cleanup());

  it("turns it on and off, says its status and sets its policy", async () => {
    const env = d.env;
    expect(await ok(["concierge"], env)).toBe(
      "the concierge is off\nanswers: never; acts: no; standing orders: 0\n",
    );
    const on = await ok(["concierge", "on", "--profile", "inert"], env, "/tmp");
    expect(on).toMatch(/^the concierge is on: j\d+ \(\w[\w ]*\)\n/);
    const status = await json(["concierge", "status"], env);
    expect(status).toMatchObject({ on: true, policy: { answer: "never", act: false } });
    expect(await ok(["concierge", "answer", "routine"], env)).toContain("answers: routine; acts: no");
    expect(await ok(["concierge", "act", "on"], env)).toContain("answers: routine; acts: yes");
    expect(await ok(["ask", "what", "needs", "me?"], env)).toBe(`asked the concierge (${status.id})\n`);
    const c = await d.client();
    // Its first item is the concierge's prompt (a concierge from a profile gets it whatever its
    // agent); the question is the second.
    await untilRow(c, status.id, "the question waiting for it", (r) => r.lastSeq === 2);
    const off = await ok(["concierge", "off"], env);
    expect(off).toMatch(/^the concierge is off \(j\d+, stopped\)\n/);
  });

  it("keeps, lists and removes standing orders", async () => {
    const env = d.env;
    expect(await ok(["orders"], env)).toBe(
      "no standing orders: try `roost orders add tell me when CI fails`\n",
    );
    expect(await ok(["orders", "add", "summarise", "the", "day", "--when", "daily 18:00"], env)).toMatch(
      /^kept #1 \[every day at 18:00, next in (\d+[smhd])+\] summarise the day \(by user\)\n$/,
    );
    await ok(["orders", "add", "tell me when CI fails"], env);
    expect((await ok(["orders"], env)).split("\n")[1]).toBe("#2 tell me when CI fails (by user)");
    expect((await json(["orders", "rm", "1"], env)).orders.map((o: any) => o.id)).toEqual([2]);
  });

  it("each has its usage, options and examples on --help, and is in roost help", async () => {
    const all = await ok(["help"], d.env);
    for (const name of ["concierge", "ask", "orders"]) {
      const help = await ok([name, "--help"], d.env);
      expect(help, name).toContain(`usage: roost ${name}`);
      expect(help, name).toContain("options:");
      expect(help, name).toMatch(/examples?:\n {2}roost/);
      expect(all).toContain(`  ${name} `);
    }
  });

  it("a wrong command line is a usage error; a refusal of the daemon's says why", async () => {
    const bad = await roost(["concierge", "answer", "sometimes"], d.env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("concierge answer needs never, routine or always");
    const when = await roost(["orders", "add", "x", "--when", "now and then"], d.env);
    expect(when.code).toBe(1);
    expect(when.stderr).toContain("not a form roost knows");
  });
});

describe("roost concierge on, where pi cannot run", () => {
  let d: TestDaemon;
  // A PATH without node_modules/.bin: roost's own concierge (pi) is not installed for this daemon.
  beforeAll(async () => {
    d = await startDaemon({ env: { ...PLAIN_SHELL, PATH: "/usr/bin:/bin" } });
  });
  afterAll(async () => d?.cleanup());

  it("says to install pi or name a profile as the command line takes it, --profile P", async () => {
    const r = await roost(["concierge", "on"], d.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("pi cannot run here");
    expect(r.stderr).toContain("`roost concierge on --profile P`");
    expect(r.stderr).not.toContain("launch");
  });
});
