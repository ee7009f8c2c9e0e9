/** Every error code the daemon can give is documented (docs/protocol.md, "Error codes"). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../sdk/ts/protocol/index.js";
import { OP_TABLE } from "../server/ops/index.js";
import { ROOT } from "./helpers/daemon.js";

const protocolDoc = fs.readFileSync(path.join(ROOT, "docs/protocol.md"), "utf8");

describe("docs/protocol.md", () => {
  it("lists every error code with its HTTP status", () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(protocolDoc, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    }
  });

  it("names every op of the op table", () => {
    for (const op of OP_TABLE.keys()) expect(protocolDoc, op).toContain(`\`${op}\``);
  });
});
