/**
 * Set up before every test file (vitest.config.ts): a failed test prints what its daemons said
 * while it ran, so that a failure seen once in CI (a stall, a refusal logged, a pty host lost) can
 * be read afterwards, when the daemon's home has gone with the test. A test that passed prints
 * only its daemons' stall lines, if any: so a green run, too, says whether a daemon was held.
 */
import { afterEach, beforeEach } from "vitest";
import { daemonsStarted, type TestDaemon } from "./daemon.js";

/** The end of what a daemon said worth printing: its latest lines are those near the failure. */
const TAIL_CHARS = 6000;
/** The daemon's two stall lines (server/stalls.ts, server/store/wal-sync.ts). */
const STALL = /^roost: (the daemon's thread was held|the disk took) .*$/gm;
// This file runs before each test file, but the modules it imports are loaded once per worker
// (vitest.config.ts: not isolated): the daemons of the files before, ended, are let go here.
daemonsStarted.splice(0);

/** How much each daemon had said when the test began (one started during it had said nothing). */
let saidBefore = new Map<TestDaemon, number>();

beforeEach(() => {
  saidBefore = new Map(daemonsStarted.map((d) => [d, d.output.length]));
});

afterEach((ctx) => {
  const failed = ctx.task.result?.state === "fail";
  for (const d of daemonsStarted) {
    const said = d.output.slice(saidBefore.get(d) ?? 0);
    if (said === "") continue;
    if (!failed) {
      const stalls = said.match(STALL);
      if (stalls)
        console.error(
          `--- the daemon of ${d.home} was slow during "${ctx.task.name}":\n${stalls.join("\n")}`,
        );
      continue;
    }
    const tail = said.length > TAIL_CHARS ? `…${said.slice(-TAIL_CHARS)}` : said;
    console.error(
      `--- what the daemon of ${d.home} (pid ${d.proc?.pid}) said during the test:\n${tail}--- end`,
    );
  }
});
