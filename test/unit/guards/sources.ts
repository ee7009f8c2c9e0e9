/**
 * The source files the guards read, each parsed once by the TypeScript compiler: its syntax alone,
 * no program and no type checker, which would take many times as long.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** Every .ts file under `dirs` of `root` (not declarations), as paths relative to `root`. */
export function sourceFiles(root: string, dirs: string[]): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return walk(rel);
      return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [rel] : [];
    });
  return dirs.filter((d) => fs.existsSync(path.join(root, d))).flatMap(walk);
}

const parsed = new Map<string, ts.SourceFile>();

/** A file's syntax tree (`file` relative to `root`). */
export function parse(root: string, file: string): ts.SourceFile {
  const at = path.join(root, file);
  let ast = parsed.get(at);
  if (!ast) {
    ast = ts.createSourceFile(file, fs.readFileSync(at, "utf8"), ts.ScriptTarget.Latest, true);
    parsed.set(at, ast);
  }
  return ast;
}

/** Where a node is, as `file:line` (1-based), for a failure to name. */
export function where(node: ts.Node): string {
  const ast = node.getSourceFile();
  return `${ast.fileName}:${ast.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
}

/** A relative import as the project's file it names (`./x.js` is `x.ts`), relative to the root. */
export function resolveImport(from: string, spec: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, ".ts");
}
