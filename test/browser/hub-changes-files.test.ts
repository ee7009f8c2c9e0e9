/**
 * The Changes view draws every file a job changed, whatever it is: a real worktree job's diff
 * with a .txt and a .html (whose languages diff2html once handed highlight.js by display names it
 * threw on, hiding the whole diff), a binary file, a rename, a deletion, a large file and an empty
 * one. Each is a file of its own in the view, and none hides another. Screenshot: changes-files.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { editorProfile, GIT_IDENTITY, makeRepo } from "../helpers/git.js";
import { untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { pageErrors, shot } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const hub = hubBrowser({ viewport: { width: 1300, height: 1000 } });
let d: TestDaemon;
let c: RawClient;
let base: string;

beforeAll(async () => {
  d = await startDaemon({ env: GIT_IDENTITY, config: { agentProfiles: { editor: editorProfile() } } });
  c = await d.client();
  base = makeRepo({
    "old-name.md": "# kept under another name\n",
    "gone.ts": "export const gone = true;\n",
    "README.md": "# app\n",
  });
}, 60_000);
afterAll(async () => {
  await d?.cleanup();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/** What each file of the diff is, by the name diff2html shows. */
const FILES = [
  "big.txt",
  "empty.txt",
  "gone.ts",
  "logo.bin",
  "notes.txt",
  "old-name.md → new-name.md",
  "page.html",
];

describe("the Changes view, every kind of file", () => {
  it("draws a .txt, a .html, a binary, a rename, a deletion, a large and an empty file, each", async () => {
    const task = [
      "printf 'just words\\nmore words\\n' > notes.txt",
      "printf '<!doctype html>\\n<p class=\"x\">hello</p>\\n' > page.html",
      "printf '\\211PNG\\r\\n\\032\\n\\000\\001\\002\\377' > logo.bin",
      "git mv old-name.md new-name.md",
      "git rm -q gone.ts",
      "seq 1 5000 | sed 's/^/line /' > big.txt",
      ": > empty.txt",
      "git add -A && git commit -q -m 'every kind of file'",
    ].join(" && ");
    const { job } = await c.ok("dispatch", {
      profile: "editor",
      task,
      cwd: base,
      worktree: true,
      name: "kinds",
    });
    const id = job.id;
    await untilRow(c, id, "its stat", (r) => r.worktree?.stat?.files === FILES.length, 30_000);

    const { page } = await hub(d);
    await page.goto(`${d.url}#/jobs/${id}`);
    const changes = page.locator("section.changes-section");
    await changes.locator(".d2h-file-wrapper").first().waitFor();
    await expect.poll(() => changes.locator(".d2h-file-wrapper").count()).toBe(FILES.length);
    const names = (await changes.locator(".d2h-file-wrapper .d2h-file-name").allInnerTexts()).map((t) =>
      t.trim(),
    );
    expect([...names].sort()).toEqual(FILES);
    expect(await changes.innerText()).not.toContain("Could not");
    // The text files' lines are there, plain; the html's coloured as html.
    await changes.locator(".d2h-file-wrapper", { hasText: "notes.txt" }).getByText("more words").waitFor();
    await changes.locator(".d2h-file-wrapper", { hasText: "big.txt" }).getByText("line 4999").waitFor();
    await changes
      .locator(".d2h-file-wrapper", { hasText: "page.html" })
      .locator(".hljs-tag")
      .first()
      .waitFor();
    await shot(page, "changes-files");
    expect(pageErrors(page)).toEqual([]);
  }, 120_000);
});
