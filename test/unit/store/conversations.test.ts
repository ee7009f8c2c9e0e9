/**
 * The jobs' conversations on disk (server/store/conversations.ts): bounded and rotated as the
 * terminal's transcript is, read whole across the two files, a torn line passed over, the entries
 * folded for reading (a tool call's later entries into its first), a diff's lines.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { foldEntries, lineDiff } from "../../../sdk/ts/protocol/index.js";
import { readConversation } from "../../../server/conversation-files.js";
import { Conversations } from "../../../server/store/conversations.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-conv-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const message = (text: string) => ({ kind: "message" as const, text });

describe("a conversation's files", () => {
  it("rotate past the bound: two files at most, the newest entries in conversation.jsonl, read whole", () => {
    const c = new Conversations(dir, 2000);
    for (let i = 1; i <= 60; i++)
      c.append("j1", [message(`entry ${i} ${"x".repeat(40)}`)], undefined, 1000 + i);
    const files = fs.readdirSync(path.join(dir, "j1")).sort();
    expect(files).toEqual(["conversation.1.jsonl", "conversation.jsonl"]);
    for (const f of files) expect(fs.statSync(path.join(dir, "j1", f)).size).toBeLessThanOrEqual(2000);
    const all = readConversation(path.join(dir, "j1"));
    // What the older file no longer holds is gone; the rest is in order, each once, the last the newest.
    expect(all.at(-1)?.n).toBe(60);
    expect(all.map((e) => e.n)).toEqual(all.map((_, i) => 60 - all.length + 1 + i));
    expect(all.length).toBeGreaterThan(20);
    // A new store (a restarted daemon) numbers on.
    expect(new Conversations(dir, 2000).append("j1", [message("on")], undefined, 0)).toEqual({
      first: 61,
      last: 61,
    });
  });

  it("pass over a torn last line (a crash mid-write), and number on after the last whole one", () => {
    const c = new Conversations(dir);
    c.append("j1", [message("a"), message("b")], "r1", 5);
    fs.appendFileSync(path.join(dir, "j1", "conversation.jsonl"), '{"kind":"message","n":3,"te');
    const again = new Conversations(dir);
    expect(again.read("j1", undefined, 10).entries.map((e) => e.text)).toEqual(["a", "b"]);
    expect(again.append("j1", [message("a"), message("b")], "r1", 6)).toEqual({
      first: 1,
      last: 2,
      duplicate: true,
    });
  });

  it("read from memory and from disk alike", () => {
    const c = new Conversations(dir);
    for (let i = 1; i <= 700; i++) c.append("j2", [message(`m${i}`)], undefined, i);
    expect(c.read("j2", 10, 3).entries.map((e) => e.text)).toEqual(["m11", "m12", "m13"]); // older than memory holds
    expect(c.read("j2", 690, 3).entries.map((e) => e.text)).toEqual(["m691", "m692", "m693"]);
    expect(c.read("j2", undefined, 2)).toMatchObject({ last: 700, more: false });
    expect(c.read("j2", undefined, 600).entries[0]?.text).toBe("m101");
  });
});

describe("reading a conversation", () => {
  it("folds a tool call's entries into its first: its status, output and title as they last were", () => {
    const at = 0;
    const folded = foldEntries([
      {
        n: 1,
        at,
        kind: "tool",
        text: "Run ls",
        tool: { id: "t", name: "execute", input: "ls", status: "pending" },
      },
      { n: 2, at, kind: "message", text: "meanwhile" },
      { n: 3, at, kind: "tool", tool: { id: "t", name: "execute", output: "a.txt", status: "completed" } },
    ]);
    expect(folded).toHaveLength(2);
    expect(folded[0]).toMatchObject({
      text: "Run ls",
      tool: { input: "ls", output: "a.txt", status: "completed" },
    });
  });

  it("shows a diff as lines kept, removed and added", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc\nd")).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "+", text: "B" },
      { op: " ", text: "c" },
      { op: "+", text: "d" },
    ]);
    expect(lineDiff("", "new")).toEqual([{ op: "+", text: "new" }]);
  });
});
