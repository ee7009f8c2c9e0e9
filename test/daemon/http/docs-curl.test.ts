/**
 * docs/http.md's curl examples, run as written (the address and the token's place aside) with
 * real curl against a live daemon: a page of examples that do not work is worse than none.
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROOT, until } from "../../helpers/daemon.js";
import { type DaemonHere, startDaemonHere } from "../../helpers/daemon-here.js";

const run = promisify(execFile);
const doc = fs.readFileSync(path.join(ROOT, "docs/http.md"), "utf8");
const blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const [setup, ...examples] = blocks;

// A daemon of its own for each test: each example runs on what the test made, not on what an
// example before it left. In this process: what is tested is the HTTP face, not a process.
let d: DaemonHere;
let userHome: string;
let prelude: string;
beforeEach(async () => {
  d = await startDaemonHere({ config: {}, env: { SHELL: "/bin/bash" } });
  // The examples read ~/.roost/token: a home whose .roost is this daemon's.
  userHome = fs.mkdtempSync(path.join(os.tmpdir(), "roost-docs-"));
  fs.symlinkSync(d.home, path.join(userHome, ".roost"));
  prelude = setup!.replace("http://127.0.0.1:7777", d.url.replace(/\/$/, ""));
});
afterEach(async () => {
  await d?.cleanup();
  fs.rmSync(userHome, { recursive: true, force: true });
});

/** The job the examples name, j1: a shell, as the dispatch example makes it. */
async function shellJob(): Promise<void> {
  const c = await d.client();
  const { job } = await c.ok("dispatch", { profile: "shell", task: "echo hello from roost" });
  expect(job.id).toBe("j1");
}

const bash = (script: string) =>
  run("bash", ["-euo", "pipefail", "-c", `${prelude}\n${script}`], {
    env: { ...process.env, HOME: userHome },
  });

const find = (needle: string) => {
  const block = examples.find((b) => b.includes(needle));
  if (!block) throw new Error(`docs/http.md has no example with ${needle}`);
  return block;
};

describe("docs/http.md's curl examples", () => {
  it("has the examples this test runs", () => {
    expect(setup).toContain("TOKEN=$(cat ~/.roost/token)");
    expect(examples.length).toBeGreaterThanOrEqual(7);
  });

  it("dispatches a job, and a resend is a duplicate", async () => {
    const { stdout } = await bash(find("/api/dispatch"));
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, result: { job: { id: "j1", profile: "shell" } } });
    const again = await bash(find("/api/dispatch"));
    expect(JSON.parse(again.stdout).result).toMatchObject({ duplicate: true, job: { id: "j1" } });
  });

  it("lists the rows, and one", async () => {
    await shellJob();
    const { stdout } = await bash(find("/api/list"));
    const [all, one] = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(all.result.rows.map((r: any) => r.id)).toEqual(["j1"]);
    expect(one.result.rows[0].id).toBe("j1");
  });

  it("replies, and the reply is typed into the shell", async () => {
    await shellJob();
    const { stdout } = await bash(find("/api/reply"));
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, result: { saved: true, seq: 2 } });
    await until("the reply typed into the shell", () =>
      fs.readFileSync(path.join(d.home, "jobs/j1/transcript.log"), "utf8").includes("a reply"),
    );
  });

  it("reads the feed", async () => {
    await shellJob();
    const c = await d.client();
    await c.ok("reply", { id: "j1", text: "echo a reply" });
    const { stdout } = await bash(find("/api/events?limit"));
    const kinds = JSON.parse(stdout).result.events.map((e: any) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(["dispatch", "start", "reply"]));
  });

  it("adds a task to the board, and lists it", async () => {
    const { stdout } = await bash(find("/api/task?action=list"));
    const [added, listed] = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(added.result.task).toMatchObject({ id: 1, title: "review the release notes", state: "open" });
    expect(listed.result.tasks).toEqual([added.result.task]);
  });

  it("follows the feed: a new event is printed as it comes", async () => {
    await shellJob();
    const follower = spawn("bash", ["-euo", "pipefail", "-c", `${prelude}\n${find("while true")}`], {
      env: { ...process.env, HOME: userHome },
      detached: true,
    });
    let out = "";
    follower.stdout.on("data", (c) => {
      out += c;
    });
    follower.stderr.on("data", (c) => {
      out += c;
    });
    try {
      await until("the old events printed", () => out.includes('"kind":"dispatch"'));
      await run(process.execPath, [path.join(ROOT, "dist/server/cli/main.js"), "rename", "j1", "followed"], {
        env: d.env,
      });
      await until("the new event printed", () => out.includes('"kind":"rename"'));
    } finally {
      process.kill(-follower.pid!, "SIGKILL");
    }
  });

  it("stops the job and removes its row", async () => {
    await shellJob();
    const { stdout } = await bash(find("/api/stop"));
    expect(
      stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { ok: true, result: {} },
      { ok: true, result: {} },
    ]);
  });

  it("shows what roost says without the token", async () => {
    const { stdout } = await bash(find('curl -sS "$ROOST/api/list"'));
    expect(JSON.parse(stdout)).toMatchObject({ ok: false, code: "unauthorized" });
  });
});
