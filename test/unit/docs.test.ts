/**
 * The docs say what the code does: every error code is in the docs and every client's list
 * (docs/protocol.md, "Error codes"), and every op is where docs/design.md, "Where an op lives",
 * says it is, with its section in docs/protocol.md and a test that sends it.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, OPS } from "../../sdk/ts/protocol/index.js";
import { OP_TABLE } from "../../server/ops/index.js";
import { ROOT } from "../helpers/daemon.js";

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
const protocolDoc = read("docs/protocol.md");
const httpDoc = read("docs/http.md");
const designDoc = read("docs/design.md");
const CODES = Object.keys(ERROR_CODES);

describe("error codes, one list", () => {
  it("docs/protocol.md lists every error code with its HTTP status, and no other", () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(protocolDoc, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    }
    const at = protocolDoc.indexOf("## Error codes");
    const section = protocolDoc.slice(at, protocolDoc.indexOf("\n## ", at));
    const listed = [...section.matchAll(/^\| `(\w+)` \| \d{3} \|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...CODES].sort());
  });

  it("docs/http.md gives every code its status", () => {
    const table = httpDoc.slice(httpDoc.indexOf("## Answers"), httpDoc.indexOf("## Routes"));
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(table, code).toMatch(
        new RegExp(`\`${code}\`(?:, \`\\w+\`)* \\| ${status} \\||\`\\w+\`, \`${code}\` \\| ${status} \\|`),
      );
    }
  });

  it("every code the daemon's sources give is in the list", () => {
    const given = new Set<string>();
    const dirs = ["server", "bridge"];
    const files = dirs.flatMap((d) =>
      fs.readdirSync(path.join(ROOT, d), { recursive: true, encoding: "utf8" }).map((f) => path.join(d, f)),
    );
    for (const file of files.filter((f) => f.endsWith(".ts"))) {
      const text = read(file);
      for (const m of text.matchAll(/RoostError\(\s*"(\w+)"|\bcode: "(\w+)"|sendError\(\w+, "(\w+)"/g))
        given.add(m[1] ?? m[2] ?? m[3]!);
    }
    expect(given.size).toBeGreaterThan(5);
    for (const code of given) expect(CODES, code).toContain(code);
  });
});

interface Row {
  schema: string[];
  handler: string[];
  logic: string[];
  tests: string[];
}

/**
 * docs/design.md's table of where each op lives: op → its cells, each cell's files. An op's second
 * row is refused: kept in a map, one would hide the other, and with it the files only it names.
 */
function designTable(doc: string): Map<string, Row> {
  const start = doc.indexOf("| op | schema | handler | logic | tests |");
  if (start < 0) throw new Error("design.md has no table of ops");
  const rows = new Map<string, Row>();
  for (const line of doc.slice(start).split("\n").slice(2)) {
    if (!line.startsWith("|")) break;
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => [...c.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    const [op, schema = [], handler = [], logic = [], tests = []] = cells;
    const name = op![0]!;
    if (rows.has(name)) throw new Error(`design.md's table of ops has two rows for \`${name}\`: merge them`);
    rows.set(name, { schema, handler, logic: logic.filter((f) => f.includes("/")), tests });
  }
  return rows;
}

/**
 * A test file's text, with that of the lists of cases it runs (a module of test/helpers/ named
 * `*-rules.ts`, `../helpers/board-rules.js`, whose cases run on more than one store): what those
 * send, it sends.
 */
function withCases(file: string): string {
  const text = read(file);
  const cases = [...text.matchAll(/from "((?:\.\.?\/)+(?:[\w-]+\/)*[\w-]+-rules)\.js"/g)].map((m) =>
    path.join(path.dirname(file), `${m[1]}.ts`),
  );
  return [text, ...cases.filter((f) => fs.existsSync(path.join(ROOT, f))).map(read)].join("\n");
}

/** A test sends an op by name: `c.ok("op", …)`, `api(d, "op", …)`, `{op: "op"}`, `/api/op`. */
const sends = (text: string, op: string) =>
  new RegExp(`(?:[(\\[]\\s*|op: ?|, ?)["']${op}["']|/api/${op}\\b`).test(text);

describe("where an op lives (docs/design.md)", () => {
  // Read in each test, so that a table it refuses fails them, not the file's collection.
  const table = () => designTable(designDoc);

  it("the table has one row an op, and refuses a second", () => {
    expect(table).not.toThrow();
    const row = (op: string) =>
      `| \`${op}\` | \`sdk/ts/protocol/ops/${op}.ts\` | \`server/ops/${op}.ts\` | none | |`;
    const doc = (...ops: string[]) =>
      ["| op | schema | handler | logic | tests |", "|---|---|---|---|---|", ...ops.map(row), ""].join("\n");
    expect([...designTable(doc("task", "pin")).keys()]).toEqual(["task", "pin"]);
    expect(() => designTable(doc("task", "pin", "task"))).toThrow("two rows for `task`");
  });

  it("every op of the schema set has its row, and every row is an op's", () => {
    expect([...table().keys()].sort()).toEqual(Object.keys(OPS).sort());
    expect([...OP_TABLE.keys()].sort()).toEqual(Object.keys(OPS).sort());
  });

  it("each row's files are where the rule says, and exist", () => {
    for (const [op, row] of table()) {
      expect(row.schema, op).toEqual([`sdk/ts/protocol/ops/${op}.ts`]);
      expect(row.handler, op).toEqual([`server/ops/${op}.ts`]);
      for (const file of [...row.schema, ...row.handler, ...row.logic, ...row.tests])
        expect(fs.existsSync(path.join(ROOT, file)), `${op}: ${file}`).toBe(true);
      // The handler is the table's, under the op's own name.
      expect(read(`server/ops/${op}.ts`), op).toContain(`name: "${op}"`);
      // A hyphenated name (`schedule-add`) is exported in camelCase (`scheduleAdd`).
      const exported = op.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
      expect(read(`sdk/ts/protocol/ops/${op}.ts`), op).toContain(`export const ${exported} =`);
    }
  });

  it("no file in server/ops or sdk/ts/protocol/ops is an op's without its row", () => {
    const plumbing = ["define.ts", "index.ts", "outcome.ts"];
    const handlers = fs.readdirSync(path.join(ROOT, "server/ops")).filter((f) => !plumbing.includes(f));
    const schemas = fs.readdirSync(path.join(ROOT, "sdk/ts/protocol/ops"));
    const rows = table();
    for (const file of [...handlers, ...schemas])
      expect(rows.has(file.replace(/\.ts$/, "")), file).toBe(true);
  });

  it("each op has its section in docs/protocol.md", () => {
    for (const op of Object.keys(OPS)) expect(protocolDoc, op).toMatch(new RegExp(`^### \`${op}\``, "m"));
  });

  it("each op has a test that sends it by name, among the tests its row names", () => {
    for (const [op, row] of table()) {
      expect(row.tests.length, op).toBeGreaterThan(0);
      for (const file of row.tests) {
        expect(file, op).toMatch(/^test\/.+\.test\.ts$/);
        expect(sends(withCases(file), op), `${file} sends ${op}`).toBe(true);
      }
    }
    // What counts as sending, and what does not (a row's field named as an op).
    expect(sends(`await c.ok("pending", { id })`, "pending")).toBe(true);
    expect(sends(`{ what: "x", op: "pending", args: {} }`, "pending")).toBe(true);
    expect(sends(`api(d, "pending", {})`, "pending")).toBe(true);
    expect(sends(`fetch(url + "/api/pending?id=j1")`, "pending")).toBe(true);
    expect(sends(`const fields = [\n  "lastSeq",\n  "pending",\n];`, "pending")).toBe(false);
  });
});
