/**
 * A job's terminal output read as plain text (`roost log --plain`): escape sequences gone,
 * overwritten text as a terminal would show it in the end.
 *
 * Lines are followed, not a screen: the transcript does not say what size the job's terminal
 * was (nor when it was resized), and a screen of the wrong size garbles what was drawn at
 * positions. So no size is assumed, and no text drawn is lost: a full-screen program's drawing
 * reads as the lines it drew.
 */

const ESC = "\u001b";
const TAB = 8;
/** The widest line a terminal has (the pty host's limit): a cursor moved further stops there. */
const MAX_COL = 10_000;

const clampCol = (n: number) => Math.min(MAX_COL, Math.max(1, n));

/** The line being written, as cells with a cursor in it, and the lines done before it. */
class LineCursor {
  private readonly lines: string[] = [];
  private cells: string[] = [];
  col = 0;

  /** Ends this line (as a line feed does) and starts the next, at its first column. */
  newLine(): void {
    this.lines.push(this.cells.join("").trimEnd());
    this.cells = [];
    this.col = 0;
  }

  /** A move off this line: a new line (unless nothing was written on this one), at column `to`. */
  moveOff(to: number): void {
    if (this.blank()) this.cells = [];
    else this.newLine();
    this.col = to;
  }

  put(ch: string): void {
    if (this.col >= MAX_COL) this.newLine(); // as a terminal wraps
    while (this.cells.length < this.col) this.cells.push(" ");
    this.cells[this.col++] = ch;
  }

  moveTo(col: number): void {
    this.col = Math.max(0, Math.min(MAX_COL, col));
  }

  tab(): void {
    this.col = Math.min(MAX_COL, (Math.floor(this.col / TAB) + 1) * TAB);
  }

  /** Erase in line: 0 from the cursor to the end, 1 from the start to the cursor, 2 all of it. */
  eraseInLine(how: number): void {
    if (how === 0) this.cells.length = Math.min(this.cells.length, this.col);
    else if (how === 1) this.blankOut(0, this.col + 1);
    else this.cells = [];
  }

  /** Blanks `n` cells from the cursor, the rest staying where they are. */
  eraseChars(n: number): void {
    this.blankOut(this.col, this.col + n);
  }

  /** Deletes `n` cells at the cursor, the rest moving left. */
  deleteChars(n: number): void {
    this.cells.splice(this.col, n);
  }

  /** Inserts `n` blanks at the cursor, the rest moving right. */
  insertBlanks(n: number): void {
    if (this.col < this.cells.length) this.cells.splice(this.col, 0, ...Array<string>(n).fill(" "));
  }

  /** The lines, each without trailing spaces; a newline after each, so "" when there are none. */
  text(): string {
    if (!this.blank()) this.newLine();
    return this.lines.length ? `${this.lines.join("\n")}\n` : "";
  }

  private blank(): boolean {
    return this.cells.every((c) => c === " ");
  }

  private blankOut(from: number, to: number): void {
    for (let i = from; i < to && i < this.cells.length; i++) this.cells[i] = " ";
  }
}

/** What a CSI does to the line, by its final byte; `n` is its first parameter, at least 1. */
type CsiAction = (line: LineCursor, n: number, nums: number[]) => void;
const moveOffHere: CsiAction = (line) => line.moveOff(line.col);
const CSI_ACTIONS: Record<string, CsiAction> = {
  K: (line, _, nums) => line.eraseInLine(nums[0] || 0),
  C: (line, n) => line.moveTo(line.col + n),
  a: (line, n) => line.moveTo(line.col + n),
  D: (line, n) => line.moveTo(line.col - n),
  G: (line, n) => line.moveTo(n - 1),
  "`": (line, n) => line.moveTo(n - 1),
  P: (line, n) => line.deleteChars(n),
  "@": (line, n) => line.insertBlanks(n),
  X: (line, n) => line.eraseChars(n),
  // A move to another line starts a new one: cursor positions, next and previous line...
  H: (line, _, nums) => line.moveOff(clampCol(nums[1] || 1) - 1),
  f: (line, _, nums) => line.moveOff(clampCol(nums[1] || 1) - 1),
  E: (line) => line.moveOff(0),
  F: (line) => line.moveOff(0),
  // ...cursor up and down, line position, clears, scrolls, lines inserted or deleted.
  A: moveOffHere,
  B: moveOffHere,
  d: moveOffHere,
  J: moveOffHere,
  S: moveOffHere,
  T: moveOffHere,
  L: moveOffHere,
  M: moveOffHere,
};

function csi(line: LineCursor, params: string, final: string): void {
  if (/^[<=>?]/.test(params)) return; // private modes: nothing drawn
  const nums = params.split(";").map((p) => Number.parseInt(p, 10));
  CSI_ACTIONS[final]?.(line, clampCol(nums[0] || 1), nums); // colours and the rest: nothing drawn
}

const isIntermediate = (code: number) => code >= 0x20 && code <= 0x2f;

/** Reads a CSI's parameters and final byte from `from`, and acts on it; returns where it ends. */
function readCsi(text: string, from: number, line: LineCursor): number {
  let j = from;
  while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
  const params = text.slice(from, j);
  while (j < text.length && isIntermediate(text.charCodeAt(j))) j++;
  if (j >= text.length) return text.length;
  const code = text.charCodeAt(j);
  if (code >= 0x40 && code <= 0x7e) csi(line, params, text[j]!);
  return j + 1; // anything else ends it, unread: a broken sequence draws nothing either
}

/** Skips a control string (OSC, DCS, SOS, PM, APC) from `from`: to ST, or BEL for an OSC. */
function skipString(text: string, from: number, bel: boolean): number {
  for (let j = from; j < text.length; j++) {
    const c = text[j];
    if (c === "\u0007" && bel) return j + 1;
    if (c === "\u009c") return j + 1;
    if (c === ESC && text[j + 1] === "\\") return j + 2;
    if (c === "\u0018" || c === "\u001a") return j + 1; // CAN, SUB: abandoned
  }
  return text.length;
}

/** Reads the escape sequence at `i` (an ESC), and acts on it; returns where it ends. */
function readEscape(text: string, i: number, line: LineCursor): number {
  const next = text[i + 1];
  if (next === undefined) return text.length;
  if (next === "[") return readCsi(text, i + 2, line);
  if (next === "]") return skipString(text, i + 2, true);
  if (next === "P" || next === "X" || next === "^" || next === "_") return skipString(text, i + 2, false);
  if (isIntermediate(next.charCodeAt(0))) {
    // ESC ( B and the like: intermediates, then one final byte
    let j = i + 1;
    while (j < text.length && isIntermediate(text.charCodeAt(j))) j++;
    return Math.min(text.length, j + 1);
  }
  if (next === "E" || next === "D")
    line.newLine(); // next line, index
  else if (next === "M")
    line.moveOff(line.col); // reverse index
  else if (next === "c") line.moveOff(0); // reset
  return i + 2;
}

/** Reads the character at `i`, or the C1 control string or CSI it starts; returns where it ends. */
function readCharacter(text: string, i: number, line: LineCursor): number {
  const c = text[i]!;
  const code = c.charCodeAt(0);
  if (code === 0x9b) return readCsi(text, i + 1, line);
  if (code === 0x9d) return skipString(text, i + 1, true);
  if (code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f) return skipString(text, i + 1, false);
  if (c === "\n" || c === "\u000b" || c === "\u000c") line.newLine();
  else if (c === "\r") line.moveTo(0);
  else if (c === "\b") line.moveTo(line.col - 1);
  else if (c === "\t") line.tab();
  else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
    // other control characters draw nothing
  } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
    line.put(c + text[i + 1]); // a surrogate pair is one character
    return i + 2;
  } else line.put(c);
  return i + 1;
}

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
  const line = new LineCursor();
  for (let i = 0; i < text.length; ) {
    i = text[i] === ESC ? readEscape(text, i, line) : readCharacter(text, i, line);
  }
  return line.text();
}
