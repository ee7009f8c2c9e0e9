/**
 * The example agent's steps (example-agent.ts): a task's text read as shell steps, and which of
 * them destroy something, so that the agent asks before it runs them.
 */
import fs from "node:fs";
import path from "node:path";

/** The steps of a task: `;`-separated, `run:` in front left out, a few phrases made shell. */
export function plan(text: string): string[] {
  return text
    .replace(/^run:\s*/i, "")
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((step) => {
      const count = /^count lines in (.+)$/i.exec(step);
      if (count) return `wc -l -- ${quote(count[1]!.trim())}`;
      if (/^list files$/i.test(step)) return "ls -la";
      return step;
    });
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Whether a step destroys something: `rm `, `git reset`, or `>` (not `>>`) over a file that exists. */
export function destructive(step: string): boolean {
  if (/(^|[\s;&|(])rm\s/.test(step) || /\bgit\s+reset\b/.test(step)) return true;
  for (const m of step.matchAll(/(?:^|[^>&0-9])[0-9]?>(?![>&])\s*([^\s;&|<>]+)/g)) {
    const target = m[1]!.replace(/^['"]|['"]$/g, "");
    if (target !== "/dev/null" && fs.existsSync(path.resolve(process.cwd(), target))) return true;
  }
  return false;
}
