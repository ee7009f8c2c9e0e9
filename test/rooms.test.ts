/**
 * The core's rooms (docs/design.md, "The core's rooms"): each subsystem is a folder under
 * server/core, and a file in one room (or at the core's root) imports another room only through
 * that room's `index.ts`, its small interface; an index exports only its own room's files. A reach
 * into another room's inner file fails here, naming the file and what it imports. The files at
 * the core's root (core.ts, feed.ts, clock.ts …) are what every room stands on.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/daemon.js";

const CORE = "server/core";

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sources(rel));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

/** Every module a text imports (static, dynamic, type-only, re-exports), as TypeScript reads it. */
const importsIn = (text: string) => ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);

/** The room a core file is in: its folder under server/core, or "" at the core's root. */
function roomOf(file: string): string | null {
  if (!file.startsWith(`${CORE}/`)) return null;
  const rest = file.slice(CORE.length + 1).split("/");
  return rest.length === 1 ? "" : rest[0]!;
}

/** What is wrong with a core file's imports: each reach into another room past its index. */
function reachesIn(file: string, specs: string[]): string[] {
  const from = roomOf(file);
  const wrong: string[] = [];
  for (const spec of specs) {
    if (!spec.startsWith(".")) continue;
    const target = path.posix
      .normalize(path.posix.join(path.posix.dirname(file), spec))
      .replace(/\.js$/, ".ts");
    const to = roomOf(target);
    if (to === null || to === "" || to === from) continue; // outside the core, its root, or its own room
    const index = `${CORE}/${to}/index.ts`;
    if (path.posix.basename(file) === "index.ts" && from !== "")
      wrong.push(`${file}: a room's index exports its own room only, not ${target}`);
    else if (target !== index)
      wrong.push(`${file} imports ${target}: another room's files are reached through ${index}`);
  }
  return wrong;
}

const FILES = sources(CORE);

describe("the core's rooms (docs/design.md)", () => {
  it("are folders, each with its index", () => {
    const rooms = new Set(FILES.map(roomOf).filter((r) => r !== ""));
    expect(rooms.size).toBeGreaterThanOrEqual(7);
    for (const room of rooms)
      expect(fs.existsSync(path.join(ROOT, CORE, `${room}/index.ts`)), `${room}/ has no index.ts`).toBe(true);
  });

  it("reach one another through their index only", () => {
    const wrong = FILES.flatMap((file) =>
      reachesIn(file, importsIn(fs.readFileSync(path.join(ROOT, file), "utf8"))),
    );
    expect(wrong).toEqual([]);
  });

  it("find a reach into another room's inner file (the fixture's)", () => {
    const fixture = fs.readFileSync(path.join(ROOT, "test/fixtures/rooms/reach-in.ts.txt"), "utf8");
    expect(reachesIn(`${CORE}/board/reach-in.ts`, importsIn(fixture))).toEqual([
      `${CORE}/board/reach-in.ts imports ${CORE}/jobs/lifecycle.ts: another room's files are reached through ${CORE}/jobs/index.ts`,
      `${CORE}/board/reach-in.ts imports ${CORE}/peers/peer-items.ts: another room's files are reached through ${CORE}/peers/index.ts`,
    ]);
    // The same imports from the core's root, and an index that re-exports another room's file.
    expect(reachesIn(`${CORE}/feed.ts`, ["./jobs/lifecycle.js", "./jobs/index.js"])).toHaveLength(1);
    expect(reachesIn(`${CORE}/board/index.ts`, ["../jobs/lifecycle.js", "./board.js"])).toHaveLength(1);
  });
});
