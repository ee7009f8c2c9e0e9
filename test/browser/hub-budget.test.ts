/**
 * Budgets in the hub (docs/budgets.md, docs/hub.md "Spend and budgets"), in a real browser against
 * a real daemon whose protocol agents (the test speaking for them) report what they cost: the
 * header says today's spend against the day's budget and turns amber past 80% of it; a row says
 * its spend against its own budget; a job stopped for its budget says so; the Budget… form shows
 * the daemon's refusal, then raises the budget and the job runs again; the Spend page's totals;
 * and a job stopped for its budget that its row's Respawn continues past it. The same on a phone
 * and in the dark. Screenshots in test-output/screenshots/ (budget-desktop, budget-phone,
 * budget-dark, spend-page, spend-phone, budget-form).
 */
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { delivered, rawAgent, rmTemp, silentProfile, tempDir, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const hub = hubBrowser();
const ENV = { ROOST_BUDGET_TICK_MS: "500", ROOST_BUDGET_GRACE_MS: "60000" };

const usage = (cost: number, tokens: number) => ({
  input: tokens / 2,
  output: tokens / 2,
  totalTokens: tokens,
  cost: { total: cost, currency: "USD" },
});

const daemons: TestDaemon[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const d of daemons) await d.cleanup();
  for (const dir of dirs) rmTemp(dir);
});

describe("budgets in the hub", () => {
  it("the header's spend, a row's budget, a job stopped for it, Budget… continues it, the Spend page", async () => {
    const d = await startDaemon({
      config: {
        agentProfiles: { coder: silentProfile(), writer: silentProfile() },
        budgets: { daily: { cost: 20 }, profiles: { writer: { cost: 18 } } },
      },
      env: ENV,
    });
    daemons.push(d);
    const c = await d.client();
    const repo = tempDir();
    const plain = tempDir();
    dirs.push(repo, plain);
    execFileSync("git", ["init", "-q", repo]);
    const a = (
      await c.ok("dispatch", {
        profile: "coder",
        task: "go",
        name: "fix the parser",
        cwd: repo,
        budget: { cost: 1 },
      })
    ).job.id as string;
    const b = (await c.ok("dispatch", { profile: "writer", task: "go", name: "write the docs", cwd: plain }))
      .job.id as string;
    const agentA = await rawAgent(d, c, a);
    const agentB = await rawAgent(d, c, b);
    const report = (who: { agent: RawClient; token: string }, id: string, cost: number, tokens: number) =>
      who.agent.ok("report", {
        id,
        token: who.token,
        report: { state: "working", summary: "at work", usage: usage(cost, tokens) },
      });
    await report(agentA, a, 0.5, 40_000);
    await report(agentB, b, 2, 300_000);

    const { page } = await hub(d);
    const spendTab = page.locator('header.top .tabs a[data-nav="spend"]');
    const spend = spendTab.locator(".spend-count");
    await expect.poll(() => spend.innerText(), { timeout: WAIT }).toBe("$2.50 of $20");
    expect(await spend.getAttribute("class")).toBe("tab-count spend-count s-ok");
    expect(await spendTab.getAttribute("aria-label")).toBe("Spend: $2.50 of $20 today");
    const bud = (id: string) => page.locator(`li.row[data-id="${id}"] .bud`);
    await expect.poll(() => bud(a).innerText(), { timeout: WAIT }).toBe(" · $0.50 of $1");
    expect(await bud(a).getAttribute("class")).toBe("bud s-ok");

    // Near its own budget: the row turns amber.
    await report(agentA, a, 0.9, 60_000);
    await expect.poll(() => bud(a).getAttribute("class"), { timeout: WAIT }).toBe("bud s-warn");
    expect(await bud(a).innerText()).toBe(" · $0.90 of $1");

    // Past it: steered, and stopped when it goes on; the row says why.
    await report(agentA, a, 1.2, 70_000);
    const steer = await agentA.agent.waitFor(
      () => delivered(agentA.agent, a).find((e) => e.mode === "steer"),
      "the steer from roost",
    );
    await agentA.agent.ok("ack", { id: a, token: agentA.token, seq: steer.seq });
    await report(agentA, a, 1.25, 72_000);
    await untilRow(c, a, "stopped for its budget", (r) => r.life === "stopped" && r.stopReason === "budget");
    agentA.agent.close();
    await expect.poll(() => page.locator(`#state-${a}`).innerText(), { timeout: WAIT }).toBe("budget spent");
    expect(await bud(a).getAttribute("class")).toBe("bud s-alarm");

    // The day past 80% of its budget: the header turns amber, as soon as the spend is asked again.
    await report(agentB, b, 15, 1_200_000);
    await expect.poll(() => spend.innerText(), { timeout: WAIT }).toBe("$16.25 of $20");
    expect(await spend.getAttribute("class")).toBe("tab-count spend-count s-warn");
    expect(await spendTab.getAttribute("aria-label")).toBe(
      "Spend: $16.25 of $20 today, near the day's budget",
    );
    // The other job's budget nearest its end is its profile's for the day: its share on the line.
    expect(await bud(b).innerText()).toBe(" · $15 · profile 83%");
    expect(await bud(b).getAttribute("class")).toBe("bud s-warn");
    await shot(page, "budget-desktop");

    // The same on a phone and in the dark, while the job is stopped for its budget.
    const phone = await hub(d, { viewport: { width: 390, height: 844 }, mobile: true });
    await expect
      .poll(() => phone.page.locator("header.top .spend-count").innerText(), { timeout: WAIT })
      .toBe("$16.25");
    await phone.page.locator("li.row .bud").first().waitFor({ state: "attached" });
    expect(await phone.page.locator(`#state-${a}`).innerText()).toBe("budget spent");
    // The spend on its tab, within the screen (the tabs' line scrolls sideways when too long).
    const box = await phone.page.locator("header.top .spend-count").boundingBox();
    const tabs = await phone.page.locator("header.top .tabs").boundingBox();
    expect(box && tabs && box.x + box.width).toBeLessThanOrEqual((tabs?.x ?? 0) + (tabs?.width ?? 0));
    await shot(phone.page, "budget-phone");
    await phone.page.locator('header.top a[data-nav="spend"]').click();
    await phone.page.locator("li.spend-day.today").waitFor();
    await shot(phone.page, "spend-phone", true);
    // Nothing wider than the screen: the page never scrolls sideways.
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    const dark = await hub(d, { dark: true, prefs: { density: "roomy" } });
    await expect
      .poll(() => dark.page.locator("header.top .spend-count").getAttribute("class"), { timeout: WAIT })
      .toBe("tab-count spend-count s-warn");
    await dark.page.locator("li.row ul.meta li.budget").first().waitFor();
    await shot(dark.page, "budget-dark");
    expect(pageErrors(phone.page)).toEqual([]);
    expect(pageErrors(dark.page)).toEqual([]);

    // The Spend page, from the header: today's total, the day's bar, by profile (with the writer's budget), by repository.
    await spendTab.click();
    await page.locator("h1#spend-title").waitFor();
    const today = page.locator("li.spend-day.today");
    await expect
      .poll(() => today.locator(".spend-total").innerText(), { timeout: WAIT })
      .toMatch(/^\$16\.25 · 1\.3M tokens/);
    expect(await today.locator(".spend-bars .spend-bar").innerText()).toMatch(/the day\s+\$16\.25 of \$20/);
    expect(await today.locator(".spend-bars .spend-bar").getAttribute("class")).toBe("spend-bar s-warn");
    const profileRow = (name: string) => today.locator(`table.spend-table tr[data-key="${name}"]`).first();
    expect(await profileRow("writer").locator("td").first().innerText()).toBe("$15");
    expect(await profileRow("writer").locator(".spend-bar-text").innerText()).toBe("$15 of $18");
    expect(await profileRow("coder").locator("td").first().innerText()).toBe("$1.25");
    const repoRow = today.locator(`table.spend-table tr[data-key="${repo}"]`);
    expect(await repoRow.locator("th").innerText()).toBe(repo.split("/").pop());
    expect(await page.locator(".spend-limits").innerText()).toContain("the day $20 · writer $18 a day");
    await shot(page, "spend-page", true);

    // Budget… on the job's page: prefilled, the daemon's refusal shown, then raised: it runs again.
    await page.goto(`${d.url}#/jobs/${a}`);
    const row = page.locator(`li.row[data-id="${a}"]`);
    expect(await row.getByRole("button", { name: "Respawn" }).getAttribute("title")).toContain(
      "until the day ends",
    );
    expect(await row.locator("ul.meta li.budget-stop").innerText()).toContain("its budget is spent");
    await row.getByRole("button", { name: "Budget…" }).click();
    const form = row.locator("form.budget-form");
    const cost = form.locator('input[name="cost"]');
    expect(await cost.inputValue()).toBe("1");
    expect(await form.locator('input[name="tokens"]').inputValue()).toBe("");
    await cost.fill("-2");
    await form.getByRole("button", { name: "Save" }).click();
    const status = form.locator(".form-status");
    await expect.poll(() => status.innerText(), { timeout: WAIT }).toMatch(/^Failed: .*cost/);
    expect(await status.getAttribute("data-kind")).toBe("error");
    await shot(page, "budget-form");
    await cost.fill("5");
    await form.getByRole("button", { name: "Save" }).click();
    await row.locator(".row-status", { hasText: "Budget set: the job goes on" }).waitFor();
    expect(await form.count()).toBe(0);
    const again = await untilRow(c, a, "running again", (r) => r.life === "running" && r.stopReason === null);
    // Its own budget no longer the nearest: the day's, at 81%, is.
    expect(again.budget).toMatchObject({ own: { cost: 5 }, scope: "daily", state: "near" });
    await expect
      .poll(() => page.locator(`#state-${a}`).innerText(), { timeout: WAIT })
      .not.toBe("budget spent");
    await expect
      .poll(() => row.locator("ul.meta li.budget").innerText(), { timeout: WAIT })
      .toContain("of $20");
    expect(pageErrors(page)).toEqual([]);
    agentB.agent.close();
  }, 150_000);

  it("a job stopped for its budget: Respawn on its row continues it past the budget, for the day", async () => {
    const d = await startDaemon({ config: { agentProfiles: { coder: silentProfile() } }, env: ENV });
    daemons.push(d);
    const c = await d.client();
    const { job } = await c.ok("dispatch", {
      profile: "coder",
      task: "go",
      name: "tokens",
      budget: { tokens: 500 },
    });
    const { agent, token } = await rawAgent(d, c, job.id);
    const work = (tokens: number) =>
      agent.ok("report", { id: job.id, token, report: { state: "working", usage: usage(0, tokens) } });
    await work(600);
    const steer = await agent.waitFor(
      () => delivered(agent, job.id).find((e) => e.mode === "steer"),
      "the steer",
    );
    await agent.ok("ack", { id: job.id, token, seq: steer.seq });
    await work(700);
    await untilRow(
      c,
      job.id,
      "stopped for its budget",
      (r) => r.life === "stopped" && r.stopReason === "budget",
    );
    agent.close();

    const { page } = await hub(d, { prefs: { density: "roomy" } });
    const row = page.locator(`li.row[data-id="${job.id}"]`);
    await expect
      .poll(() => page.locator(`#state-${job.id}`).innerText(), { timeout: WAIT })
      .toBe("budget spent");
    expect(await row.locator("ul.meta li.budget").innerText()).toBe("700 of 500 tokens");
    expect(await row.locator("ul.meta li.budget").getAttribute("class")).toBe("budget s-alarm");
    await row.getByRole("button", { name: "Respawn" }).click();
    await row.locator(".row-status", { hasText: "Respawned: it goes on past its budget today" }).waitFor();
    const r = await untilRow(
      c,
      job.id,
      "running again",
      (x) => x.life === "running" && x.stopReason === null,
    );
    expect(r.budget.exempt).toMatchObject({ scopes: ["job"] });
    await expect
      .poll(() => page.locator(`#state-${job.id}`).innerText(), { timeout: WAIT })
      .not.toBe("budget spent");
    expect(await row.locator("ul.meta li.budget-stop").count()).toBe(0);
    expect(pageErrors(page)).toEqual([]);
  }, 90_000);
});
