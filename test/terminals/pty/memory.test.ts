// What an idle job costs the pty host: 100 `sleep 600` jobs in one host, its RSS before and after.
// Build first. Prints the figure; the bound is generous, to catch a leak or a runaway buffer.
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { sleep, useHost } from "./harness.js";

const JOBS = 100;

/** Resident memory in MB, and its anonymous part (the heap and buffers, not the mapped code). */
function rss(pid: number): { rss: number; anon: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, anon: kb("RssAnon") / 1024 };
}

describe("pty host memory", { timeout: 60_000 }, () => {
  const h = useHost();

  it(`holds ${JOBS} idle jobs in little memory each`, async () => {
    const c = await h.connect();
    const hostPid = (await c.hello()).pid;
    await sleep(1_000);
    const before = rss(hostPid);
    for (let i = 0; i < JOBS; i++) await h.start(c, `idle-${i}`, "sleep", ["600"]);
    expect((await c.list()).live).toHaveLength(JOBS);
    await sleep(3_000);
    const after = rss(hostPid);
    const perJob = (after.rss - before.rss) / JOBS;
    const mb = (n: number) => `${n.toFixed(1)} MB`;
    console.log(
      `pty host RSS: ${mb(before.rss)} (anon ${mb(before.anon)}) with no job, ` +
        `${mb(after.rss)} (anon ${mb(after.anon)}) with ${JOBS} idle jobs: ` +
        `${(perJob * 1024).toFixed(0)} KB per job`,
    );
    expect(perJob).toBeLessThan(20);
  });
});
