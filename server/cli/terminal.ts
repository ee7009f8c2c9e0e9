/**
 * What a job's terminal output means to the user's terminal: the modes a job may leave on, put
 * back after `roost attach` and `roost log`. (The output read as plain text is plain-text.ts.)
 */

const ESC = "\u001b";

/** Clears the user's screen and homes the cursor, colours off: before a job's screen is drawn. */
export const CLEAR_SCREEN = `${ESC}[0m${ESC}[H${ESC}[2J`;

/**
 * The terminal modes a job's output may turn on, turned off again: colours, a hidden cursor,
 * application cursor keys and keypad, mouse reports, bracketed paste, focus reports, the kitty
 * keyboard protocol and xterm's modifyOtherKeys, a scroll region (the cursor kept where it is).
 * And the alternate screen, left only when the job's output entered it (leaving it otherwise
 * moves the cursor on some terminals).
 */
export function terminalReset(altScreen: boolean): string {
  const mouse = [1000, 1002, 1003, 1005, 1006, 1015].map((m) => `${ESC}[?${m}l`).join("");
  return (
    `${ESC}[0m${ESC}[?25h${ESC}[?1l${ESC}>${mouse}${ESC}[?2004l${ESC}[?1004l` +
    `${ESC}[<100u${ESC}[>4m${ESC}7${ESC}[r${ESC}8` +
    (altScreen ? `${ESC}[?1049l` : "")
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it looks for
const ALT_SCREEN = /\u001b\[\?(?:1049|1047|47)([hl])/g;

/** Whether the terminal is on its alternate screen after `data`, given whether it was before. */
export function altScreenAfter(data: string, before: boolean): boolean {
  let on = before;
  for (const m of data.matchAll(ALT_SCREEN)) on = m[1] === "h";
  return on;
}
