/**
 * The docs say what the code does: every error code is in the docs and every client's list
 * (docs/protocol.md, "Error codes"), and every op is named in docs/protocol.md.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../sdk/ts/protocol/index.js";
import { OP_TABLE } from "../server/ops/index.js";
import { ROOT } from "./helpers/daemon.js";

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
const protocolDoc = read("docs/protocol.md");
const httpDoc = read("docs/http.md");
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

  it("the Python client has the same list, in the same order", () => {
    const out = execFileSync(
      "python3",
      [
        "-c",
        "import json, roost_agent; print(json.dumps([list(roost_agent.ERROR_CODES), roost_agent.DISCONNECTED]))",
      ],
      { cwd: path.join(ROOT, "sdk/python"), encoding: "utf8" },
    );
    const [codes, disconnected] = JSON.parse(out);
    expect(codes).toEqual(CODES);
    expect(CODES).not.toContain(disconnected); // the client's own, never the daemon's
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

describe("docs/protocol.md", () => {
  it("names every op of the op table", () => {
    for (const op of OP_TABLE.keys()) expect(protocolDoc, op).toContain(`\`${op}\``);
  });
});
