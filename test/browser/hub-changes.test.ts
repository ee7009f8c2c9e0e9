/**
 * A job's Changes in the hub, in a real browser against a real daemon and a real git repository:
 * the row's branch and `+added −removed`; the job's page draws its diff with diff2html (the files,
 * unified and side by side, syntax colour), fetched again as the job's changes move; a click on a
 * line's number quotes it in the reply; Merge asks, then lands the branch. Screenshots in
 * test-output/screenshots/ (changes-row, changes-unified, changes-side-by-side).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { editorProfile, GIT_IDENTITY, head, makeRepo } from "../helpers/git.js";
import { untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { type FileBrowser, type HubPage, launch, openHub, pageErrors, shot } from "./browser.js";

let browser: FileBrowser;
let d: TestDaemon;
let c: RawClient;
let base: string;
let hub: HubPage | undefined;

const APP = [
  "export function greet(name: string): string {",
  '  const greeting = "Hello";',
  "  return greeting + name;",
  "}",
  "",
].join("\n");

beforeAll(async () => {
  browser = await launch();
  d = await startDaemon({ env: GIT_IDENTITY, config: { agentProfiles: { editor: editorProfile() } } });
  c = await d.client();
  base = makeRepo({ "src/app.ts": APP, "README.md": "# app\n" });
}, 60_000);
afterAll(async () => {
  await hub?.context.close();
  await browser?.close();
  await d?.cleanup();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

describe("a job's Changes in the hub", () => {
  it("shows the branch on the row, the diff on its page, quotes a line in the reply, and merges after asking", async () => {
    // The job changes line 3 of src/app.ts, adds a file, and commits.
    const task = [
      "sed -i 's/return greeting + name;/return greeting + name + 1; \\/\\/ louder/' src/app.ts",
      "printf 'export const answer = 42;\\n' > src/answer.ts",
      "git add -A && git commit -q -m 'louder greeting'",
    ].join(" && ");
    const { job } = await c.ok("dispatch", {
      profile: "editor",
      task,
      cwd: base,
      worktree: true,
      name: "louder",
    });
    const id = job.id;
    await untilRow(c, id, "its stat", (r) => r.worktree?.stat?.files === 2, 30_000);

    hub = await openHub(browser, d, { prefs: { density: "roomy" }, viewport: { width: 1300, height: 1000 } });
    const { page } = hub;
    const row = page.locator(`li.row[data-id="${id}"]`);
    const branch = row.locator("ul.meta li.branch");
    await branch.waitFor();
    expect((await branch.innerText()).replace(/\s+/g, " ").trim()).toBe(`⎇ roost/${id} +2 −1`);
    await shot(page, "changes-row");
    // The dense line says it too, the branch in its title.
    await page.evaluate(() =>
      localStorage.setItem("roost.prefs", JSON.stringify({ density: "dense", preview: false })),
    );
    await page.reload();
    const profile = page.locator(`li.row[data-id="${id}"] .cell-profile`);
    await profile.waitFor();
    // The profile and the branch's lines; what the job uses follows once the 5 s pass has read it.
    expect(await profile.innerText()).toMatch(/^editor · \+2 −1( · cpu [\d.]+% · [\d.]+ [kMG]?B)?$/);
    expect(await profile.getAttribute("title")).toBe(`editor, on branch roost/${id}`);
    expect(await page.locator(".rows-toolbar .count").innerText()).toBe("1 job"); // not "1 jobs"

    // Its page: the files, the diff, syntax colour.
    await page.goto(`${d.url}#/jobs/${id}`);
    const changes = page.locator("section.changes-section");
    await changes.locator(".d2h-file-wrapper").first().waitFor();
    const summary = (await changes.locator(".changes-summary").innerText()).replace(/\s+/g, " ");
    expect(summary).toBe(`2 files +2 −1, 1 commit against ${head(base).slice(0, 12)} on roost/${id}`);
    expect(await changes.locator(".d2h-file-wrapper").count()).toBe(2);
    expect(await changes.locator(".d2h-file-list .d2h-file-name").allInnerTexts()).toEqual([
      "src/answer.ts",
      "src/app.ts",
    ]);
    await changes.getByText("louder greeting").waitFor(); // the commit
    await changes.locator(".d2h-ins .hljs-keyword").first().waitFor(); // highlight.js at work
    expect(await changes.locator(".d2h-del").count()).toBeGreaterThan(0);
    await shot(page, "changes-unified", true);

    // Side by side, kept as the page's choice.
    await changes.getByRole("button", { name: "Side by side" }).click();
    await changes.locator(".d2h-file-side-diff").first().waitFor();
    expect(await changes.getByRole("button", { name: "Side by side" }).getAttribute("aria-pressed")).toBe(
      "true",
    );
    await shot(page, "changes-side-by-side", true);
    await changes.getByRole("button", { name: "Unified" }).click();
    await changes.locator(".d2h-file-wrapper .d2h-code-linenumber").first().waitFor();

    // A click on the added line's number quotes it in the reply, and the reply goes with it.
    const app = changes.locator(".d2h-file-wrapper", {
      has: page.locator(".d2h-file-name", { hasText: "src/app.ts" }),
    });
    await app
      .locator("tr", { has: page.locator("td.d2h-ins") })
      .locator(".d2h-code-linenumber")
      .first()
      .click();
    const reply = page.locator(`#reply-${id}`);
    await expect.poll(() => reply.inputValue()).toBe("about `src/app.ts:3`: ");
    await reply.press("End");
    await reply.type("why the comment?");
    await reply.press("Enter");
    await until("the reply in the feed", async () =>
      (await c.ok("events", { id })).events.some(
        (e: { kind: string; text: string }) =>
          e.kind === "reply" && e.text.includes("about `src/app.ts:3`: why the comment?"),
      ),
    );

    // More work in the worktree: once its stat moves, the page shows it without a reload.
    fs.writeFileSync(path.join(job.worktree.path, "NOTES.md"), "notes\n");
    await c.ok("changes", { id, stat: true }); // the row's stat is taken again, and pushed
    await expect
      .poll(async () => (await changes.locator(".changes-summary").innerText()).replace(/\s+/g, " "))
      .toContain("3 files +3 −1");
    fs.rmSync(path.join(job.worktree.path, "NOTES.md"));

    // Merge asks first; then lands the branch in the base checkout.
    await changes.getByRole("button", { name: "Merge into main…" }).click();
    await changes.getByText(`Merge roost/${id} into main in ${base}? Nothing is pushed.`).waitFor();
    expect(head(base)).not.toBe(head(base, `roost/${id}`));
    await changes.getByRole("button", { name: "Merge", exact: true }).click();
    await changes.locator(".changes-status", { hasText: "Merged into main (fast-forward" }).waitFor();
    expect(head(base)).toBe(head(base, `roost/${id}`));
    expect(fs.readFileSync(path.join(base, "src/answer.ts"), "utf8")).toBe("export const answer = 42;\n");
    expect(pageErrors(page)).toEqual([]);
  }, 120_000);
});
