/**
 * The hub in a real browser against a real daemon: a shell job's terminal (watch it, type into
 * it), the page living through a daemon restart without a reload, a read-only token's page, and a
 * job's pending replies listed on its page (a new one appearing live).
 */
import { describe, expect, it } from "vitest";
import { cleanDaemonPerTest, rawAgent, silentProfile, startCleanDaemon } from "../helpers/jobs.js";
import { api, apiPost, freePort, type HubPage, pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const openPage = hubBrowser();
/** A daemon with a protocol profile whose agent never connects: its replies stay pending. */
const daemon = cleanDaemonPerTest(() => ({ agentProfiles: { silent: silentProfile() } }), startCleanDaemon);

/** A daemon (with `env`, if any) and a shell job in a temp dir. */
async function daemonWithShell(env: Record<string, string> = {}) {
  const { d, dir } = await daemon();
  if (Object.keys(env).length) {
    Object.assign(d.env, env);
    await d.restart();
  }
  const c = await d.client();
  const { job } = await c.ok("dispatch", { profile: "shell", name: "a shell", cwd: dir });
  return { d, c, id: job.id as string, dir };
}

/** The xterm's screen as text, one line per row. */
const screenText = (hub: HubPage) => hub.page.locator(".xterm-rows").innerText();

describe("a job's terminal in the hub", () => {
  it("shows the shell's output and runs a command typed into it", async () => {
    const { d, c, id } = await daemonWithShell();
    await c.ok("input", { id, data: "echo from-the-socket\r" });
    const hub = await openPage(d);
    const { page } = hub;
    await page.locator(`li.row[data-id="${id}"] a.name`).click();
    await page.locator(".job-view .xterm-rows").waitFor();
    // The screen as it was, then the output live.
    await expect.poll(() => screenText(hub), { timeout: WAIT }).toContain("from-the-socket");
    await page.locator(".job-view .xterm").click();
    await page.keyboard.type("echo $((6*7))");
    await page.keyboard.press("Enter");
    await expect.poll(() => screenText(hub), { timeout: WAIT }).toMatch(/^42$/m);
    // The terminal was fitted to its box and the job's terminal resized to match.
    await page.keyboard.type("stty size");
    await page.keyboard.press("Enter");
    await expect.poll(() => screenText(hub), { timeout: WAIT }).toMatch(/^\d+ \d+$/m);
    // `stty size` says "rows cols": the job's terminal has the xterm's rows, and cols of the box, not 80.
    const size = /^(\d+) (\d+)$/m.exec(await screenText(hub))!;
    const rows = await page.evaluate("document.querySelector('.xterm-rows').children.length");
    expect(Number(size[1])).toBe(rows);
    expect(Number(size[2])).not.toBe(80);
    await page.evaluate("window.scrollTo(0, 0)");
    await shot(page, "job-terminal");
    // Ctrl-] leaves the terminal; then Esc is the page's again: back to the jobs.
    await page.keyboard.press("Control+BracketRight");
    expect(await page.evaluate("document.activeElement.className")).toBe("term");
    await page.keyboard.press("Escape");
    await page.locator(`.rows-view li.row[data-id="${id}"]`).waitFor();
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("the daemon restarted under an open page", () => {
  it("shows disconnected, then live again with the same rows, without a reload", async () => {
    const port = await freePort();
    const { d, id } = await daemonWithShell({ ROOST_PORT: String(port) });
    expect(d.url).toBe(`http://127.0.0.1:${port}/`);
    const hub = await openPage(d, { prefs: { density: "roomy" } });
    const { page } = hub;
    await page.locator(`li.row[data-id="${id}"]`).waitFor();
    await page.evaluate("window.__sameDocument = 'yes'");

    await d.kill();
    await page.locator(".conn.c-disconnected").waitFor({ timeout: WAIT });
    await page.getByRole("alert").getByText("Disconnected from the daemon").waitFor();
    await shot(page, "rows-disconnected");

    await d.start();
    expect(d.url).toBe(`http://127.0.0.1:${port}/`);
    await page.locator(".conn.c-live").waitFor({ timeout: WAIT });
    await page.getByRole("alert").waitFor({ state: "hidden" });
    await page.locator(`li.row[data-id="${id}"] .name`, { hasText: "a shell" }).waitFor();
    expect(await page.evaluate("window.__sameDocument")).toBe("yes");
    // And it acts again: a rename made from the page reaches the daemon.
    const row = page.locator(`li.row[data-id="${id}"]`);
    await row.getByRole("button", { name: "Rename" }).click();
    await row.getByRole("textbox", { name: `New name for ${id}` }).fill("the same shell");
    await row.getByRole("button", { name: "Save" }).click();
    await row.locator(".name", { hasText: "the same shell" }).waitFor();
    expect((await api(d, "list")).rows[0].name).toBe("the same shell");
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("a read-only token's page", () => {
  it("has no action buttons or fields, and its attempts to act are refused", async () => {
    const { d, c, id, dir } = await daemonWithShell();
    // A blocked job too, so that its choices are there to not be buttons.
    const blocked = await c.ok("dispatch", {
      profile: "example-py",
      name: "asks",
      task: "rm -f nothing",
      cwd: dir,
    });
    const { token, link } = await c.ok("token", { action: "create", name: "dash", readOnly: true });
    expect(token.readOnly).toBe(true);
    const roToken = new URL(link).searchParams.get("token")!;

    const hub = await openPage(d, { token: roToken });
    const { page } = hub;
    await page.locator(`li.row[data-id="${id}"]`).waitFor();
    await page
      .locator(`li.row[data-id="${blocked.job.id}"] .cell-text`, { hasText: "Run `rm -f nothing`?" })
      .waitFor();
    await page.locator(".ro-badge", { hasText: "read-only" }).waitFor();
    // Nothing that cannot work: the only buttons and fields are the page's own (the help, its
    // notifications, the "need you" filter, the toolbar's filter and layout), none that acts.
    const own = ":not(.rows-toolbar *, .none-match *)";
    const buttons = await page.locator(`main button${own}, header button:visible`).allTextContents();
    expect(buttons.filter((b) => b !== "?" && b !== "Notify…" && b !== "1 needs you")).toEqual([]);
    expect(
      await page.locator(`:is(input, textarea, select)${own}, .row-actions, .grip, .bulk-bar`).count(),
    ).toBe(0);
    expect(await page.locator(".rows-toolbar .select-all").count()).toBe(0);
    await page.locator(`li.row[data-id="${blocked.job.id}"] .choice-ro`, { hasText: "yes" }).waitFor();
    await shot(page, "rows-read-only");

    // Shortcuts that act do nothing.
    await page.keyboard.press("d");
    expect(await page.locator("dialog[open]").count()).toBe(0);

    // The job's page: the terminal to watch, still no buttons.
    await page.locator(`li.row[data-id="${id}"] a.name`).click();
    await page.locator(".job-view .xterm-rows").waitFor();
    expect(
      await page.locator("main button, main input:not(.xterm-helper-textarea), main select").count(),
    ).toBe(0);

    // Acting anyway, from the page: the server refuses.
    const answer: any = await page.evaluate(`(async () => {
      const r = await fetch("api/reply", { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: ${JSON.stringify(blocked.job.id)}, text: "yes", requestId: "ro-try-1" }) });
      return { status: r.status, body: await r.json() };
    })()`);
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ ok: false, code: "policy" });
    const row = (await api(d, `list?id=${blocked.job.id}`)).rows[0];
    expect(row.state).toBe("blocked");
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("a job's pending replies", () => {
  it("lists the replies its agent has not taken, oldest first, and a new one as it is sent", async () => {
    const { d, dir } = await daemon();
    const { job } = await apiPost(d, "dispatch", {
      profile: "silent",
      name: "never listens",
      task: "the task itself",
      cwd: dir,
    });
    const id = job.id as string;
    await apiPost(d, "reply", { id, text: "please hurry", mode: "steer" });
    const long = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of a long follow-up`).join("\n");
    await apiPost(d, "reply", { id, text: long });

    const hub = await openPage(d);
    const { page } = hub;
    await page.goto(`${d.url}#/jobs/${id}`);
    const section = page.getByRole("region", { name: "Pending replies" });
    const items = section.locator("li.pending-reply");
    await expect.poll(() => items.count(), { timeout: WAIT }).toBe(3);
    expect(await items.locator(".seq").allTextContents()).toEqual(["#1", "#2", "#3"]);
    await items.nth(0).getByText("the task itself").waitFor();
    await items.nth(1).getByText("please hurry").waitFor();
    await items.nth(1).locator(".mode", { hasText: "steer" }).waitFor();
    expect(await items.nth(2).locator(".pending-text").innerText()).toBe(long);
    // The long one is clipped, with "more" to read it all.
    const text = items.nth(2).locator(".pending-text");
    const clipped = await text.evaluate((el) => el.clientHeight);
    await items.nth(2).getByRole("button", { name: "more" }).click();
    expect(await text.evaluate((el) => el.clientHeight)).toBeGreaterThan(clipped);
    await items.nth(2).getByRole("button", { name: "less" }).waitFor();
    await shot(page, "job-pending", true);

    // Sent now, by someone else: it appears without a reload (the row's push says so).
    await page.evaluate("window.__sameDocument = 'yes'");
    await apiPost(d, "reply", { id, text: "one more thing" });
    await items.nth(3).getByText("one more thing").waitFor();
    expect(await items.locator(".seq").allTextContents()).toEqual(["#1", "#2", "#3", "#4"]);
    // The opened reply stays open through the refresh.
    await items.nth(2).getByRole("button", { name: "less" }).waitFor();
    expect(await page.evaluate("window.__sameDocument")).toBe("yes");
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("what an agent reports", () => {
  it("is shown as text: only its web addresses become links", async () => {
    const { d, c } = await daemon();
    const { job } = await c.ok("dispatch", { profile: "silent", name: "linker" });
    const { agent, token } = await rawAgent(d, c, job.id);
    await agent.ok("report", {
      id: job.id,
      token,
      report: {
        state: "working",
        summary: "<img src=x onerror=alert(1)> opened a PR",
        prLinks: ["javascript:alert(1)", "data:text/html,<b>x</b>", "https://example.com/pr/1"],
      },
    });
    // The roomy card: its details line has the links (a dense line has the summary alone).
    const hub = await openPage(d, { prefs: { density: "roomy" } });
    const row = hub.page.locator(`li.row[data-id="${job.id}"]`);
    await row.getByText("<img src=x onerror=alert(1)> opened a PR").waitFor();
    expect(await row.locator("img").count()).toBe(0);
    expect(await row.locator("a[href]").evaluateAll((as) => as.map((a) => a.getAttribute("href")))).toContain(
      "https://example.com/pr/1",
    );
    expect(await row.locator('a[href^="javascript:"], a[href^="data:"]').count()).toBe(0);
    expect(pageErrors(hub.page)).toEqual([]);
  });
});
