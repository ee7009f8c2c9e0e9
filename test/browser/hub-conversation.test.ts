/**
 * An ACP job's conversation on its page, in a real chromium against a real daemon (hub.md, "What it
 * shows"): the prompt, the thinking folded, the agent's message, the plan, the tool call asking
 * permission, answered from the page, then the same call completed with its input and result
 * folded under it, the diff's lines, the last message, each arriving live; its screenshot for
 * people to look at. The agent is a real ACP agent on the official SDK (test/fixtures/acp-talk-agent.mjs).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES } from "../helpers/daemon.js";
import { cleanDaemonPerTest, startCleanDaemon } from "../helpers/jobs.js";
import { pageErrors, shot, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const openPage = hubBrowser();
const daemon = cleanDaemonPerTest(
  () => ({
    agentProfiles: {
      talk: { command: [process.execPath, path.join(FIXTURES, "acp-talk-agent.mjs")], acp: true },
    },
  }),
  startCleanDaemon,
);

describe("a job's conversation in the hub", () => {
  it("streams onto its page as the agent goes: messages, thinking, plan, the tool call with its input and result, the ask answered from the page, the diff", async () => {
    const { d, c, dir } = await daemon();
    const { page } = await openPage(d);
    const { job } = await c.ok("dispatch", { profile: "talk", task: "edit", cwd: dir, name: "rename" });
    await page.goto(`${d.url}#/jobs/${job.id}`);

    const conv = page.locator("ol.job-conversation");
    const items = conv.locator("> li");
    // Up to the permission asked: the page follows the pushes, nothing reloaded.
    await conv.locator("li.conv-ask", { hasText: "Allow: Edit a.txt?" }).waitFor({ timeout: WAIT });
    expect(await items.evaluateAll((els) => els.map((e) => e.className.split(" ")[1]))).toEqual([
      "conv-message",
      "conv-thinking",
      "conv-message",
      "conv-plan",
      "conv-tool",
      "conv-ask",
    ]);
    await expect.poll(() => items.nth(0).innerText()).toContain("edit");
    expect(await items.nth(0).getAttribute("class")).toContain("by-user");
    // The thinking is folded: its words are there, not shown until opened.
    expect(await items.nth(1).locator(".conv-text").isVisible()).toBe(false);
    expect(await items.nth(2).innerText()).toContain("I'll rename it in a.txt.");
    expect(await items.nth(3).innerText()).toContain("▸ rename colour");
    const tool = items.nth(4);
    expect(await tool.locator(".conv-status").innerText()).toBe("pending");

    // Answered from the page: the row's own choice, clicked.
    await page
      .locator(".job-view li.row")
      .getByRole("button", { name: /Allow once/ })
      .click();
    await conv.locator("li.conv-message", { hasText: "Renamed." }).waitFor({ timeout: WAIT });
    // The tool call is still one item, where it began, now completed; its input and result under it.
    await expect.poll(() => tool.locator(".conv-status").innerText()).toBe("completed");
    expect(await conv.locator("li.conv-tool").count()).toBe(1);
    await tool.locator("summary").click();
    expect(await tool.locator(".conv-io pre").first().innerText()).toContain('"new": "color = 1"');
    expect(await tool.locator(".conv-io pre").nth(1).innerText()).toBe("1 line changed");
    await expect.poll(() => conv.locator("li.conv-answer").innerText()).toContain("Allow once");
    const diff = conv.locator("li.conv-diff");
    expect(await diff.locator(".conv-diff-lines .del").innerText()).toBe("- colour = 1\n");
    expect(await diff.locator(".conv-diff-lines .add").innerText()).toBe("+ color = 1\n");
    expect(await diff.locator(".conv-stat").innerText()).toBe("+1 −1");
    expect(await conv.locator("li.conv-plan").last().innerText()).toContain("✓ run the tests");
    await conv.scrollIntoViewIfNeeded();
    await shot(page, "job-conversation", true);
    expect(pageErrors(page)).toEqual([]);
  });
});
