/** The one JSON-lines splitter every connection uses (sdk/ts/protocol/lines.ts). */
import { describe, expect, it } from "vitest";
import { LineSplitter } from "../../../sdk/ts/protocol/lines.js";

const all = (s: LineSplitter) => {
  const out: string[] = [];
  for (let line = s.next(); line !== undefined; line = s.next()) out.push(line);
  return out;
};

describe("LineSplitter", () => {
  it("splits at \\n only: U+2028, U+2029 and \\r stay inside their line", () => {
    const s = new LineSplitter();
    expect(s.push(Buffer.from('{"a":"x\u2028y\u2029z\r"}\n{"b":1}\n'))).toBe(true);
    expect(all(s)).toEqual(['{"a":"x\u2028y\u2029z\r"}', '{"b":1}']);
  });

  it("decodes a line once whole: a character split across chunks is kept", () => {
    const s = new LineSplitter();
    const bytes = Buffer.from("é€😀\n");
    for (const byte of bytes) s.push(Buffer.from([byte]));
    expect(all(s)).toEqual(["é€😀"]);
  });

  it("holds an unfinished line until its \\n, and counts the complete lines waiting", () => {
    const s = new LineSplitter();
    s.push(Buffer.from("one\ntw"));
    expect(s.waiting).toBe(1);
    expect(s.next()).toBe("one");
    expect(s.next()).toBeUndefined();
    s.push(Buffer.from("o\n"));
    expect(all(s)).toEqual(["two"]);
  });

  it("refuses a line over its bound, in one chunk or many, drops it to its end and reads on", () => {
    const s = new LineSplitter(8);
    expect(s.push(Buffer.from("12345678\n123456789\nok\n"))).toBe(false);
    expect(all(s)).toEqual(["12345678", "ok"]);
    expect(s.push(Buffer.from("12345"))).toBe(true);
    expect(s.push(Buffer.from("6789"))).toBe(false);
    expect(s.push(Buffer.from("more of it"))).toBe(true);
    expect(s.push(Buffer.from(" still\nnext\n"))).toBe(true);
    expect(all(s)).toEqual(["next"]);
  });
});
