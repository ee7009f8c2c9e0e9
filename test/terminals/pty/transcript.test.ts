// Each job's transcript in the pty host: jobs/<jobId>/transcript.log, bounded. Build first.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { nextExit, until, useHost } from "./harness.js";

describe("pty host transcripts", () => {
  const h = useHost();
  const file = (jobId: string, name = "transcript.log") => path.join(h.home(), "jobs", jobId, name);
  const read = (p: string) => (fs.existsSync(p) ? fs.readFileSync(p, "utf8") : "");

  it("holds what the job printed, owner-only", async () => {
    const c = await h.connect();
    const exited = nextExit(c, "t");
    await h.start(c, "t", "bash", ["-c", "echo hello transcript; printf 'caf\\xc3\\xa9\\n'"]);
    await exited;
    await until("the transcript", () => read(file("t")).endsWith("café\r\n"));
    expect(fs.readFileSync(file("t"), "utf8")).toBe("hello transcript\r\ncafé\r\n");
    expect(fs.statSync(file("t")).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(file("t", "transcript.1.log"))).toBe(false);
  });

  it("rotates past its bound, keeping the newest output in transcript.log", async () => {
    const c = await h.connect();
    const exited = nextExit(c, "r");
    await h.start(c, "r", "seq", ["1", "3000"], { transcriptBytes: 4096 });
    await exited;
    const all = Array.from({ length: 3000 }, (_, i) => `${i + 1}\r\n`).join(""); // 16893 bytes
    // Whole files of 4096 bytes were rotated away; the last full one is transcript.1.log.
    const rest = all.length % 4096;
    // A loaded machine may take a while: the wait is long, and says what it saw if it ends.
    await until(
      "the last output",
      () => {
        const n = read(file("r")).length;
        if (n !== rest) throw new Error(`transcript.log has ${n} bytes, not ${rest}`);
        return true;
      },
      45_000,
    );
    expect(read(file("r"))).toBe(all.slice(-rest));
    expect(read(file("r", "transcript.1.log"))).toBe(all.slice(-rest - 4096, -rest));
    expect(fs.readdirSync(path.join(h.home(), "jobs", "r")).sort()).toEqual([
      "exit.json",
      "transcript.1.log",
      "transcript.log",
    ]);
    expect(fs.statSync(file("r", "transcript.1.log")).mode & 0o777).toBe(0o600);
  });

  it("goes on with the same file when the job runs again, marking where", async () => {
    const c = await h.connect();
    for (const word of ["first", "second"]) {
      const exited = nextExit(c, "again");
      await h.start(c, "again", "echo", [word]);
      await exited;
    }
    // A line says where the second run begins.
    await until("both runs", () => read(file("again")).endsWith("second\r\n"));
    expect(read(file("again"))).toMatch(
      /^first\r\n\r\n\[roost: started again \d{4}-\d\d-\d\dT[\d:.]+Z\]\r\nsecond\r\n$/,
    );
  });
});
