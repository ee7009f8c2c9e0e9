/**
 * What a board step writes (server/core/board/board-counts.ts `changedBetween`): the tasks not
 * identical to the board's before, and the ids gone, whether the step changed tasks in place (the
 * quick path) or added and let go of some.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BoardTask } from "../../sdk/ts/protocol/index.js";
import type { Board } from "../../server/core/board/board.js";
import { changedBetween } from "../../server/core/board/board-counts.js";

const task = (id: number, title = `task ${id}`) => ({ id, title }) as BoardTask;
const board = (tasks: BoardTask[]): Board => ({ tasks, nextId: 1000, handovers: new Map() });

describe("changedBetween", () => {
  it("the tasks not identical to before, and the ids gone, however the board changed", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 300 }), { maxLength: 30 }),
        fc.array(fc.oneof(fc.constant("keep"), fc.constant("change"), fc.constant("drop"))),
        fc.array(fc.integer({ min: 301, max: 400 }), { maxLength: 3 }),
        (ids, fates, added) => {
          const before = ids.sort((a, b) => a - b).map((id) => task(id));
          const after: BoardTask[] = [];
          for (const [i, t] of before.entries()) {
            const fate = fates[i] ?? "keep";
            if (fate === "keep") after.push(t);
            if (fate === "change") after.push(task(t.id, "changed"));
          }
          for (const id of new Set(added)) after.push(task(id));
          const got = changedBetween(board(before), board(after));
          expect(got.saved).toEqual(after.filter((t) => !before.includes(t)));
          expect(got.removed).toEqual(
            before.filter((t) => !after.some((a) => a.id === t.id)).map((t) => t.id),
          );
        },
      ),
    );
  });
});
