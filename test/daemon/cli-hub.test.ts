/**
 * The `roost` CLI and the hub: the feed (`roost events`, printed and followed) and the hub's
 * links and tokens (`roost open --print`, `roost token`). The built command
 * (dist/server/cli/main.js, so run `npm run build` first) against one real daemon on a fresh temp
 * ROOST_HOME, shared by the tests (they run one after another, the feed's from zero first).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, needsBuild, ok, PLAIN_SHELL, roost } from "../helpers/cli.js";
import { CLI, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { killQuietly } from "../helpers/processes.js";

let d: TestDaemon;

beforeAll(async () => {
  needsBuild();
  d = await startDaemon({ env: PLAIN_SHELL });
});

afterAll(async () => {
  await d?.cleanup();
});

/** The id in `started ID (PROFILE) in DIR`, what `roost dispatch` prints. */
function startedId(said: string): string {
  const m = /^started (j\d+) \(/.exec(said);
  if (!m) throw new Error(`not what dispatch prints: ${JSON.stringify(said)}`);
  return m[1]!;
}

describe("events", () => {
  // First in the file: the daemon's feed is empty, and its first jobs are j1 and j2.
  it("prints the feed, readable and as JSON, for all jobs or one", async () => {
    expect(await ok(["events"], d.env)).toBe("no events yet\n");
    await ok(["dispatch", "shell", "echo one"], d.env);
    await ok(["dispatch", "shell", "echo two"], d.env);

    const [text, all, one, limited] = await Promise.all([
      ok(["events"], d.env),
      json(["events"], d.env),
      json(["events", "--job", "j1"], d.env),
      json(["events", "--limit", "1"], d.env),
    ]);
    expect(text).toMatch(/^\d\d:\d\d:\d\d j1 +dispatch +shell: echo one \(user\)$/m);
    expect(text).toMatch(/^\d\d:\d\d:\d\d j2 +dispatch +shell: echo two \(user\)$/m);

    expect(all.cursor).toBe(4); // two jobs: a dispatch and a start each
    expect(all.events.filter((e: any) => e.kind === "dispatch").map((e: any) => e.id)).toEqual(["j1", "j2"]);

    expect(one.events.map((e: any) => [e.cursor, e.id, e.kind, e.who])).toEqual([
      [1, "j1", "dispatch", "user"],
      [2, "j1", "start", "roost"],
    ]);
    expect(one.events[0].text).toBe("shell: echo one");
    expect(one.events[1].text).toMatch(/^started \/bin\/sh \(pid \d+\)$/);
    expect(one.cursor).toBe(2);
    expect(limited.events).toHaveLength(1);
  });

  it("--follow --json prints the recent entries, then each new one as it happens", async () => {
    const before = startedId(await ok(["dispatch", "shell", "echo before"], d.env));
    let follower: ChildProcess | undefined;
    try {
      follower = spawn(process.execPath, [CLI, "events", "--follow", "--json"], {
        env: d.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      follower.stdout!.on("data", (chunk) => {
        output += chunk;
      });
      const entries = () =>
        output
          .split("\n")
          .filter((l) => l.endsWith("}"))
          .map((l) => JSON.parse(l));
      await until("the recent dispatch", () =>
        entries().some((e) => e.id === before && e.kind === "dispatch"),
      );

      const after = startedId(await ok(["dispatch", "shell", "echo after"], d.env));
      const pushed = await until("the pushed dispatch", () =>
        entries().find((e) => e.id === after && e.kind === "dispatch"),
      );
      expect(pushed).toMatchObject({ text: "shell: echo after", who: "user" });
      const cursors = entries().map((e) => e.cursor);
      expect(new Set(cursors).size).toBe(cursors.length); // none printed twice

      // Ctrl-C ends it, cleanly
      const exited = new Promise<number | null>((resolve) => follower!.once("exit", (code) => resolve(code)));
      follower.kill("SIGINT");
      expect(await exited).toBe(0);
    } finally {
      if (follower?.pid && follower.exitCode === null) killQuietly(follower.pid);
    }
  });
});

describe("the hub's links and tokens", () => {
  it("open --print prints the login link; token makes, lists and revokes named tokens", async () => {
    const [opened, bare] = await Promise.all([ok(["open", "--print"], d.env), ok(["token"], d.env)]);
    const link = opened.trim();
    expect(link).toBe(`${d.url}login?token=${encodeURIComponent(d.token)}`);
    expect(bare.trim()).toBe(link);
    const made = await ok(["token", "--read-only", "--name", "dash"], d.env);
    expect(made).toMatch(/^made a read-only token dash \(shown once\):\n/);
    const secret = new URL(made.trim().split("\n")[1]!).searchParams.get("token")!;
    expect(secret).not.toBe(d.token);
    const asDash = await fetch(`${d.url}api/whoami`, { headers: { authorization: `Bearer ${secret}` } });
    expect((await asDash.json()).result).toMatchObject({ token: "dash", readOnly: true });

    const full = await json(["token", "--name", "laptop"], d.env);
    expect(full.token).toMatchObject({ name: "laptop", readOnly: false });
    expect(await ok(["token", "--list"], d.env)).toMatch(/^dash +read-only .*\nlaptop +full /);
    const again = await roost(["token", "--name", "dash"], d.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("roost: a token named dash exists: revoke it first, or choose another name\n");

    expect(await ok(["token", "--revoke", "dash"], d.env)).toBe("revoked dash\n");
    const revoked = await fetch(`${d.url}api/whoami`, { headers: { authorization: `Bearer ${secret}` } });
    expect(revoked.status).toBe(401);
    expect((await json(["token", "--list"], d.env)).tokens.map((t: any) => t.name)).toEqual(["laptop"]);

    // A usage error is 64 with the usage; a name the daemon refuses, 1 with its answer.
    const usage =
      "usage: roost token [--name NAME] [--read-only] [--revoke NAME] [--list] [--json]\n" +
      "(`roost token --help` says more)\n";
    const refused = [
      [["token", "--read-only"], 64, `roost: --read-only goes with --name NAME\n${usage}`],
      [["token", "--name", "a", "--list"], 64, `roost: use one of --name, --revoke and --list\n${usage}`],
      [["token", "--name", "a b"], 1, 'roost: token: name must match pattern "^[A-Za-z0-9_.-]{1,64}$"\n'],
    ] as const;
    // Each refused, so none changes a thing: all started together.
    const ran = await Promise.all(refused.map(([args]) => roost([...args], d.env)));
    for (const [i, [args, code, says]] of refused.entries()) {
      const r = ran[i]!;
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr, args.join(" ")).toBe(says);
      expect(r.stdout, args.join(" ")).toBe("");
    }
    expect((await json(["token", "--list"], d.env)).tokens.map((t: any) => t.name)).toEqual(["laptop"]);
  });
});
