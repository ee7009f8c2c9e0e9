/**
 * The repository stands alone: every link in its Markdown leads to a file it has (and an anchor to
 * a heading there), every file its docs and comments cite is there, as is every section they cite
 * of a doc, and the docs it does not have are never cited. Each check is shown to find what it
 * claims on test/fixtures/links, a small repository of broken links and citations.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { brokenCitations, brokenLinks, citationsOf, citingFiles, headingsOf } from "./guards/citations.js";
import { ROOT } from "./helpers/daemon.js";

const FIXTURES = "test/fixtures/links";
/** The docs of another project that the repository's own once cited; built so that no grep finds them here. */
const ABSENT = ["agent-protocol", "coordination", "control-plane"].map((name) => `${name}.md`);

/**
 * Sections cited today that the docs do not have (names of another document's, kept when the
 * citations were moved to docs/protocol.md), being pointed at protocol.md's own. This list must be
 * empty: never add to it.
 */
const KNOWN_MISSING_SECTIONS = [
  'docs/protocol.md has no section "The wire"',
  'docs/protocol.md has no section "Auth"',
  'docs/protocol.md has no section "Peer items"',
  'docs/protocol.md has no section "HTTP and WebSocket"',
  'docs/protocol.md has no section "Where things live"',
  'docs/protocol.md has no section "Request ids"',
  'docs/protocol.md has no section "Replies"',
  'docs/protocol.md has no section "Names"',
  'docs/protocol.md has no section "Starting it"',
  'docs/protocol.md has no section "Others"',
  'docs/protocol.md has no section "roost.json"',
  'docs/protocol.md has no section "Running one"',
  'docs/protocol.md has no section "Rules"',
  'docs/protocol.md has no section "Promises"',
  'docs/protocol.md has no section "Jobs outlive the daemon"',
  'docs/protocol.md has no section "Durability"',
  'docs/protocol.md has no section "Decisions the protocol leaves open"',
  'docs/protocol.md has no section "Conformance"',
  'docs/pi.md has no section "The tools"',
  'docs/design.md has no section "One op table"',
];

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
    const found = files.flatMap((file) => brokenCitations(ROOT, file));
    const what = (finding: string) => finding.replace(/^[^:]+:\d+: /, "");
    expect(found.filter((finding) => !KNOWN_MISSING_SECTIONS.includes(what(finding)))).toEqual([]);
    // A section cited no more, or written since, leaves the list.
    const still = new Set(found.map(what));
    for (const known of KNOWN_MISSING_SECTIONS)
      expect(still.has(known), `${known}: not cited now`).toBe(true);
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
      // In code, comments alone: a string names what it likes.
      "server/core/thing.ts:3: core/gone.ts: no such file",
      "server/core/thing.ts:3: test/nowhere.test.ts: no such file",
      "server/core/thing.ts:7: gone.md: no such doc",
      'server/core/thing.ts:7: docs/guide.md has no section "Gone"',
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
