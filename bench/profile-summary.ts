/**
 * `node dist/bench/profile-summary.js FILE.cpuprofile [TOP]`: where a `--cpu-prof` profile's time
 * went, for reading in a terminal: the busiest functions by self time, and by total time (the
 * function and what it called), as shares of the non-idle samples.
 */
import fs from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: node dist/bench/profile-summary.js FILE.cpuprofile [TOP]");
  process.exit(64);
}
const top = Number(topArg) || 25;
const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: ProfileNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : "";
  return `${functionName || "(anonymous)"}${where ? ` ${where}` : ""}`;
};

function shortUrl(url: string): string {
  const p = url.replace(/^file:\/\//, "");
  const i = p.indexOf("/dist/");
  if (i !== -1) return p.slice(i + 1);
  const m = p.indexOf("/node_modules/");
  return m !== -1 ? p.slice(m + 1) : path.basename(p);
}

const IDLE = new Set(["(idle)", "(program)"]);
const self = new Map<string, number>();
const total = new Map<string, number>();
let busy = 0;
let gc = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]!)!;
  const dt = profile.timeDeltas[i] ?? 0;
  const name = node.callFrame.functionName;
  if (IDLE.has(name)) continue;
  busy += dt;
  if (name === "(garbage collector)") gc += dt;
  const own = label(node);
  self.set(own, (self.get(own) ?? 0) + dt);
  const seen = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const l = label(byId.get(id)!);
    if (seen.has(l) || l.startsWith("(root)")) continue;
    seen.add(l);
    total.set(l, (total.get(l) ?? 0) + dt);
  }
}

const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
const list = (m: Map<string, number>) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([l, us]) => `  ${pct(us)}  ${l}`)
    .join("\n");

console.log(`${file}: ${(busy / 1e6).toFixed(2)} s busy, of which GC ${pct(gc).trim()}`);
console.log(`\nself time:\n${list(self)}`);
console.log(`\ntotal time (the function and what it called):\n${list(total)}`);
