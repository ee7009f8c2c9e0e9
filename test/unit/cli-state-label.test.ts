/** The CLI's state word (server/cli/format.ts): the exit code of a failed job, and why roost stopped one. */
import { describe, expect, it } from "vitest";
import type { Row } from "../../sdk/ts/protocol/index.js";
import { stateLabel } from "../../server/cli/format.js";

const row = (fields: Partial<Row>): Row =>
  ({ life: "running", view: "working", exitCode: null, stopReason: null, ...fields }) as Row;

describe("roost ls's state word", () => {
  it("says the view, a failed job's exit code, and why roost stopped a job", () => {
    expect(stateLabel(row({}))).toBe("working");
    expect(stateLabel(row({ life: "exited", view: "failed", exitCode: 7 }))).toBe("failed (exit 7)");
    expect(stateLabel(row({ life: "stopped", view: "stopped" }))).toBe("stopped");
    expect(stateLabel(row({ life: "stopped", view: "stopped", stopReason: "idle" }))).toBe("asleep");
    expect(stateLabel(row({ life: "stopped", view: "stopped", stopReason: "budget" }))).toBe(
      "stopped (budget)",
    );
  });
});
