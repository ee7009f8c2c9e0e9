/**
 * The core's rooms (docs/design.md, "The core's rooms"): each subsystem is a folder under
 * server/core, and a file in one room (or at the core's root) imports another room only through
 * that room's `index.ts`, its small interface; an index exports only its own room's files. A reach
 * into another room's inner file fails here, naming the file and what it imports. The files at
 * the core's root (core.ts, feed.ts, clock.ts …) are what every room stands on. And the rooms use
 * one another one way: each only those design.md's table says it may use, at runtime (a type-only
 * import is no runtime edge), so that no cycle of rooms can form.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/daemon.js";

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

/** The rooms a text uses at runtime: its imports but those of types alone. */
function runtimeRooms(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const used: string[] = [];
  for (const s of sf.statements) {
    if (!(ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) || !s.moduleSpecifier) continue;
    if (ts.isImportDeclaration(s)) {
      const c = s.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : null;
      if (c?.isTypeOnly || (c && !c.name && named?.length && named.every((e) => e.isTypeOnly))) continue;
    } else if (s.isTypeOnly) continue;
    const spec = (s.moduleSpecifier as ts.StringLiteral).text;
    if (!spec.startsWith(".")) continue;
    const to = roomOf(
      path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, ".ts"),
    );
    if (to !== null && to !== roomOf(file)) used.push(to);
  }
  return used;
}

/** docs/design.md's table of the rooms: each room ("" the root) and the rooms it may use. */
function designRooms(): Map<string, Set<string>> {
  const doc = fs.readFileSync(path.join(ROOT, "docs/design.md"), "utf8");
  const section = doc.split("## The core's rooms")[1]!.split("\n## ")[0]!;
  const rooms = new Map<string, Set<string>>();
  const name = (cell: string) =>
    cell.trim() === "the root" || cell.trim() === "the core's root" ? "" : cell.trim();
  for (const line of section.split("\n")) {
    const cells = line.split("|").slice(1, -1);
    if (cells.length !== 3 || cells[0]!.trim() === "room" || cells[0]!.startsWith("---")) continue;
    const room = name(cells[0]!);
    if (rooms.has(room)) throw new Error(`docs/design.md names the room ${room || "the root"} twice`);
    rooms.set(room, new Set(cells[2]!.trim() === "none" ? [] : cells[2]!.split(",").map(name)));
  }
  return rooms;
}

/** What is wrong with a core file's runtime use of other rooms, by design.md's table. */
function usesWrongly(file: string, text: string, rooms: Map<string, Set<string>>): string[] {
  const from = roomOf(file)!;
  const may = rooms.get(from);
  if (!may) return [`${file}: its room ${from} is not in docs/design.md's table of the rooms`];
  return runtimeRooms(file, text)
    .filter((to) => !may.has(to))
    .map(
      (to) =>
        `${file} uses the room ${to || "the root"}, which docs/design.md does not let ${from || "the root"} use`,
    );
}

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

  it("use one another only as docs/design.md's table says (no cycle of rooms)", () => {
    const rooms = designRooms();
    expect(rooms.size).toBeGreaterThanOrEqual(8);
    const wrong = FILES.flatMap((file) =>
      usesWrongly(file, fs.readFileSync(path.join(ROOT, file), "utf8"), rooms),
    );
    expect(wrong).toEqual([]);
    // The table itself orders the rooms: no room may use one that may use it, however far round.
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
      for (const r of rooms.get(from) ?? []) {
        if (r === to) return true;
        if (seen.has(r)) continue;
        seen.add(r);
        if (reaches(r, to, seen)) return true;
      }
      return false;
    };
    for (const room of rooms.keys())
      expect(reaches(room, room), `${room || "the root"} uses itself round`).toBe(false);
  });

  it("find a room used at runtime that the table does not allow (the fixture's)", () => {
    const fixture = fs.readFileSync(path.join(ROOT, "test/fixtures/rooms/uses-upward.ts.txt"), "utf8");
    expect(usesWrongly(`${CORE}/jobs/uses-upward.ts`, fixture, designRooms())).toEqual([
      `${CORE}/jobs/uses-upward.ts uses the room peers, which docs/design.md does not let jobs use`,
    ]);
  });
});
