/**
 * The `roost` CLI's job commands, as a user runs them: ls, dispatch, reply, stop, respawn, rm,
 * pin, unpin, rename, and what each says of a job that is not there. The built command
 * (dist/server/cli/main.js, so run `npm run build` first) against one real daemon on a fresh temp
 * ROOST_HOME, shared by the tests (they run one after another): each test names the jobs it made
 * by the ids the CLI printed, and looks at its own rows among the others'.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, needsBuild, ok, PLAIN_SHELL, roost, rowOf } from "../helpers/cli.js";
import { agentProfile, startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

/** The id in `started ID (PROFILE) in DIR`, what `roost dispatch` prints. */
function startedId(said: string): string {
  const m = /^started (j\d+) \(/.exec(said);
  if (!m) throw new Error(`not what dispatch prints: ${JSON.stringify(said)}`);
  return m[1]!;
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("jobs", () => {
  let d: TestDaemon;
  /**
   * A socket client of the daemon's: waits on a job's row, and a row read after a CLI command (what
   * that command did, not how `roost ls ID --json` prints it: that is checked once, below, and in
   * cli-ls.test.ts), without a CLI start each.
   */
  let c: RawClient;
  // A program that is there at dispatch and gone by the respawn: the one way left for a job
  // to reach the pty host and fail to start (dispatch refuses a program that is missing).
  let bin: string;
  let prog: string;

  beforeAll(async () => {
    needsBuild();
    bin = fs.mkdtempSync(path.join(os.tmpdir(), "roost-prog-"));
    prog = path.join(bin, "prog");
    fs.writeFileSync(prog, "#!/bin/sh\nexec sleep 100\n", { mode: 0o755 });
    d = await startDaemon({
      config: { agentProfiles: { agent: agentProfile(), broken: { command: [prog] } } },
      env: PLAIN_SHELL,
    });
    c = await d.client();
  });

  afterAll(async () => {
    await d?.cleanup();
    if (bin) fs.rmSync(bin, { recursive: true, force: true });
  });

  // First: the daemon has no job yet.
  it("ls: a hint when empty, and {rows: []} as JSON", async () => {
    const [text, asJson, list] = await Promise.all([
      ok(["ls"], d.env),
      json(["ls"], d.env),
      json(["list"], d.env),
    ]);
    expect(text).toBe("no jobs yet: try `roost dispatch shell 'ls'`\n");
    expect(asJson).toEqual({ rows: [] });
    expect(list).toEqual({ rows: [] });
  });

  it("dispatch starts a shell job in this directory, and ls shows it", async () => {
    const cwd = fs.realpathSync(os.tmpdir());
    const said = await ok(["dispatch", "shell", "echo", "hello", "there"], d.env, cwd);
    const first = startedId(said);
    expect(said).toBe(`started ${first} (shell) in ${cwd}\n`);
    const result = await json(["dispatch", "shell", "true", "--name", "second", "--cwd", d.home], d.env);
    const second = `j${Number(first.slice(1)) + 1}`;
    expect(result.job).toMatchObject({ id: second, name: "second", profile: "shell", cwd: d.home });

    // The hub's order (newest first); the default, triage's, depends on how far each job got.
    // These two are the newest: the first two rows.
    const { rows } = await json(["ls", "--sort", "list"], d.env);
    expect(rows.slice(0, 2).map((r: any) => r.id)).toEqual([second, first]);
    expect(rows[1]).toMatchObject({ name: "echo hello there", cwd, kind: "terminal" });

    const table = await ok(["ls", "--sort", "list"], { ...d.env, COLUMNS: "80" });
    const [head, ...lines] = table.trimEnd().split("\n");
    expect(head).toMatch(/^ID +NAME +STATE +UPDATED/);
    expect(lines[0]).toMatch(new RegExp(`^${second} +second +\\S`));
    expect(lines[1]).toMatch(new RegExp(`^${first} +echo hello there +\\S`));
    expect(table).not.toContain("\u001b"); // not a terminal: no colour
    for (const line of table.split("\n")) expect(line.length).toBeLessThanOrEqual(80);

    const again = await json(["dispatch", "shell", "true", "--request-id", "once"], d.env);
    const dup = await ok(["dispatch", "shell", "true", "--request-id", "once"], d.env);
    expect(dup).toBe(`already started ${again.job.id} (shell) in ${again.job.cwd} (duplicate)\n`);
  });

  it("dispatch fails with the daemon's code; a job that could not start is failed", async () => {
    const [r, asJsonNope] = await Promise.all([
      roost(["dispatch", "nope", "x"], d.env),
      roost(["dispatch", "nope", "x", "--json"], d.env),
    ]);
    expect(r.code).toBe(1);
    // For a person, the daemon's words alone; the code is for scripts, in --json's line.
    expect(r.stderr).toMatch(/^roost: no profile "nope"; the profiles are: [^\n]*\bshell\b[^\n]*\n$/);
    expect(r.stdout).toBe("");
    expect(asJsonNope.code).toBe(1);
    expect(asJsonNope.stdout).toBe("");
    expect(JSON.parse(asJsonNope.stderr)).toEqual({
      ok: false,
      code: "bad_request",
      error: r.stderr.slice("roost: ".length, -1),
    });

    const said = await ok(["dispatch", "broken"], d.env);
    expect(said).toMatch(/^started j\d+ \(broken\)/);
    const one = startedId(said);
    const two = startedId(await ok(["dispatch", "broken"], d.env));
    fs.rmSync(prog);
    const broken = await roost(["respawn", one], d.env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toBe(
      `roost: ${one} (broken) failed: could not start: command not found: ${prog}\n`,
    );
    const asJson = await roost(["respawn", two, "--json"], d.env);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout).job).toMatchObject({ id: two, life: "exited", state: "failed" });
    const table = await ok(["ls"], { ...d.env, COLUMNS: "200" });
    expect(table).toMatch(new RegExp(`^${two} +\\S+ +failed +\\S+ +could not start: command not found`, "m"));
    expect(table).toMatch(new RegExp(`^${one} +\\S+ +failed +\\S+ +could not start: command not found`, "m"));
  });

  it("ls shows how a job ended, a blocked job's question and choices, and fits the width", async () => {
    const ended = startedId(await ok(["dispatch", "shell", "exit 7"], d.env));
    await untilRow(c, ended, "exited", (r) => r.life === "exited");
    const blocked = startedId(
      await ok(["dispatch", "agent", "block Deploy to production now?|yes,no,later"], d.env),
    );
    await untilRow(c, blocked, "blocked", (r) => r.state === "blocked");

    const [table, narrow] = await Promise.all([
      ok(["ls"], { ...d.env, COLUMNS: "120" }),
      ok(["ls"], { ...d.env, COLUMNS: "60" }),
    ]);
    expect(table).toMatch(new RegExp(`\\b${ended} .*failed \\(exit 7\\) .*exited with code 7`));
    expect(table).toMatch(
      new RegExp(`\\b${blocked} .*blocked .*${escaped("Deploy to production now? [yes | no | later]")}`),
    );

    for (const line of narrow.trimEnd().split("\n")) expect(line.length).toBeLessThanOrEqual(60);
    expect(narrow).toContain("…");
  });

  it("reply: saved with its seq, a resend is a duplicate, /stop stops", async () => {
    const id = startedId(await ok(["dispatch", "agent", "first"], d.env));
    expect(await ok(["reply", id, "second", "one"], d.env)).toBe(`saved as reply 2 to ${id}\n`);
    await untilRow(c, id, "reply 2 handled", (r) => r.summary === "did: second one");
    expect(await ok(["reply", id, "--steer", "third", "--request-id", "r-1"], d.env)).toBe(
      `saved as reply 3 to ${id}\n`,
    );
    expect(await ok(["reply", id, "third", "--request-id", "r-1"], d.env)).toBe(
      "already saved (duplicate)\n",
    );
    expect(await json(["reply", id, "fourth"], d.env)).toEqual({ saved: true, seq: 4 });
    expect(await ok(["reply", id, "/stop"], d.env)).toBe(`${id} stopped\n`);
    expect((await row(c, id)).life).toBe("stopped");
  });

  it("stop, respawn and rm a shell job", async () => {
    const before = (await c.ok("list")).rows.map((r: any) => r.id).sort();
    const id = startedId(await ok(["dispatch", "shell", "sleep 100"], d.env));
    expect(await ok(["stop", id], d.env)).toBe(`stopped ${id}\n`);
    expect((await rowOf(d.env, id)).life).toBe("stopped");
    expect(await ok(["ls"], d.env)).toMatch(new RegExp(`\\b${id} .* stopped `));

    expect(await ok(["respawn", id], d.env)).toMatch(new RegExp(`^respawned ${id} \\(shell\\) in /`));
    expect((await row(c, id)).life).toBe("running");
    expect((await json(["respawn", id], d.env)).job).toMatchObject({ id, life: "running" });

    expect(await ok(["rm", id], d.env)).toBe(`removed ${id}\n`);
    // The list as it was before this test: the job is gone, nothing else with it.
    expect((await json(["ls"], d.env)).rows.map((r: any) => r.id).sort()).toEqual(before);
  });

  it("dispatch --idle-stop puts a resting job to sleep; stop --sleep sleeps several; a bad --idle-stop is refused", async () => {
    const rested = startedId(await ok(["dispatch", "agent", "done", "--idle-stop", "1s"], d.env));
    const slept = await untilRow(c, rested, "put to sleep", (r) => r.life === "stopped");
    expect(slept.stopReason).toBe("idle");
    const a = startedId(await ok(["dispatch", "agent", "busy"], d.env));
    const b = startedId(await ok(["dispatch", "agent", "busy"], d.env));
    expect(await ok(["stop", "--sleep", a, b], d.env)).toBe(`put to sleep ${a}\nput to sleep ${b}\n`);
    for (const id of [a, b]) expect(await row(c, id)).toMatchObject({ life: "stopped", stopReason: "idle" });
    const bad = await roost(["dispatch", "agent", "done", "--idle-stop", "soon"], d.env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('idleStop: "soon" is not a duration');
    for (const id of [rested, a, b]) await ok(["rm", id], d.env);
  });

  it("pin, unpin and rename", async () => {
    const first = startedId(await ok(["dispatch", "shell", "--name", "first"], d.env));
    const second = startedId(await ok(["dispatch", "shell", "--name", "second"], d.env));
    expect(await ok(["pin", first], d.env)).toBe(`pinned ${first}\n`);
    const { rows } = await json(["ls"], d.env);
    // The pinned one on top; of this test's two, it comes first.
    expect(rows[0].id).toBe(first);
    expect(
      rows.filter((r: any) => r.id === first || r.id === second).map((r: any) => [r.id, r.pinned]),
    ).toEqual([
      [first, true],
      [second, false],
    ]);
    expect(await ok(["ls"], d.env)).toMatch(new RegExp(`\\n\\* +${first} +first`));

    expect(await json(["unpin", first], d.env)).toEqual({ ok: true, id: first });
    expect((await row(c, first)).pinned).toBe(false);
    expect(await ok(["ls"], d.env)).not.toContain("*");

    expect(await ok(["rename", second, "the", "new", "name"], d.env)).toBe(
      `renamed ${second} to the new name\n`,
    );
    expect((await row(c, second)).name).toBe("the new name");
  });

  it("an unknown job: exit 1 and what to do on stderr; with --json, not_found as JSON", async () => {
    const said = 'no job "j99": `roost ls` lists the jobs';
    expect((await c.ok("list")).rows.map((r: any) => r.id)).not.toContain("j99");
    const lines = [
      ["stop", "j99"],
      ["reply", "j99", "hi"],
      ["rm", "j99"],
      ["ls", "j99"],
      ["pin", "j99"],
    ];
    // None changes anything (no such job): all started together.
    const ran = await Promise.all(
      lines.map((args) => Promise.all([roost(args, d.env), roost([...args, "--json"], d.env)])),
    );
    for (const [i, args] of lines.entries()) {
      const [r, asJson] = ran[i]!;
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr, args.join(" ")).toBe(`roost: ${said}\n`);
      expect(r.stdout, args.join(" ")).toBe("");
      expect(asJson.code, args.join(" ")).toBe(1);
      expect(asJson.stderr, args.join(" ")).toBe(
        `${JSON.stringify({ ok: false, code: "not_found", error: said })}\n`,
      );
      expect(asJson.stdout, args.join(" ")).toBe("");
    }
  });
});
