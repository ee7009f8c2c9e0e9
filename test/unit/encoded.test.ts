/**
 * server/core/encoded.ts: an answer whose result holds parts encoded once (the board's tasks in
 * every `task` answer) is written as JSON.stringify writes it, to the character; and a part once
 * encoded cannot change under its text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encoded, encodeOnce } from "../../server/core/encoded.js";

const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<unknown>;
const part = fc.oneof(
  fc.array(fc.dictionary(fc.string(), json), { maxLength: 4 }),
  fc.dictionary(fc.string(), json),
);

describe("encoded", () => {
  it("an answer with parts encoded once is JSON.stringify's text, whatever the parts and the envelope", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.tuple(part, fc.boolean()), { maxKeys: 5 }),
        fc.option(fc.oneof(fc.integer(), fc.string()), { nil: undefined }),
        (fields, id) => {
          // Some values encoded once (an array's items too, as a board's tasks are), some not.
          const result: Record<string, unknown> = {};
          for (const [key, [value, once]] of Object.entries(fields)) {
            if (once && Array.isArray(value)) for (const item of value) encodeOnce(item);
            result[key] = once ? encodeOnce(value) : value;
          }
          const answer = id === undefined ? { ok: true, result } : { id, ok: true, result };
          expect(encoded(answer)).toBe(JSON.stringify(answer));
        },
      ),
    );
  });

  it("what JSON.stringify leaves out is left out: undefined values and functions in the result", () => {
    const tasks = encodeOnce([encodeOnce({ id: 1 })]);
    const answer = { id: 7, ok: true, result: { tasks, task: undefined, f: () => 1, n: null } };
    expect(encoded(answer)).toBe('{"id":7,"ok":true,"result":{"tasks":[{"id":1}],"n":null}}');
  });

  it("a part encoded once is frozen: changing it throws rather than leave its text stale", () => {
    const tasks = encodeOnce([{ id: 1 }]);
    expect(() => (tasks as { id: number }[]).push({ id: 2 })).toThrow(TypeError);
    expect(encoded({ ok: true, result: { tasks } })).toBe('{"ok":true,"result":{"tasks":[{"id":1}]}}');
  });

  it("an event, or a result that is no object, is JSON.stringify's text", () => {
    for (const message of [
      { event: "board", open: 1 },
      { id: 1, ok: true, result: [encodeOnce({ a: 1 })] },
      { id: 2, ok: true, result: null },
      { id: 3, ok: false, code: "busy", error: "x" },
    ])
      expect(encoded(message)).toBe(JSON.stringify(message));
  });
});
