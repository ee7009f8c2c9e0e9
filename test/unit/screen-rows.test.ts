/**
 * A terminal agent's row as its screen says it (server/core/terminals/screen-rows.ts): the rules alone, on
 * screens written out by hand. test/terminals/terminals.test.ts holds them in real terminals.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_PROMPTS } from "../../server/core/terminals/prompts.js";
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

describe("your turn: a prompt at the cursor (roost's default prompts)", () => {
  const prompts = compilePatterns([...DEFAULT_PROMPTS]);
  /** The status of a quiet screen whose cursor is at the end of its last line, `x` its column. */
  const status = (lines: string[], x = lines.at(-1)!.length, wrapped?: number[]) =>
    rowFromScreen(
      { lines, cursorY: lines.length - 1, cursorX: x, busy: false, wrapped },
      compilePatterns([]),
      prompts,
    ).status;

  it("is idle at a shell's, Python's, Node's and the agent CLIs' prompts", () => {
    // The host trims a row's trailing spaces: the cursor's column says where the prompt ends.
    for (const [line, x] of [
      ["user@host:~/src$", 17],
      ["root@host:/# ", 13],
      ["host%", 6],
      ["~/src>", 7],
      ["❯", 2],
      [">>>", 4],
      ["...", 4],
      [">", 2],
      ["│ >", 4],
      ["architect>", 11],
      ["›", 2],
      [":", 1],
      ["(END)", 5],
    ] as const)
      expect(status(["some output", line], x), line).toBe("idle");
  });

  it("is busy where no prompt is at the cursor: a program quiet at work, a line not yet a prompt", () => {
    expect(status([">>> time.sleep(500)", ""])).toBe("busy");
    expect(status(["$ sleep 100", ""])).toBe("busy");
    expect(status(["progress: 50%"])).toBe("busy"); // no space after it: output, not a prompt
    expect(status(["$ echo hi"], 2)).toBe("idle"); // the cursor after `$ `: typed text after it is not the prompt's
    expect(status(["$ echo hi"], 9)).toBe("busy");
  });

  it("reads a wrapped line's prompt whole, and is as before when the host says no column", () => {
    expect(status(["a very long prompt that wr", "aps$"], 5, [1])).toBe("idle");
    const noColumn = rowFromScreen({ lines: ["", ""], cursorY: 1, busy: false }, [], prompts);
    expect(noColumn.status).toBe("idle");
  });
});
