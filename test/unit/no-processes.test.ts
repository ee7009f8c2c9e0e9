/**
 * The unit tier's guard (test/helpers/no-processes.ts): in a unit test every way of starting a
 * process throws, naming the tier. Files of the other tiers run in the same workers after these,
 * with node's own functions back (the whole suite is their test).
 */
import childProcess, { execFileSync, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("a unit test", () => {
  it("cannot start a process, however it asks, and is told which tier it belongs in", () => {
    expect(() => spawn("true")).toThrow(
      "a unit test starts no process (child_process.spawn was called): this test belongs in another tier",
    );
    expect(() => execFileSync("true")).toThrow("child_process.execFileSync was called");
    expect(() => childProcess.exec("true")).toThrow("child_process.exec was called");
    expect(() => childProcess.fork("x.js")).toThrow("child_process.fork was called");
  });
});
