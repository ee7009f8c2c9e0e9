/**
 * What a job's terminal output means to the user's terminal: the modes a job may leave on (put
 * back after `roost attach` and `roost log`), and the output read as plain text (`roost log
 * --plain`): escape sequences gone, overwritten text as a terminal would show it in the end.
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

const TAB = 8;
/** The widest line a terminal has (the pty host's limit): a cursor moved further stops there. */
const MAX_COL = 10_000;

/**
 * A terminal's output as lines of text. Escape sequences (CSI, OSC, DCS and the other strings,
 * charset selections, the rest of ESC x) and control characters are removed. Within a line the
 * cursor is followed: `\r` goes back to its start and `\b` one back, so what is written over
 * replaces what was there (a progress line reads as it ended); erase-in-line, cursor left/right
 * and column, delete, insert and erase characters act too. A move to another line (cursor up or
 * down, a position, a clear) starts a new line, so a full-screen program's drawing reads as the
 * lines it drew. Trailing spaces are dropped; the text ends with a newline unless empty.
 */
export function plainText(text: string): string {
  const lines: string[] = [];
  let cells: string[] = [];
  let col = 0;
  const newLine = () => {
    lines.push(cells.join("").trimEnd());
    cells = [];
    col = 0;
  };
  // A move off this line: a new line (unless nothing was written on this one), at column `to`.
  const moveOff = (to: number) => {
    if (cells.some((c) => c !== " ")) newLine();
    else cells = [];
    col = to;
  };
  const blanksTo = (n: number) => {
    while (cells.length < n) cells.push(" ");
  };
  const put = (ch: string) => {
    if (col >= MAX_COL) newLine(); // as a terminal wraps
    blanksTo(col);
    cells[col++] = ch;
  };
  const csi = (params: string, final: string) => {
    if (/^[<=>?]/.test(params)) return; // private modes: nothing drawn
    const nums = params.split(";").map((p) => Number.parseInt(p, 10));
    const n = Math.min(MAX_COL, Math.max(1, nums[0] || 1));
    switch (final) {
      case "K": {
        const how = nums[0] || 0;
        if (how === 0) cells.length = Math.min(cells.length, col);
        else if (how === 1) for (let i = 0; i <= col && i < cells.length; i++) cells[i] = " ";
        else cells = [];
        return;
      }
      case "C":
      case "a":
        col = Math.min(MAX_COL, col + n);
        return;
      case "D":
        col = Math.max(0, col - n);
        return;
      case "G":
      case "`":
        col = n - 1;
        return;
      case "P":
        cells.splice(col, n);
        return;
      case "@":
        if (col < cells.length) cells.splice(col, 0, ...Array<string>(n).fill(" "));
        return;
      case "X":
        for (let i = col; i < col + n && i < cells.length; i++) cells[i] = " ";
        return;
      case "H":
      case "f":
        moveOff(Math.min(MAX_COL, Math.max(1, nums[1] || 1)) - 1);
        return;
      case "E":
      case "F":
        moveOff(0);
        return;
      case "A":
      case "B":
      case "d":
      case "J":
      case "S":
      case "T":
      case "L":
      case "M":
        moveOff(col);
        return;
      default:
        return; // colours and the rest: nothing drawn
    }
  };

  let i = 0;
  const end = text.length;
  /** Skips a control string (OSC, DCS, SOS, PM, APC) from `from`: to ST, or BEL for an OSC. */
  const skipString = (from: number, bel: boolean): number => {
    for (let j = from; j < end; j++) {
      const c = text[j];
      if (c === "\u0007" && bel) return j + 1;
      if (c === "\u009c") return j + 1;
      if (c === ESC && text[j + 1] === "\\") return j + 2;
      if (c === "\u0018" || c === "\u001a") return j + 1; // CAN, SUB: abandoned
    }
    return end;
  };
  /** Reads a CSI's parameters and final byte from `from`; returns where it ends. */
  const readCsi = (from: number): number => {
    let j = from;
    while (j < end && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
    const params = text.slice(from, j);
    while (j < end && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
    if (j >= end) return end;
    const code = text.charCodeAt(j);
    if (code >= 0x40 && code <= 0x7e) csi(params, text[j]!);
    return j + 1; // anything else ends it, unread: a broken sequence draws nothing either
  };

  while (i < end) {
    const c = text[i]!;
    const code = c.charCodeAt(0);
    if (c === ESC) {
      const next = text[i + 1];
      if (next === undefined) break;
      const n = next.charCodeAt(0);
      if (next === "[") i = readCsi(i + 2);
      else if (next === "]") i = skipString(i + 2, true);
      else if (next === "P" || next === "X" || next === "^" || next === "_") i = skipString(i + 2, false);
      else if (n >= 0x20 && n <= 0x2f) {
        // ESC ( B and the like: intermediates, then one final byte
        let j = i + 1;
        while (j < end && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
        i = Math.min(end, j + 1);
      } else {
        if (next === "E" || next === "D") newLine();
        else if (next === "M") moveOff(col);
        else if (next === "c") moveOff(0);
        i += 2;
      }
      continue;
    }
    if (code === 0x9b) {
      i = readCsi(i + 1);
      continue;
    }
    if (code === 0x9d) {
      i = skipString(i + 1, true);
      continue;
    }
    if (code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f) {
      i = skipString(i + 1, false);
      continue;
    }
    i++;
    if (c === "\n" || c === "\u000b" || c === "\u000c") newLine();
    else if (c === "\r") col = 0;
    else if (c === "\b") col = Math.max(0, col - 1);
    else if (c === "\t") col = Math.min(MAX_COL, (Math.floor(col / TAB) + 1) * TAB);
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
      // other control characters draw nothing
    } else if (code >= 0xd800 && code <= 0xdbff && i < end) {
      put(c + text[i]); // a surrogate pair is one character
      i++;
    } else put(c);
  }
  if (cells.some((c) => c !== " ")) newLine();
  return lines.length ? `${lines.join("\n")}\n` : "";
}
