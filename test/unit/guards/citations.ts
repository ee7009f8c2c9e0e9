/**
 * What the repository's prose points at: links in its Markdown, and the files and sections its
 * docs and comments cite (`docs/protocol.md, "A row"`, `server/core/jobs/registry.ts`, `core/schedules/when.ts`).
 * Each must be there, so that a reader who follows one finds what it promised.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** What no check reads: what is built, installed or made by tests, and not the repository's own. */
const NOT_OURS = new Set([".git", "node_modules", "dist", "test-output"]);
/** Files whose code is read for its comments alone (a test's strings name files it makes up). */
const CODE = /\.(ts|mts|js|mjs)$/;
/** Other files read whole: their text is prose, or a comment's to all intents. */
const TEXT = /\.(md|py|sh|css|html)$|^\.ci\/run$/;

/** The files of `root` that cite (relative paths), but for those under `skip`. */
export function citingFiles(root: string, skip: string[] = []): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (NOT_OURS.has(entry.name) || skip.includes(rel)) return [];
      if (entry.isDirectory()) return walk(rel);
      return CODE.test(rel) || TEXT.test(rel) ? [rel] : [];
    });
  return walk("");
}

/** A doc's text, read once however often it is cited. */
const docs = new Map<string, string>();
const read = (file: string) => {
  if (!docs.has(file)) docs.set(file, fs.readFileSync(file, "utf8"));
  return docs.get(file)!;
};

/** A citing file's prose, with line numbers kept: its comments for code, its whole text else. */
export function proseOf(root: string, file: string): string {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  // A fenced block is an example (a session's output, a command), not a citation; a link's
  // target is the link check's.
  if (file.endsWith(".md"))
    return outsideCode(text)
      .join("\n")
      .replace(/\]\([^)\n]*\)|^[ \t]{0,3}\[[^\]]+\]:.*$/gm, (link) => " ".repeat(link.length));
  if (!CODE.test(file)) return text;
  // The comments, what is between them blanked but for its newlines, so that a line is still its line.
  let prose = "";
  let from = 0;
  for (const [start, end] of commentsOf(text)) {
    prose += `${text.slice(from, start).replace(/[^\n]+/g, " ")}${text.slice(start, end)}`;
    from = end;
  }
  return prose + text.slice(from).replace(/[^\n]+/g, " ");
}

/** The token kinds, looked up once: in a loop over every token of every file, `ts.` costs. */
const K = ts.SyntaxKind;

/** Tokens after which a `/` divides; after any other it starts a regular expression. */
const ENDS_A_VALUE = new Set([
  K.Identifier,
  K.NumericLiteral,
  K.BigIntLiteral,
  K.StringLiteral,
  K.RegularExpressionLiteral,
  K.NoSubstitutionTemplateLiteral,
  K.TemplateTail,
  K.CloseParenToken,
  K.CloseBracketToken,
  K.CloseBraceToken,
  K.ThisKeyword,
  K.SuperKeyword,
  K.TrueKeyword,
  K.FalseKeyword,
  K.NullKeyword,
  K.PlusPlusToken,
  K.MinusMinusToken,
]);

/**
 * Where a script's comments are, as [start, end) offsets. Read by the compiler's scanner alone (a
 * parse of every file took seconds), which needs to be told what the parser would know: whether
 * a `/` starts a regular expression, and where a template's `${…}` ends.
 */
function commentsOf(text: string): [number, number][] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const comments: [number, number][] = [];
  const templates: number[] = []; // the brace depth at each open `${`
  let depth = 0;
  let last = K.Unknown;
  for (let kind = scanner.scan(); kind !== K.EndOfFileToken; kind = scanner.scan()) {
    if (kind === K.SingleLineCommentTrivia || kind === K.MultiLineCommentTrivia) {
      comments.push([scanner.getTokenStart(), scanner.getTokenEnd()]);
      continue;
    }
    if (kind === K.WhitespaceTrivia || kind === K.NewLineTrivia) continue;
    if ((kind === K.SlashToken || kind === K.SlashEqualsToken) && !ENDS_A_VALUE.has(last))
      kind = scanner.reScanSlashToken();
    else if (kind === K.OpenBraceToken) depth++;
    else if (kind === K.CloseBraceToken) {
      if (templates.at(-1) === depth) {
        kind = scanner.reScanTemplateToken(false);
        if (kind === K.TemplateTail) templates.pop();
      } else depth--;
    }
    if (kind === K.TemplateHead) templates.push(depth);
    last = kind;
  }
  return comments;
}

/** A Markdown file's headings, as GitHub anchors them (`## The hub's ops` is `#the-hubs-ops`). */
export function headingsOf(markdown: string): { text: string; anchor: string }[] {
  const counts = new Map<string, number>();
  return outsideCode(markdown).flatMap((line) => {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) return [];
    const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/`/g, "");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = counts.get(slug) ?? 0;
    counts.set(slug, n + 1);
    return [{ text, anchor: n ? `${slug}-${n}` : slug }];
  });
}

/** A Markdown file's lines, those of fenced code blocks blanked. */
function outsideCode(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
}

/** A failure's place and what is wrong there. */
const at = (file: string, text: string, index: number, what: string) =>
  `${file}:${text.slice(0, index).split("\n").length}: ${what}`;

/**
 * Each link of a Markdown file that leads nowhere: to a file or folder the repository does not
 * have, or to a heading a Markdown file does not have (`#anchor`). Links out (`https:`) are not
 * followed; links in code (fenced, or `inline`) are no links.
 */
export function brokenLinks(root: string, file: string): string[] {
  const markdown = fs.readFileSync(path.join(root, file), "utf8");
  const text = outsideCode(markdown)
    .join("\n")
    .replace(/`[^`\n]*`/g, (code) => " ".repeat(code.length));
  const broken: string[] = [];
  const links = [
    ...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
    ...text.matchAll(/^[ \t]{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm),
  ];
  for (const m of links) {
    const link = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
    const [where, anchor] = link.split("#") as [string, string | undefined];
    const target = where ? path.posix.join(path.posix.dirname(file), decodeURIComponent(where)) : file;
    if (!fs.existsSync(path.join(root, target)))
      broken.push(at(file, text, m.index, `${link}: no ${target}`));
    else if (anchor && target.endsWith(".md")) {
      const anchors = headingsOf(read(path.join(root, target))).map((h) => h.anchor);
      if (!anchors.includes(anchor))
        broken.push(at(file, text, m.index, `${link}: ${target} has no heading #${anchor}`));
    }
  }
  return broken;
}

/**
 * The folders a path is cited from: the repository's, and the daemon's parts below `server/`
 * (`core/schedules/when.ts`). Named here, not read from the tree, so that a citation into a folder that is
 * gone is found too.
 */
const CITED_FROM = new Set([
  ...["server", "bridge", "sdk", "web", "test", "bench", "scripts", "docs"],
  ...["core", "ops", "store", "pty", "http", "faces", "cli"],
]);

/**
 * Each file a citing file's prose cites that the repository does not have, and each section of a
 * doc it cites that the doc does not have. A path is cited with a folder (`docs/http.md`,
 * `server/core/jobs/registry.ts`, `test/unit/layers.test.ts`), or by its place below `server/`
 * (`core/schedules/when.ts`, `ops/task.ts`), or below the citing file's folder or one above it; a doc by its
 * name alone (`protocol.md`: docs/, the root, or beside the citing file). A section is a quoted
 * heading after a doc's name, and so is each one after it in a list (`SECTIONED`).
 */
export function brokenCitations(root: string, file: string): string[] {
  const prose = proseOf(root, file);
  const broken: string[] = [];
  const bases = [...ancestors(path.posix.dirname(file)), "server", "docs"];
  const found = (cited: string) => bases.find((base) => fs.existsSync(path.join(root, base, cited)));
  const pathLike =
    /(?<![\w./@<{*-])([\w-]+)((?:\/[\w.-]+)*\/[\w.-]+\.(?:ts|mjs|js|py|md|json|sh|css|html))\b/g;
  for (const m of prose.matchAll(pathLike)) {
    const cited = m[1]! + m[2]!;
    if (CITED_FROM.has(m[1]!) && found(cited) === undefined)
      broken.push(at(file, prose, m.index, `${cited}: no such file`));
  }
  for (const m of prose.matchAll(/(?<![\w./@<{*-])([\w-]+\.md)\b/g)) {
    if (found(m[1]!) === undefined) broken.push(at(file, prose, m.index, `${m[1]}: no such doc`));
  }
  for (const m of prose.matchAll(SECTIONED)) {
    const base = found(m[1]!);
    if (base === undefined) continue; // said above
    const headings = headingsOf(read(path.join(root, base, m[1]!))).map((h) => h.text);
    const doc = path.posix.join(base, m[1]!);
    for (const [, quoted] of m[2]!.matchAll(/"([^"]+)"/g)) {
      // A name that a line ends in is read as one line; a heading's code spans are its text
      // (`### \`reply\`` is cited as "`reply`" or "reply").
      const cited = quoted!.replace(/\s*\n\s*(?:\*|\/\/|#)?\s*/g, " ");
      if (!headings.some((h) => isSection(h, cited.replace(/`/g, ""))))
        broken.push(at(file, prose, m.index, `${doc} has no section "${cited}"`));
    }
  }
  return broken;
}

/** A quoted section's name: on one line, or on two (a line of prose may end inside it). */
const QUOTED = String.raw`"[^"\n]+(?:\n[^"\n]+)?"`;
/** What may come between a doc's name and its section, or between two: spaces, a comment's line start. */
const BETWEEN = String.raw`(?:\s|\*|\/\/|#)+`;
/**
 * A doc's name (or a link's text that is one: `[http.md](http.md), "Auth"`), then the sections of
 * it cited: `protocol.md, "A row"`, `design.md ("The layers")`, `http.md, "Auth" and "Routes"`,
 * `protocol.md, "reply", "ack" and "roost's choices"`, `protocol.md, "reply"; "ack"`.
 */
const SECTIONED = new RegExp(
  String.raw`(?<![\w.@-])((?:[\w-]+\/)*[\w-]+\.md)\s*[,:]?${BETWEEN}\(?(${QUOTED}(?:[,;]?${BETWEEN}(?:and${BETWEEN})?${QUOTED})*)`,
  "g",
);

/** A heading cited by its whole text, or by its start (`"Watching and typing"` for `Watching and typing: roost attach`). */
const isSection = (heading: string, cited: string) =>
  heading === cited || (heading.startsWith(cited) && /^[\s,:;(—-]/.test(heading.slice(cited.length)));

/** A folder and each one above it, to the root (`""`). */
function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; d !== "." && d !== ""; d = path.posix.dirname(d)) out.push(d);
  return [...out, ""];
}

/** Each place a file names one of `absent` (docs the repository does not have), in any text. */
export function citationsOf(root: string, file: string, absent: string[]): string[] {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  return absent.flatMap((name) =>
    [...text.matchAll(new RegExp(`\\b${name.replace(/[.-]/g, "\\$&")}\\b`, "g"))].map((m) =>
      at(file, text, m.index, `${name}: the repository has no such doc; cite docs/protocol.md's sections`),
    ),
  );
}
