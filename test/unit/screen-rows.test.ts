/**
 * A terminal agent's row as its screen says it (server/core/terminals/screen-rows.ts): the rules alone, on
 * screens written out by hand. test/terminals/terminals.test.ts holds them in real terminals.
 */
import { describe, expect, it } from "vitest";
import { compilePatterns, rowFromScreen } from "../../server/core/terminals/screen-rows.js";

/** A screen whose cursor is on the last of `lines`. */
const screen = (lines: string[], extra: { busy?: boolean; wrapped?: number[] } = {}) => ({
  lines,
  cursorY: lines.length - 1,
  busy: extra.busy ?? false,
  wrapped: extra.wrapped,
});
const row = (lines: string[], patterns: string[] = [], extra = {}) =>
  rowFromScreen(screen(lines, extra), compilePatterns(patterns));
const asked = (r: { state: string; question: string | null }) => (r.state === "blocked" ? r.question : null);

describe("the summary", () => {
  it("is the last meaningful line, past the prompt waiting on the cursor's line", () => {
    expect(row(["roost$ echo hi", "hi", "roost$ "])).toMatchObject({ summary: "hi", state: "working" });
    expect(row(["roost$ echo hi", "hi", "roost$ "], [], { busy: true }).status).toBe("busy");
    expect(row(["roost$ echo hi", "hi", "roost$ "]).status).toBe("idle");
  });

  it("is a wrapped line whole, whatever the terminal's width", () => {
    const wide = row(["a line that the terminal wrapped", "$ "]);
    const narrow = row(["a line that ", "the terminal", " wrapped", "$ "], [], { wrapped: [1, 2] });
    expect(narrow.summary).toBe("a line that the terminal wrapped");
    expect(narrow).toEqual(wide);
  });
});

describe("a (y/n) question", () => {
  it("is asked while the cursor waits after it, on its line or on a fresh empty one below", () => {
    for (const lines of [
      ["about to change things", "Continue? (y/n)"],
      ["Overwrite file? [Y/n]"],
      ["Proceed (yes/no)?"],
      ["Delete it? [y/N]:"],
      ["Continue? (y/n)", ""],
      ["Continue? (y/n) >"],
    ]) {
      const r = row(lines);
      expect(asked(r), lines.join(" / ")).toBe(lines.find((l) => /\//.test(l)));
      expect(r).toMatchObject({ status: "waiting", waitingFor: "question", choices: ["y", "n"] });
    }
  });

  it("is over once an answer is typed after it on its line", () => {
    expect(asked(row(["Continue? (y/n) y"]))).toBeNull();
    expect(asked(row(["Continue? (y/n) y", ""]))).toBeNull();
    expect(asked(row(["Overwrite file? [Y/n] n", ""]))).toBeNull();
    expect(asked(row(["Delete it? [y/N]: yes"]))).toBeNull();
    const r = row(["Continue? (y/n) y", "roost$ "]);
    expect(r).toMatchObject({
      state: "working",
      question: null,
      choices: null,
      summary: "Continue? (y/n) y",
    });
  });

  it("is over once a prompt waits below it, even a bare one (answered by Enter alone)", () => {
    for (const prompt of ["roost$ ", "$ ", ">>> ", "> ", "% ", "~/src ❯ "]) {
      expect(asked(row(["Overwrite file? [Y/n]", prompt])), prompt).toBeNull();
    }
  });

  it("is over once a meaningful line comes after it", () => {
    expect(asked(row(["Continue? (y/n)", "going on: step two", ""]))).toBeNull();
    expect(row(["Continue? (y/n)", "going on: step two", ""]).summary).toBe("going on: step two");
  });
});

describe("a profile's own question", () => {
  const patterns = ["Do you want to", "❯ 1\\. Yes"];
  const menu = ["Do you want to make this edit?", "❯ 1. Yes", "  2. No"];

  it("is asked a few lines up, above a menu of answers", () => {
    const r = row(menu, patterns);
    expect(asked(r)).toBe("❯ 1. Yes");
    expect(r.choices).toBeNull();
    expect(asked(row(["Apply these 3 edits? Press enter to accept"], ["Press enter to accept"]))).toBe(
      "Apply these 3 edits? Press enter to accept",
    );
  });

  it("is over once a prompt waits below it", () => {
    expect(asked(row([...menu, "> "], patterns))).toBeNull();
    expect(asked(row([...menu, "roost$ "], patterns))).toBeNull();
  });

  it("is over once more than a few meaningful lines came after it", () => {
    expect(asked(row(["Apply? Press enter to accept", "one", "two", "three"], ["Press enter"]))).toBeNull();
  });
});
