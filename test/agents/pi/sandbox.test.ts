/**
 * pi in roost's sandbox (docs/security.md): the real pi, dispatched sandboxed with its agent
 * directory writable (a profile's `writable`), reports through its job's own socket, runs its tools
 * in its tree, and cannot read the owner's token.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PI_EXTENSION } from "../../../server/paths.js";
import { PI_WAIT, piWorldPerTest, untilDone } from "../../helpers/pi.js";

// pi's agent directory, writable in the sandbox: the world's copied into it once its model listens.
const agentDir = fs.mkdtempSync(path.join(os.tmpdir(), "roost-pi-sandboxed-"));
const world = piWorldPerTest({
  env: { PI_CODING_AGENT_DIR: agentDir },
  config: {
    agentProfiles: {
      pi: {
        command: ["pi", "-e", PI_EXTENSION],
        task: "type",
        protocol: true,
        sandbox: true,
        writable: [agentDir],
      },
    },
  },
});

afterAll(() => fs.rmSync(agentDir, { recursive: true, force: true }));

describe("pi, sandboxed", { timeout: 4 * PI_WAIT }, () => {
  it("works in its tree and reports through its own socket; the owner's token is not there", async () => {
    const w = await world();
    fs.cpSync(w.agentDir, agentDir, { recursive: true });
    const command = 'echo made > made.txt; cat "$ROOST_HOME/token" > leaked.txt 2>&1; echo "$ROOST_SOCKET"';
    w.model.script("s1", { text: "On it.", tools: [{ name: "bash", args: { command } }] }, { text: "Done." });
    const id = await w.dispatch("[s1] make a file");
    const done = await untilDone(w, id);
    expect(done).toMatchObject({ sandboxed: true, connected: true, summary: "Done.", agent: { name: "pi" } });
    expect(fs.readFileSync(path.join(w.work, "made.txt"), "utf8")).toBe("made\n");
    expect(fs.readFileSync(path.join(w.work, "leaked.txt"), "utf8")).toContain("No such file");
  });
});
