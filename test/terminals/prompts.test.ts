/**
 * A terminal agent is `your turn` only while its screen shows a prompt at the cursor
 * (docs/terminals.md, "The row, from the screen"; server/core/terminals/prompts.ts), not merely
 * because it printed nothing for a while: real programs in real terminals.
 */
import { describe, expect, it } from "vitest";
import { row, untilRow } from "../helpers/jobs.js";
import { sharedTerminals } from "../helpers/terminal-jobs.js";
import { quietSpellsPassed } from "../helpers/waits.js";

const t = sharedTerminals();

describe("your turn at a prompt only", () => {
  it("python3 -i in time.sleep(500) is working, quiet as it is; back at >>> it is your turn", async () => {
    const { c } = t;
    const py = await t.dispatch(c, "python", "import time; time.sleep(500)");
    const other = await t.dispatch(c, "bash");
    await untilRow(
      c,
      py.id,
      "the task typed",
      (r) => r.pending === 0 && /time\.sleep\(500\)/.test(r.summary ?? ""),
    );
    // Two quiet spells of another job have passed: python's own, begun before, has too, and been told.
    await quietSpellsPassed(c, other.id, 2);
    const sleeping = await row(c, py.id);
    expect(sleeping).toMatchObject({ view: "working", status: "busy" });
    // Interrupted, it is back at its prompt.
    await c.ok("input", { id: py.id, data: "\u0003" });
    const back = await untilRow(c, py.id, "your turn at >>>", (r) => r.view === "your turn");
    expect(back.summary).toBe("KeyboardInterrupt");
    expect(back.status).toBe("idle");
  });

  it("a shell at its prompt is your turn; a command quiet in it is not, until the prompt is back", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash");
    await untilRow(c, job.id, "your turn", (r) => r.view === "your turn");
    // `read` waits for a line without a prompt of the shell's: the cursor is on a fresh line.
    await c.ok("reply", { id: job.id, text: "echo reading; read line; echo got-$line" });
    await untilRow(c, job.id, "reading", (r) => r.summary === "reading" && r.pending === 0);
    const other = await t.dispatch(c, "bash");
    await quietSpellsPassed(c, other.id, 2);
    expect((await row(c, job.id)).view).toBe("working");
    await c.ok("input", { id: job.id, data: "it\r" });
    const r = await untilRow(
      c,
      job.id,
      "the prompt back",
      (x) => x.summary === "got-it" && x.view === "your turn",
    );
    expect(r.status).toBe("idle");
  });
});
