/**
 * The repository stands alone: every link in its Markdown leads to a file it has (and an anchor to
 * a heading there), every file its docs and comments cite is there, as is every section they cite
 * of a doc, and the docs it does not have are never cited. Each check is shown to find what it
 * claims on test/fixtures/links, a small repository of broken links and citations.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/daemon.js";
import { brokenCitations, brokenLinks, citationsOf, citingFiles, headingsOf } from "./guards/citations.js";

const FIXTURES = "test/fixtures/links";
/** The docs of another project that the repository's own once cited; built so that no grep finds them here. */
const ABSENT = ["agent-protocol", "coordination", "control-plane"].map((name) => `${name}.md`);

describe("links and citations", () => {
  const files = citingFiles(ROOT, [FIXTURES]);
  const markdown = files.filter((f) => f.endsWith(".md"));

  it("reads the repository's docs and code", () => {
    for (const file of ["README.md", "CHANGELOG.md", "docs/design.md", "sdk/README.md", "server/main.ts"])
      expect(files).toContain(file);
    expect(files.some((f) => f.startsWith("node_modules/") || f.startsWith(`${FIXTURES}/`))).toBe(false);
  });

  it("every link in every .md leads to a file there, and an anchor to a heading there", () => {
    expect(markdown.flatMap((file) => brokenLinks(ROOT, file))).toEqual([]);
  });

  it("every file, doc and section the docs and comments cite is there", () => {
    expect(files.flatMap((file) => brokenCitations(ROOT, file))).toEqual([]);
  });

  it("the docs the repository does not have are never cited", () => {
    expect(files.flatMap((file) => citationsOf(ROOT, file, ABSENT))).toEqual([]);
  });
});

describe("the checks find what they claim", () => {
  const root = path.join(ROOT, FIXTURES);

  it("anchors as GitHub makes them", () => {
    expect(
      headingsOf("# The hub's ops\n## `hello`\n```\n# not one\n```\n## A row\n## A row").map((h) => h.anchor),
    ).toEqual(["the-hubs-ops", "hello", "a-row", "a-row-1"]);
  });

  it("a link to no file, or to no heading", () => {
    expect(brokenLinks(root, "docs/guide.md")).toEqual([]);
    expect(brokenLinks(root, "README.md")).toEqual([
      "README.md:8: docs/nowhere.md: no docs/nowhere.md",
      "README.md:9: docs/guide.md#no-such-heading: docs/guide.md has no heading #no-such-heading",
      "README.md:10: #nope: README.md has no heading #nope",
      "README.md:13: docs/missing-ref.md: no docs/missing-ref.md",
    ]);
  });

  it("a cited file, doc or section that is not there", () => {
    expect(citingFiles(root)).toEqual(["README.md", "docs/guide.md", "server/core/thing.ts"]);
    expect(citingFiles(root).flatMap((file) => brokenCitations(root, file))).toEqual([
      "README.md:20: server/core/nowhere.ts: no such file",
      "README.md:20: core/gone.ts: no such file",
      "README.md:21: gone.md: no such doc",
      'README.md:20: docs/guide.md has no section "No such section"',
      // Each section of a list, through a link's text too, and a name a line ends in.
      'README.md:22: docs/guide.md has no section "Gone too"',
      'README.md:23: docs/guide.md has no section "Nor this one"',
      // In code, comments alone: a string names what it likes.
      "server/core/thing.ts:3: core/gone.ts: no such file",
      "server/core/thing.ts:3: test/nowhere.test.ts: no such file",
      "server/core/thing.ts:7: gone.md: no such doc",
      'server/core/thing.ts:7: docs/guide.md has no section "Gone"',
      'server/core/thing.ts:10: docs/guide.md has no section "Not here"',
    ]);
  });

  it("a doc the repository does not have", () => {
    // Anywhere, strings too.
    const absent = "gone.md: the repository has no such doc; cite docs/protocol.md's sections";
    expect(citingFiles(root).flatMap((file) => citationsOf(root, file, ["gone.md"]))).toEqual([
      `README.md:21: ${absent}`,
      `server/core/thing.ts:7: ${absent}`,
      `server/core/thing.ts:8: ${absent}`,
    ]);
  });
});
