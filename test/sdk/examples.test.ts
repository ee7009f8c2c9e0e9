/** The example agents as built-in profiles: `dispatch example-py` works with nothing configured. */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { untilRow } from "../helpers/jobs.js";

let d: TestDaemon;
afterEach(async () => d?.cleanup());

for (const profile of ["example-py", "example-ts"]) {
  describe(profile, () => {
    it("runs the task's steps, asks before the destructive one, goes on on yes, ends done", async () => {
      d = await startDaemon();
      const c = await d.client();
      const work = d.env.HOME!;
      const task = "echo made-by-the-example > note.txt; rm note.txt";
      const { job } = await c.ok("dispatch", { profile, task, cwd: work });
      const blocked = await untilRow(c, job.id, "asking before rm", (r) => r.state === "blocked", 20000);
      expect(blocked.kind).toBe("protocol");
      expect(blocked.question).toContain("rm note.txt");
      expect(blocked.choices).toEqual(["yes", "no"]);
      expect(fs.readFileSync(path.join(work, "note.txt"), "utf8")).toBe("made-by-the-example\n");
      await c.ok("reply", { id: job.id, text: "yes" });
      await untilRow(c, job.id, "done", (r) => r.state === "done", 20000);
      expect(fs.existsSync(path.join(work, "note.txt"))).toBe(false);
    });
  });
}
