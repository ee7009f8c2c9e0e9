// Flow control: a job printing faster than its screen takes it in is paused, as a terminal that
// stops reading would pause it, and nothing of it is lost.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Jobs } from "../../../server/pty/jobs.js";
import { Screen } from "../../../server/pty/screen.js";
import { nextExit, until, useHost } from "./harness.js";

describe("pty host flow control", { timeout: 60_000 }, () => {
  const h = useHost();

  it("keeps a loud job's last lines, on its screen and in its tail", async () => {
    const c = await h.connect();
    const exited = nextExit(c, "loud");
    const script =
      "yes $'\\e[31mA\\e[0m\\e[1;32mB\\e[0m\\e[2K\\e[5;5Hc\\u00e9\\u4e2d' | head -n 400000; echo done";
    await h.start(c, "loud", "bash", ["-c", script], { scrollback: 100 });
    expect(await exited).toMatchObject({ exitCode: 0 });
    expect((await c.tail("loud")).endsWith("\r\ndone\r\n")).toBe(true);
    const s = await c.screen("loud");
    expect(s.lines[s.cursorY - 1]).toBe("done");
  });
});

describe("a screen that falls behind", () => {
  it("asks to pause the job's output, then to go on once it caught up", async () => {
    const flow: boolean[] = [];
    const screen = new Screen({
      cols: 80,
      rows: 24,
      scrollback: 10,
      quietMs: 50,
      onChange: () => {},
      onFlow: (p) => flow.push(p),
    });
    const chunk = `${"z".repeat(79)}\r\n`.repeat(800); // 64 KB
    for (let i = 0; i < 160; i++) screen.write(chunk); // 10 MB at once: nothing parsed meanwhile
    screen.write("the end");
    expect(flow).toEqual([true]);
    await until("going on", () => flow.length === 2, 20_000);
    expect(flow).toEqual([true, false]);
    await new Promise<void>((resolve) => screen.whenParsed(resolve));
    expect(screen.text().lines.at(-1)).toBe("the end");
    screen.dispose();
  });
});

describe("a job that ends while its output is paused", () => {
  let home = "";
  let pid = 0;
  afterEach(() => {
    for (const target of pid > 1 ? [-pid, pid] : []) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // already gone
      }
    }
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("is read to the end", async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-flow-"));
    let exited = false;
    const jobs = new Jobs(home, {
      output: () => {},
      screen: () => {},
      exit: () => {
        exited = true;
      },
    });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    ({ pid } = jobs.spawn({
      jobId: "p",
      file: "bash",
      args: ["-c", "sleep 0.3; echo last words"],
      cwd: home,
      env,
      cols: 80,
      rows: 24,
    }));
    const job = jobs.known({ jobId: "p" });
    (job.screen as any).onFlow(true); // as the screen does when it falls behind
    await until("the exit", () => exited);
    expect(job.tail).toContain("last words");
  });
});
