/**
 * What the terminal-agent tests (test/terminals/terminals*.test.ts) share: their profiles, a
 * daemon shared by a file's tests with a client and a working directory of each test's own, and
 * a dispatch into that directory.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { agentProfile, FIXTURES, type TestDaemon } from "./daemon.js";
import { bashProfile, cleanDaemonPerFile, QUIET_MS, startCleanDaemon } from "./jobs.js";
import type { RawClient } from "./raw-client.js";

/** The profiles the terminal tests dispatch: programs in terminals, and a protocol agent. */
export const terminalConfig = {
  agentProfiles: {
    bash: bashProfile(),
    // A quiet spell long enough that a loaded machine's pause is not taken for idleness.
    "bash-slow-quiet": bashProfile(3000),
    ask: { command: [path.join(FIXTURES, "ask.sh")], task: "type", quietMs: QUIET_MS },
    python: { command: ["python3", "-i", "-q"], task: "type", quietMs: QUIET_MS, env: { PYTHONSTARTUP: "" } },
    // The same, started by a launcher that waits on it (as Codex's npm package starts its binary).
    "launched-python": {
      command: [process.execPath, path.join(FIXTURES, "launcher.mjs"), "python3", "-i", "-q"],
      task: "type",
      quietMs: QUIET_MS,
      env: { PYTHONSTARTUP: "" },
    },
    less: { command: ["less"], task: "argv", quietMs: QUIET_MS },
    agent: agentProfile(),
    // A question roost cannot tell by itself: the profile's own blockedPattern marks it.
    custom: {
      command: ["/bin/sh", "-c", "echo 'Apply these 3 edits? Press enter to accept'; sleep 600"],
      blockedPattern: "Press enter to accept",
      quietMs: QUIET_MS,
    },
  },
};

/** Dispatches a job of `profile` working in `cwd`; its row as dispatch returned it. */
export async function dispatchIn(c: RawClient, cwd: string, profile: string, task?: string): Promise<any> {
  return (await c.ok("dispatch", { profile, task, cwd })).job;
}

export interface SharedTerminals {
  /** The file's daemon, shared by its tests. */
  readonly d: TestDaemon;
  /** This test's client: its events are this test's alone. */
  readonly c: RawClient;
  /** This test's own working directory, where its jobs run (a file one writes is no other's). */
  readonly cwd: string;
  /** Another client, closed at the end of this test (a viewer that stays would watch on). */
  client(): Promise<RawClient>;
  /** Dispatches a job of `profile` in this test's directory. */
  dispatch(c: RawClient, profile: string, task?: string): Promise<any>;
}

/**
 * One daemon for the tests of the file (cleanDaemonPerFile, on terminalConfig); for each test a
 * client and a directory of its own, the clients closed after it. Its jobs are left running (a
 * test reads only its own jobs, by the ids dispatch gave it): the daemon's teardown ends them.
 */
export function sharedTerminals(): SharedTerminals {
  const shared = cleanDaemonPerFile(terminalConfig, startCleanDaemon);
  let clients: RawClient[] = [];
  let c: RawClient | undefined;
  let cwd = "";
  const client = async () => {
    const next = await shared.d.client();
    clients.push(next);
    return next;
  };
  beforeEach(async () => {
    c = await client();
    cwd = fs.mkdtempSync(path.join(shared.dir, "test-"));
  });
  afterEach(() => {
    for (const x of clients) x.close();
    clients = [];
    c = undefined;
  });
  return {
    get d() {
      return shared.d;
    },
    get c() {
      if (!c) throw new Error("no test is running");
      return c;
    },
    get cwd() {
      return cwd;
    },
    client,
    dispatch: (on, profile, task) => dispatchIn(on, cwd, profile, task),
  };
}
