/**
 * Import cycles: a module that, through its imports, loads itself. In a cycle one of its modules
 * runs before what it imports has run, so a name it uses at its top may not be there yet; and the
 * modules of a cycle can be read, tested and moved only together.
 */
import { resolveImport } from "./sources.js";

/** The project's files each file loads when it runs (`imports`: the specifiers it names). */
export function importGraph(files: string[], imports: (file: string) => string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => [
      file,
      imports(file)
        .filter((spec) => spec.startsWith("."))
        .map((spec) => resolveImport(file, spec))
        .filter((target) => known.has(target)),
    ]),
  );
}

/**
 * Every import that lies on a cycle, as the cycle it closes: `a → b → … → a`, the shortest way
 * back from b to a. An edge lies on a cycle when its two ends can each reach the other.
 */
export function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph)
    for (const to of new Set(targets)) {
      const back = shortestPath(graph, to, from);
      if (back) found.push([from, ...back].join(" → "));
    }
  return found;
}

function shortestPath(graph: Map<string, string[]>, from: string, to: string): string[] | undefined {
  const came = new Map<string, string>([[from, from]]);
  const queue = [from];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    if (at === to) {
      const way = [to];
      while (way[0] !== from) way.unshift(came.get(way[0]!)!);
      return way;
    }
    for (const next of graph.get(at) ?? [])
      if (!came.has(next)) {
        came.set(next, at);
        queue.push(next);
      }
  }
  return undefined;
}
