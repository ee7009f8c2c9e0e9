import { defineConfig } from "vitest/config";
import LongestFirst from "./test/helpers/longest-first.js";

/**
 * The suite in tiers, a folder each, named for what its tests need (docs/testing.md):
 * `npm run test:<tier>` runs one, `npm test` all of them (chaos has its own config:
 * vitest.chaos.config.ts). The unit tier starts no process and needs no build; the others run
 * against the built daemon in dist/ (`npm run build` first; their npm scripts build).
 */
const TIERS = [
  "unit", // what starts no process: pure functions, the store, the bridge, the checks of the repository
  "daemon", // a real daemon on a temp home, its socket and HTTP, and the programs its jobs run
  "terminals", // the pty host, and jobs' terminals read and typed into
  "browser", // the hub in a real chromium
  "agents", // pi and ACP agents, run for real against a scripted model
  "postgres", // the shared task board on a real PostgreSQL
];

/**
 * What a daemon says as it starts and stops, one line each: a process's log keeps them; from a
 * daemon in a test's own process (test/helpers/daemon-here.ts) they are a run's noise. Its other
 * lines (a warning, an error) are printed.
 */
const DAEMON_BANNER =
  /^(roost \S+: listening on | {2}home | {2}hub http| {2}the login link: | {2}http: at most | {2}listening beyond |roost: stopped \(the jobs keep running\))/;

export default defineConfig({
  test: {
    onConsoleLog: (log) => !DAEMON_BANNER.test(log),
    // The built daemon (test/helpers/daemon-here.ts loads it from dist/) is node's to load, as
    // node_modules are: not compiled again by the test runner.
    server: { deps: { external: [/\/dist\/server\//] } },
    testTimeout: 60000,
    hookTimeout: 30000,
    // expect.poll's own deadline is 1 s: a margin that a loaded machine's pause decides. The same
    // as `until`'s (test/helpers/processes.ts): a wait for what must come, not a bet on when.
    expect: { poll: { timeout: 15000 } },
    // Files in parallel: most of a test's time is a wait on a process (a daemon, a terminal, a
    // browser), so four at once keep a 2-core machine busy without holding each other up (six
    // were slower: the machine is then the wait).
    maxWorkers: 4,
    // A worker loads the modules the test files share (the helpers, the SDK, the daemon's source
    // that unit tests import) once, not once per file: loading them again for each of some 190
    // files cost about as much CPU as the unit tests themselves. Safe because neither roost's
    // modules nor the helpers keep state at module level that a file could leave to the next
    // (test/unit/layers.test.ts refuses it in the daemon's core; on-failure.ts lets go of the
    // daemons of the files before), and setup files still run before each file.
    isolate: false,
    fileParallelism: true,
    // The longest first, across the tiers (vitest's own order runs one tier after another).
    sequence: { sequencer: LongestFirst },
    projects: TIERS.map((name) => ({
      extends: true,
      test: {
        name,
        include: [`test/${name}/**/*.test.ts`],
        setupFiles:
          name === "unit"
            ? // A unit test that starts a process fails, naming the tier it belongs in.
              ["test/helpers/no-processes.ts"]
            : // A failed test prints what its daemons said (test/helpers/on-failure.ts).
              ["test/helpers/on-failure.ts"],
      },
    })),
  },
});
