/**
 * The pi API the extension declares (sdk/ts/pi/pi-api.ts) is pi's: pi 0.74.2's own types fit it
 * (checked by tsc, which compiles the tests: a member renamed or retyped in pi fails here), and
 * docs/pi.md names the pi the tests run.
 */
import fs from "node:fs";
import path from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { PiAPI, PiContext } from "../../../sdk/ts/pi/pi-api.js";
import { ROOT } from "../../helpers/daemon.js";

/** Compiles only while pi's API is assignable to the extension's declaration of it. */
const fits = {
  api: (api: ExtensionAPI): PiAPI => api,
  context: (ctx: ExtensionContext): PiContext => ctx,
};

describe("pi's extension API", () => {
  it("is the pinned pi's, the one docs/pi.md says the tests run", () => {
    const pkg = JSON.parse(
      fs.readFileSync(path.join(ROOT, "node_modules/@earendil-works/pi-coding-agent/package.json"), "utf8"),
    );
    expect(pkg.version).toBe("0.74.2");
    expect(fs.readFileSync(path.join(ROOT, "docs/pi.md"), "utf8")).toContain(`pi ${pkg.version}`);
    expect(Object.keys(fits)).toEqual(["api", "context"]);
  });
});
