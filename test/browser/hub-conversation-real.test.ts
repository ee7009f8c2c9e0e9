/**
 * Claude Code's conversation on its job's page, for real: claude-agent-acp (on Claude Code) inside
 * roost against the scripted model's Anthropic wire (real-acp.ts), in a real chromium. The task,
 * Claude's words, its Bash call asking permission, allowed from the page, the call completed with
 * its input and result, the last message: each on the page as it comes; its screenshot for people
 * to look at (test-output/screenshots/job-conversation-claude.png).
 */
import { describe, expect, it } from "vitest";
import { REAL_WAIT, realAcpWorldPerFile, untilSettled } from "../helpers/real-acp.js";
import { pageErrors, shot } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const world = realAcpWorldPerFile("claude-acp");
const openPage = hubBrowser();

describe("Claude Code's conversation in the hub", { timeout: 4 * REAL_WAIT }, () => {
  it("its words, its Bash call asked, allowed from the page, run with its input and result", async () => {
    const w = world();
    w.model.script(
      "conv",
      {
        text: "I'll write the greeting to a file.",
        tools: [
          {
            name: "Bash",
            args: {
              command: "echo hello > greeting.txt && cat greeting.txt",
              description: "Write the greeting",
            },
          },
        ],
      },
      { text: "Wrote greeting.txt: it says hello." },
    );
    const { id } = await w.dispatch("[conv] write a greeting to greeting.txt");
    const { page } = await openPage(w.d);
    await page.goto(`${w.d.url}#/jobs/${id}`);
    const conv = page.locator("ol.job-conversation");
    await conv.locator("li.conv-ask").waitFor({ timeout: REAL_WAIT });
    await page
      .locator(".job-view li.row")
      .getByRole("button", { name: /^(2\. )?Allow$/ })
      .click();
    await conv
      .locator("li.conv-message", { hasText: "Wrote greeting.txt: it says hello." })
      .waitFor({ timeout: REAL_WAIT });
    await untilSettled(w, id);

    const { entries } = await w.c.ok("conversation", { id });
    const kinds = entries.map((e: any) => e.kind);
    expect(kinds[0]).toBe("message");
    expect(entries[0]).toMatchObject({ role: "user", text: "[conv] write a greeting to greeting.txt" });
    expect(
      entries.some(
        (e: any) => e.kind === "message" && e.role === "agent" && e.text.includes("I'll write the greeting"),
      ),
    ).toBe(true);
    expect(kinds).toContain("ask");
    expect(entries.find((e: any) => e.kind === "answer")).toMatchObject({ role: "user", text: "Allow" });
    // The Bash call, once on the page: completed, its command its input.
    const tool = conv.locator("li.conv-tool", { hasText: "echo hello" });
    await expect
      .poll(() => tool.locator(".conv-status").innerText(), { timeout: REAL_WAIT })
      .toBe("completed");
    await tool.locator("summary").click();
    expect(await tool.locator(".conv-io pre").first().innerText()).toContain("echo hello > greeting.txt");
    await conv.scrollIntoViewIfNeeded();
    await shot(page, "job-conversation-claude", true);
    expect(pageErrors(page)).toEqual([]);
  });
});
