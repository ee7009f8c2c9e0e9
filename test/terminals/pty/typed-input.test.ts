// Typing into a job that reads nothing. Found by the fuzz over every op: 64 KiB typed into a job
// whose program never reads (`sleep`) blocked the pty host for good (node-pty's write waits for
// the terminal to take it all), so it answered nothing, for any job, ever again.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { RoostError } from "../../../sdk/ts/protocol/index.js";
import { INPUT_WAITING_MAX } from "../../../server/pty/typed-input.js";
import { until, useHost } from "./harness.js";

describe("typing into a job that reads nothing", { timeout: 60_000 }, () => {
  const h = useHost();

  it("waits in the host, in order, and never stops it serving the other jobs", async () => {
    const c = await h.connect();
    await h.start(c, "deaf", "sleep", ["600"]);
    await h.start(c, "cat", "bash", ["-c", "cat > typed.txt"]);
    // The fuzz's case: a newline and 65,535 more, more than a terminal's input buffer holds.
    await c.write("deaf", `\n${"x".repeat(65_535)}`);
    await c.write("deaf", "y".repeat(65_536));
    // The host still answers, for this job and the others, and types into a job that reads.
    expect((await c.list()).live.map((j) => j.jobId).sort()).toEqual(["cat", "deaf"]);
    await c.resize("deaf", 100, 30);
    await c.write("cat", "still typed\r");
    await until("the other job typed into", () =>
      fs.readFileSync(path.join(h.home(), "typed.txt"), "utf8").includes("still typed"),
    );
  });

  it("refuses, busy, past what may wait; what a reader then takes arrives whole and in order", async () => {
    const c = await h.connect();
    // A job that reads only once told to: until then what is typed waits.
    await h.start(c, "slow", "bash", ["-c", "while [ ! -e go ]; do sleep 0.05; done; cat > typed.txt"]);
    // Lines of 64 bytes: a terminal in its usual (canonical) mode keeps at most 4095 of a line.
    const chunk = `${"z".repeat(63)}\n`.repeat(1024);
    let refusal: unknown = null;
    let sent = 0;
    while (sent <= INPUT_WAITING_MAX + chunk.length) {
      try {
        await c.write("slow", chunk);
        sent += chunk.length;
      } catch (err) {
        refusal = err;
        break;
      }
    }
    expect(refusal).toBeInstanceOf(RoostError);
    expect(refusal).toMatchObject({ code: "busy" });
    expect((refusal as Error).message).toContain("not reading what is typed");
    // The job reads at last: all that was taken arrives, not a byte lost or doubled.
    fs.writeFileSync(path.join(h.home(), "go"), "");
    await c.write("slow", "\n");
    await until(
      "everything typed arrives",
      () => {
        const file = path.join(h.home(), "typed.txt");
        return fs.existsSync(file) && fs.statSync(file).size >= sent + 1; // and the newline after "go"
      },
      30_000,
    );
    const typed = fs.readFileSync(path.join(h.home(), "typed.txt"), "utf8");
    expect(typed).toBe(`${chunk.repeat(sent / chunk.length)}\n`); // and the newline typed after "go"
    expect(sent).toBeGreaterThanOrEqual(INPUT_WAITING_MAX - chunk.length);
  });
});
