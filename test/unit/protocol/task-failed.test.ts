/**
 * A done task's failure, as every face reads it from its result (board-view.ts): a first word of
 * failure or a non-zero exit is `failed`; an exit 0, or a result that only mentions failing, is not.
 */
import { describe, expect, it } from "vitest";
import { failedResult, taskFailed, taskView } from "../../../sdk/ts/protocol/board-view.js";

const done = (result: string | null) => ({ id: 1, state: "done" as const, after: [], result });

describe("a task done with a failure", () => {
  it("is failed when its result says so: a first word of failure, or a non-zero exit", () => {
    for (const r of [
      "failed: the host refused",
      "Error: ENOSPC",
      "FAILURE",
      "npm test: exit code 1 (3 failing)",
      "exited with 2",
      "exit status: 127",
      "build ok; tests exit 1",
    ])
      expect(taskFailed(done(r)), r).toBe(true);
    for (const r of [
      null,
      "",
      "exit 0, no warnings",
      "exit code 0",
      "fixed the failed test",
      "3 errors fixed",
    ])
      expect(taskFailed(done(r)), String(r)).toBe(false);
    // Only a done task: an open or claimed one's result is not its outcome yet.
    expect(taskFailed({ state: "claimed", result: "exit 1" })).toBe(false);
    expect(taskView(done("exit 1"), [])).toBe("failed");
    expect(taskView(done("exit 0"), [])).toBe("done");
  });

  it("done with failed: true keeps its result saying so, within the result's limit", () => {
    expect(failedResult(null, 2000)).toBe("failed");
    expect(failedResult("the host refused", 2000)).toBe("failed: the host refused");
    expect(failedResult("Error: ENOSPC", 2000)).toBe("Error: ENOSPC");
    expect(failedResult("x".repeat(2000), 2000)).toHaveLength(2000);
    expect(taskFailed(done(failedResult("x".repeat(2000), 2000)))).toBe(true);
  });
});
