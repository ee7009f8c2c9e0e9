/**
 * Budgets (docs/budgets.md), with a real daemon and real processes: a protocol agent whose reported
 * cost passes its budget is told at 80%, steered at 100% and stopped when it goes on, `stopReason`
 * budget on its row and in the feed, and `respawn` continues it; a daily budget across three jobs;
 * `minutes` on a terminal job; the `spend` totals; a bad `budgets` refused at start.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { json, ok, roost } from "../helpers/cli.js";
import { daemonRefusal, until } from "../helpers/daemon.js";
import { type DaemonHere, startDaemonHere } from "../helpers/daemon-here.js";
import { daemonEnv } from "../helpers/daemon-process.js";
import { bashProfile, delivered, rawAgent, row, silentProfile, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const ENV = { ROOST_BUDGET_TICK_MS: "300", ROOST_BUDGET_GRACE_MS: "60000", SHELL: "/bin/bash" };

let d: DaemonHere | undefined;
afterEach(async () => {
  await d?.cleanup();
  d = undefined;
});

async function daemon(config: unknown): Promise<{ d: DaemonHere; c: RawClient }> {
  d = await startDaemonHere({ config, env: ENV });
  return { d, c: await d.client() };
}

const usage = (cost: number, tokens = 1000) => ({
  input: tokens / 2,
  output: tokens / 2,
  totalTokens: tokens,
  cost: { total: cost, currency: "USD" },
});

const budgetEntries = async (c: RawClient, id: string) =>
  (await c.ok("events", { id })).events.filter((e: any) => e.kind === "budget");

describe("budgets", () => {
  it("a protocol agent past its budget: noticed at 80%, steered at 100%, stopped when it goes on; respawn continues it", async () => {
    const { d, c } = await daemon({ agentProfiles: { silent: silentProfile() } });
    const { job } = await c.ok("dispatch", { profile: "silent", task: "go", budget: { cost: 1 } });
    const { agent, token } = await rawAgent(d, c, job.id);
    const report = (cost: number, state = "working") =>
      agent.ok("report", { id: job.id, token, report: { state, summary: "at work", usage: usage(cost) } });

    await report(0.5);
    let r = await row(c, job.id);
    expect(r.budget).toMatchObject({
      state: "ok",
      scope: "job",
      limit: { cost: 1 },
      spent: { cost: 0.5, tokens: 1000 },
    });
    expect(await budgetEntries(c, job.id)).toEqual([]);

    await report(0.85); // the rise counts: 0.85 in all, not 1.35
    r = await row(c, job.id);
    expect(r.budget.state).toBe("near");
    expect(r.budget.spent.cost).toBeCloseTo(0.85);
    const near = await budgetEntries(c, job.id);
    expect(near.map((e: any) => e.why)).toEqual(["near"]);
    expect(near[0].text).toContain("85% spent");
    await report(0.9); // said once
    expect((await budgetEntries(c, job.id)).length).toBe(1);

    await report(1.2);
    const steer = await agent.waitFor(
      () => delivered(agent, job.id).find((e) => e.mode === "steer"),
      "the steer from roost",
    );
    expect(steer.text).toContain("budget is spent");
    r = await row(c, job.id);
    expect(r.life).toBe("running"); // paused, not yet stopped: it may wind down
    expect(r.budget.state).toBe("spent");
    expect((await budgetEntries(c, job.id)).map((e: any) => e.why)).toEqual(["near", "spent"]);

    // It takes the steer and goes on working: stopped, with the reason.
    await agent.ok("ack", { id: job.id, token, seq: steer.seq });
    await report(1.25);
    r = await untilRow(c, job.id, "stopped for its budget", (x) => x.life === "stopped");
    expect(r.stopReason).toBe("budget");
    const feed = (await c.ok("events", { id: job.id })).events;
    expect(feed.find((e: any) => e.kind === "stop").text).toContain("stopped: its budget is spent");
    agent.close();

    // respawn continues it: the spent budget no longer stops it today.
    await c.ok("respawn", { id: job.id });
    r = await untilRow(c, job.id, "running again", (x) => x.life === "running" && x.pid);
    expect(r.stopReason).toBeNull();
    expect(r.budget.exempt).toMatchObject({ scopes: ["job"] });
    expect((await budgetEntries(c, job.id)).map((e: any) => e.why)).toContain("exempt");
    const again = await rawAgent(d, c, job.id);
    await again.agent.ok("report", {
      id: job.id,
      token: again.token,
      report: { state: "working", usage: usage(0.3) }, // a new session: counted whole
    });
    await new Promise((res) => setTimeout(res, 700));
    r = await row(c, job.id);
    expect(r.life).toBe("running");
    expect(r.budget.spent.cost).toBeCloseTo(1.55);
    expect(delivered(again.agent, job.id).filter((e) => e.mode === "steer")).toEqual([]);

    // A raised budget counts again: now 1.55 of 10.
    const raised = await c.ok("budget", { id: job.id, cost: 10 });
    expect(raised.job.budget).toMatchObject({ state: "ok", own: { cost: 10 } });
    again.agent.close();
  });

  it("a raised budget continues a job stopped for it", async () => {
    const { d, c } = await daemon({ agentProfiles: { silent: silentProfile() } });
    const { job } = await c.ok("dispatch", { profile: "silent", task: "go", budget: { tokens: 500 } });
    const { agent, token } = await rawAgent(d, c, job.id);
    await agent.ok("report", { id: job.id, token, report: { state: "working", usage: usage(0, 600) } });
    const steer = await agent.waitFor(
      () => delivered(agent, job.id).find((e) => e.mode === "steer"),
      "the steer",
    );
    await agent.ok("ack", { id: job.id, token, seq: steer.seq });
    await agent.ok("report", { id: job.id, token, report: { state: "working", usage: usage(0, 700) } });
    const s = await untilRow(c, job.id, "stopped", (x) => x.life === "stopped");
    expect(s.stopReason).toBe("budget");
    agent.close();
    const low = await c.ok("budget", { id: job.id, tokens: 600 }); // still spent: stays stopped
    expect(low.continued).toBe(false);
    const out = await c.ok("budget", { id: job.id, tokens: 5000 });
    expect(out.continued).toBe(true);
    const r = await untilRow(c, job.id, "running again", (x) => x.life === "running");
    expect(r.budget).toMatchObject({ state: "ok", own: { tokens: 5000 } });
    expect(r.stopReason).toBeNull();
  });

  it("a daily budget across three jobs: their spend summed, all paused at 100%, a fourth dispatch refused; spend says the totals", async () => {
    const { d, c } = await daemon({
      agentProfiles: { silent: silentProfile() },
      budgets: { daily: { cost: 3 } },
    });
    const agents: { id: string; agent: RawClient; token: string }[] = [];
    for (const n of [1, 2, 3]) {
      const { job } = await c.ok("dispatch", { profile: "silent", task: `job ${n}` });
      agents.push({ id: job.id, ...(await rawAgent(d, c, job.id)) });
    }
    for (const a of agents.slice(0, 2))
      await a.agent.ok("report", {
        id: a.id,
        token: a.token,
        report: { state: "working", usage: usage(1.1) },
      });
    let r = await row(c, agents[0]!.id);
    expect(r.budget).toMatchObject({ scope: "daily", state: "ok" });
    expect(r.budget.used.cost).toBeCloseTo(2.2);
    const a3 = agents[2]!;
    await a3.agent.ok("report", {
      id: a3.id,
      token: a3.token,
      report: { state: "working", usage: usage(1.1) },
    });
    for (const a of agents) {
      const steer = await a.agent.waitFor(
        () => delivered(a.agent, a.id).find((e) => e.mode === "steer"),
        `${a.id}'s steer`,
      );
      expect(steer.text).toContain("the daily budget is spent");
    }
    r = await row(c, agents[1]!.id);
    expect(r.budget).toMatchObject({ scope: "daily", state: "spent" });
    const refused = await c.request("dispatch", { profile: "silent", task: "job 4" });
    expect(refused.ok).toBe(false);
    expect(refused.code).toBe("policy");
    expect(refused.error).toContain("the daily budget is spent");
    expect(refused.error).toContain("budgets.daily");
    // One goes on after its steer: stopped; one says done: paused, still running.
    const [first, second] = agents as [(typeof agents)[0], (typeof agents)[0]];
    const seqOf = (a: (typeof agents)[number]) =>
      delivered(a.agent, a.id).find((e) => e.mode === "steer").seq;
    await first.agent.ok("ack", { id: first.id, token: first.token, seq: seqOf(first) });
    await first.agent.ok("report", {
      id: first.id,
      token: first.token,
      report: { state: "working", usage: usage(1.2) },
    });
    await second.agent.ok("ack", { id: second.id, token: second.token, seq: seqOf(second) });
    await second.agent.ok("report", {
      id: second.id,
      token: second.token,
      report: { state: "done", summary: "stopped there", usage: usage(1.1) },
    });
    expect((await untilRow(c, first.id, "stopped", (x) => x.life === "stopped")).stopReason).toBe("budget");
    expect((await row(c, second.id)).life).toBe("running");

    const spend = await c.ok("spend", {});
    expect(spend.days).toHaveLength(1);
    expect(spend.days[0].day).toBe(spend.today);
    expect(spend.days[0].total.cost).toBeCloseTo(3.4);
    expect(spend.days[0].total.tokens).toBe(3000);
    expect(spend.days[0].profiles.silent.cost).toBeCloseTo(3.4);
    expect(spend.days[0].total.minutes).toBeGreaterThan(0);
    expect(spend.limits).toEqual({ daily: { cost: 3 } });
    // Kept in the store: the same after a restart.
    for (const a of agents) a.agent.close();
    await d.restart();
    const c2 = await d.client();
    const after = await c2.ok("spend", { days: 2 });
    expect(after.days[0].total.cost).toBeCloseTo(3.4);
    expect((await c2.ok("list", {})).rows.find((x: any) => x.id === first.id).budget.spent.cost).toBeCloseTo(
      1.2,
    );
    c2.close();
  });

  it("minutes on a terminal job: stopped once its turn is over", async () => {
    const { c } = await daemon({ agentProfiles: { bash: bashProfile() } });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-budget-"));
    try {
      const { job } = await c.ok("dispatch", {
        profile: "bash",
        cwd: dir,
        task: "sleep 6; echo slept > slept.txt",
        budget: { minutes: 0.05 },
      });
      // 3 s in, its budget is spent, but its turn goes on: it is stopped once the prompt is back.
      await until("its budget spent", async () =>
        (await row(c, job.id)).budget.state === "spent" ? true : undefined,
      );
      expect((await row(c, job.id)).life).toBe("running");
      const r = await untilRow(c, job.id, "stopped", (x) => x.life === "stopped", 20000);
      expect(r.stopReason).toBe("budget");
      expect(fs.existsSync(path.join(dir, "slept.txt"))).toBe(true); // its turn ran to its end
      expect(r.budget.spent.minutes).toBeGreaterThanOrEqual(0.05);
      const kinds = (await c.ok("events", { id: job.id })).events.map((e: any) => `${e.kind}:${e.why ?? ""}`);
      expect(kinds).toContain("budget:spent");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a bad budgets in roost.json is refused at start, saying where", async () => {
    for (const [budgets, said] of [
      [{ daily: { cost: -1 } }, "budgets.daily.cost"],
      [{ job: { tokens: 1.5 } }, "budgets.job.tokens"],
      [{ profiles: { nowhere: { cost: 1 } } }, 'budgets.profiles.nowhere: no profile "nowhere"'],
      [{ weekly: { cost: 1 } }, "budgets"],
    ] as const) {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-test-"));
      try {
        fs.writeFileSync(path.join(home, "roost.json"), JSON.stringify({ budgets }));
        const { code, stderr } = await daemonRefusal(daemonEnv(home));
        expect(code, stderr).toBe(2);
        expect(stderr).toContain(said);
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    }
  });

  it("a bad budget is refused: dispatch's and the budget op's", async () => {
    const { c } = await daemon({});
    const bad = await c.request("dispatch", { profile: "shell", budget: { cost: 0 } });
    expect(bad.code).toBe("bad_request");
    expect(bad.error).toContain("budget");
    const { job } = await c.ok("dispatch", { profile: "shell" });
    const none = await c.request("budget", { id: job.id });
    expect(none.code).toBe("bad_request");
    expect(none.error).toContain("give cost, tokens or minutes");
  });

  it("the CLI: dispatch --budget, roost budget, roost spend", async () => {
    const { d, c } = await daemon({ budgets: { daily: { minutes: 600 }, job: { cost: 2 } } });
    const started = await json(
      ["dispatch", "shell", "--budget", "cost=5,minutes=30", "--budget-tokens", "9000"],
      d.env,
    );
    expect(started.job.budget).toMatchObject({
      own: { cost: 5, minutes: 30, tokens: 9000 },
      scope: "job",
      state: "ok",
    });
    const plain = await json(["dispatch", "shell"], d.env);
    expect(plain.job.budget.own).toBeNull(); // roost.json's budgets.job applies
    const bad = await roost(["dispatch", "shell", "--budget", "dollars=5"], d.env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("DIM one of cost, tokens, minutes");
    expect(await ok(["budget", started.job.id, "--cost", "10"], d.env)).toContain("$10.00");
    expect((await row(c, started.job.id)).budget.own).toEqual({ cost: 10, minutes: 30, tokens: 9000 });
    await until("a minute's share counted", async () =>
      (await c.ok("spend", {})).days[0]?.total.minutes > 0 ? true : undefined,
    );
    const table = await ok(["spend"], d.env);
    expect(table).toContain("profile shell");
    expect(table).toContain("600 min"); // the daily budget, beside today's total
    expect(table).toContain("each job's own budget by default: $2.00");
    expect((await json(["spend", "--days", "3"], d.env)).limits.daily).toEqual({ minutes: 600 });
  });
});
