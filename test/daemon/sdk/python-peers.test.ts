/**
 * The Python client's peer ops and items (sdk/python/roost_agent.py) against a real daemon: the
 * peer-ops suite (peer-ops-suite.ts) on its scripted agent (test/fixtures/py_agent.py); and a
 * foreground session (test/fixtures/py_foreground.py, not started by roost) that registers, and
 * again after a restart.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURES, until } from "../../helpers/daemon.js";
import { lines, tempDir, untilGone, untilRow } from "../../helpers/jobs.js";
import { describePeerOps } from "../../helpers/peer-ops-suite.js";
import { killQuietly } from "../../helpers/processes.js";
import { body, call, type ScriptedClient, scriptedDaemonPerTest } from "../../helpers/scripted-agents.js";

/** test/fixtures/py_agent.py. */
const CLIENT: ScriptedClient = {
  name: "the Python client",
  handlers: { item: "on_item", reply: "on_reply" },
  command: ["python3", path.join(FIXTURES, "py_agent.py")],
  itemsEnv: { PY_AGENT_ITEMS: "1" },
  capabilities: { items: ["report", "replies", "agent-items"], plain: ["report", "replies"] },
  losesAck: { env: { PY_AGENT_ITEMS: "1", PY_AGENT_EXIT_AFTER_SEQ: "3" }, text: "third" },
};

describePeerOps(CLIENT);

describe("the Python client: a foreground session (register)", () => {
  const start = scriptedDaemonPerTest(CLIENT);
  const started: ChildProcess[] = [];
  const temps: string[] = [];
  afterEach(async () => {
    // A process the test already killed may be gone before its exit event: a quiet kill.
    for (const p of started.splice(0)) if (p.pid) killQuietly(p.pid);
    for (const t of temps.splice(0)) fs.rmSync(t, { recursive: true, force: true });
  });

  it("registers, reports, answers an item with a message, and registers again under the same id after a daemon restart", async () => {
    const { d, c, agent } = await start();
    const out = tempDir();
    temps.push(out);
    const log = (f: string) => lines(path.join(out, f));
    const fg = spawn("python3", [path.join(FIXTURES, "py_foreground.py"), d.socket, out, "py-fg", "key-1"], {
      stdio: "ignore",
    });
    started.push(fg);
    const [{ id }] = await until("registered", () => log("registered.jsonl")[0] && log("registered.jsonl"));
    expect(await until("peers", () => log("peers.jsonl")[0])).toEqual({ self: [id] });
    const r = await untilRow(c, id, "its report", (x) => x.summary === "starting");
    expect(r).toMatchObject({ kind: "foreground", name: "py-fg", pid: fg.pid, agentItems: true });
    expect(r.agent).toEqual({ name: "py-fg", version: "1.0" });

    const a = await agent("items", "job");
    expect((await call(c, a, "send py-fg hello")).result).toEqual({
      outcome: "delivered",
      to: { id, name: "py-fg" },
    });
    await until("its answer", () => a.log("items.jsonl")[0]);
    expect(body(a.log("items.jsonl")[0].text)).toBe("got your message");
    expect(log("items.jsonl")).toMatchObject([{ kind: "message", from: { id: a.id, name: "job" } }]);

    await d.restart("SIGKILL");
    const c2 = await d.client();
    await untilRow(c2, id, "registered again, connected", (x) => x.connected && x.life === "running");
    await c2.ok("reply", { id, text: "from the user" });
    await until("the reply", () => log("replies.jsonl")[0]);
    expect(log("replies.jsonl")).toEqual([{ seq: 2, text: "from the user" }]);
    expect(log("registered.jsonl")).toHaveLength(1); // the same process, the same id
    process.kill(fg.pid!, "SIGKILL");
    await untilGone(fg.pid!);
  });
});
