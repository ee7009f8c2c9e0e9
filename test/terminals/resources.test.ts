/**
 * A job's row says what its processes use (docs/budgets.md, "Resources"): the pty host's pass over
 * /proc finds the job's children (a memory hog and two CPU burners, in process groups of their own, as
 * a shell puts its commands) and the row shows them within seconds; null once the job has ended.
 * Real processes in a real terminal under a real daemon; the pass every second (ROOST_RESOURCES_MS).
 */
import fs from "node:fs";
import { spawn as ptySpawn } from "@lydell/node-pty";
import { afterEach, describe, expect, it } from "vitest";
import { ok, roost } from "../helpers/cli.js";
import { CLI, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { rmTemp, tempDir, untilRow } from "../helpers/jobs.js";

const NODE = process.execPath;
// ~200 MB, every page written (filled with 1s), then kept; and a loop that burns one core.
const HOG = `${NODE} -e 'const b = Buffer.alloc(200 << 20, 1); setInterval(() => b[0]++, 1000)'`;
const BURN = `${NODE} -e 'for (;;) {}'`;
// bash -m: job control, so each child is in a process group of its own (same session). Two
// burners: on a loaded machine one alone was seen given under half a core.
const SCRIPT = `set -m; ${HOG} & ${BURN} & ${BURN} & wait`;

let d: TestDaemon | undefined;
const temps: string[] = [];
/** The jobs' session ids: whatever is still in one after a test is killed, by pid. */
const sessions: number[] = [];
afterEach(async () => {
  for (const sid of sessions.splice(0)) killSession(sid);
  await d?.cleanup();
  d = undefined;
  for (const t of temps.splice(0)) rmTemp(t);
});

describe("a job's resources", () => {
  it("shows its children's memory and CPU within seconds, and null once it ended", async () => {
    d = await startDaemon({
      config: { agentProfiles: { hog: { command: ["/bin/bash", "-c", SCRIPT], task: "argv" } } },
      env: { SHELL: "/bin/bash", ROOST_RESOURCES_MS: "1000" },
    });
    const c = await d.client();
    const sub = await d.client();
    await sub.ok("subscribe", {});
    const dir = tempDir();
    temps.push(dir);
    const { job } = await c.ok("dispatch", { profile: "hog", cwd: dir });
    sessions.push((await untilRow(c, job.id, "a pid", (r) => r.pid)).pid);
    const started = Date.now();
    const row = await untilRow(
      c,
      job.id,
      "its resources show the hog and the burner",
      (r) => r.resources && r.resources.procs >= 4 && r.resources.rss >= 150e6 && r.resources.cpu > 50,
      15_000,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    const res = row.resources;
    expect(res.procs).toBeGreaterThanOrEqual(4); // bash and its three children
    expect(res.rss).toBeGreaterThanOrEqual(150e6);
    expect(res.rss).toBeLessThan(1e9);
    expect(res.cpu).toBeGreaterThan(50);
    expect(res.cpu).toBeLessThan(300);
    expect(res.cpuSeconds).toBeGreaterThan(0);
    expect(Number.isInteger(res.rss)).toBe(true);
    // PSS is read on the first pass and every sixth after: within 6 passes, the hog's pages its own.
    expect(res.pss).not.toBeUndefined();
    const later = await untilRow(c, job.id, "its PSS read", (r) => r.resources?.pss >= 150e6, 15_000);
    // Not content: the row's updatedAt did not move for it, though its resources did.
    expect(later.resources.procs).toBeGreaterThanOrEqual(4);
    // Not content: pushes that changed its resources alone came, with the same updatedAt.
    const pushes = sub.events.filter((e) => e.event === "row" && e.row.id === job.id).map((e) => e.row);
    const resourcesAlone = pushes.filter((r, i) => i > 0 && onlyResourcesDiffer(pushes[i - 1], r));
    expect(resourcesAlone.length).toBeGreaterThan(0);
    const { rows } = await c.ok("list", {});
    expect(rows.find((r: any) => r.id === job.id).resources.procs).toBeGreaterThanOrEqual(4);

    // `roost top`: once as text, once as JSON, and live at a terminal until q.
    const text = await ok(["top", "--once", "--sort", "mem"], d.env);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^roost top: 1 running of 1 jobs · cpu \d+(\.\d)?% · \d+ MB · \d+ processes · sorted by mem$/,
    );
    expect(lines[2]).toMatch(/^ID\s+NAME\s+STATE\s+CPU\s+TIME\s+RSS\s+PSS\s+PROCS\s+QUIET$/);
    expect(lines[3]).toMatch(
      new RegExp(
        `^${job.id}\\s+\\S.*\\s(working|your turn)\\s+\\d+%\\s+\\d+:\\d\\d\\s+\\d+ MB\\s+\\d+ MB\\s+4\\s+\\S+$`,
      ),
    );
    const listed = JSON.parse(await ok(["top", "--json"], d.env));
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: job.id, view: expect.any(String) });
    expect(listed[0].resources.rss).toBeGreaterThanOrEqual(150e6);
    const bad = await roost(["top", "--sort", "size"], d.env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("--sort takes cpu, mem, name");
    const screen = await liveTop(d.env);
    expect(screen).toContain("\x1b[?1049h"); // the alternate screen, entered
    expect(screen).toMatch(/roost top: 1 running of 1 jobs/);
    expect(screen.endsWith("\x1b[?25h\x1b[?1049l")).toBe(true); // and left, the cursor back

    await c.ok("stop", { id: job.id });
    const ended = await untilRow(c, job.id, "stopped", (r) => r.life !== "running", 15_000);
    expect(ended.resources).toBeNull();
  }, 40_000);
});

function killSession(sid: number): void {
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry);
    if (!(pid > 0)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
      const session = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
      if (session === sid) process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

function onlyResourcesDiffer(a: any, b: any): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const differ = [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  return differ.length === 1 && differ[0] === "resources";
}

/** `roost top` at a terminal of its own: drawn, then `q`; all it wrote there. */
async function liveTop(env: Record<string, string>): Promise<string> {
  const term = ptySpawn(process.execPath, [CLI, "top"], { cols: 140, rows: 30, env });
  let seen = "";
  term.onData((data) => {
    seen += data;
  });
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  try {
    await until("top drawn", () => seen.includes("PROCS"));
    term.write("q");
    expect(await exited).toBe(0);
  } finally {
    try {
      process.kill(term.pid, "SIGKILL");
    } catch {}
  }
  return seen;
}
