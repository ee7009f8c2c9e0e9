/**
 * When a job's resources push its row (server/core/terminals/resources.ts): only when a value moved
 * noticeably, so that idle jobs push nothing every pass; and the words every face shows of them.
 */
import { describe, expect, it } from "vitest";
import {
  byResources,
  bytesText,
  cpuText,
  resourcesText,
  resourceTotals,
} from "../../sdk/ts/protocol/resources-view.js";
import { cpuTime, topLines } from "../../server/cli/top-table.js";
import { movedNoticeably } from "../../server/core/terminals/resources.js";

const base = { pid: 100, cpu: 12, cpuSeconds: 40, rss: 300e6, pss: 250e6, procs: 3 };

describe("movedNoticeably", () => {
  it("pushes a first reading", () => {
    expect(movedNoticeably(null, base)).toBe(true);
  });
  it("does not push CPU time alone, nor small moves", () => {
    expect(movedNoticeably(base, { ...base, cpuSeconds: 45 })).toBe(false);
    expect(movedNoticeably(base, { ...base, cpu: 12.9 })).toBe(false);
    // 3 MB of 300 MB is 1 %: under the 2 % step.
    expect(movedNoticeably(base, { ...base, rss: 303e6 })).toBe(false);
    // 500 kB of 10 MB is 5 %, but under 1 MB.
    expect(movedNoticeably({ ...base, rss: 10e6 }, { ...base, rss: 10.5e6 })).toBe(false);
  });
  it("pushes a point of CPU, 1 MB and 2 % of memory, any change of processes", () => {
    expect(movedNoticeably(base, { ...base, cpu: 13 })).toBe(true);
    expect(movedNoticeably(base, { ...base, rss: 307e6 })).toBe(true);
    expect(movedNoticeably(base, { ...base, pss: 240e6 })).toBe(true);
    expect(movedNoticeably(base, { ...base, procs: 4 })).toBe(true);
    expect(movedNoticeably({ ...base, pss: null }, base)).toBe(true);
  });
});

const row = (id: string, name: string, res: typeof base | null) =>
  ({
    id,
    name,
    view: "working",
    state: "working",
    life: "running",
    exitCode: null,
    resources: res && { ...res, activeAt: null },
  }) as any;

describe("the resources' words", () => {
  it("says memory and CPU shortly", () => {
    expect(bytesText(340_123_456)).toBe("340 MB");
    expect(bytesText(1_234_000_000)).toBe("1.2 GB");
    expect(bytesText(900_000)).toBe("900 kB");
    expect(bytesText(null)).toBe("-");
    expect(cpuText(0.44)).toBe("0.4%");
    expect(cpuText(230.4)).toBe("230%");
    expect(cpuText(0)).toBe("0%");
    expect(resourcesText(row("j1", "a", base))).toBe("cpu 12% · 300 MB");
    expect(resourcesText(row("j1", "a", null))).toBeNull();
    expect(cpuTime(65)).toBe("1:05");
    expect(cpuTime(3725)).toBe("1:02:05");
  });

  it("sorts by CPU or memory, most first, those without after; sums the running", () => {
    const rows = [
      row("j1", "idle", null),
      row("j2", "small", { ...base, cpu: 1, pss: 10e6 }),
      row("j3", "big", { ...base, cpu: 0.5, pss: 900e6 }),
      row("j4", "busy", { ...base, cpu: 95, pss: 50e6 }),
    ];
    expect(byResources(rows, "cpu").map((r) => r.id)).toEqual(["j4", "j2", "j3", "j1"]);
    expect(byResources(rows, "mem").map((r) => r.id)).toEqual(["j3", "j4", "j2", "j1"]);
    expect(resourceTotals(rows)).toEqual({ cpu: 96.5, rss: 900e6, procs: 9, jobs: 3 });
    const lines = topLines(rows, { sort: "name", width: 100, now: 0 });
    expect(lines[0]).toBe("roost top: 3 running of 4 jobs · cpu 97% · 900 MB · 9 processes · sorted by name");
    expect(lines.slice(3).map((l) => l.split(/\s+/)[1])).toEqual(["big", "busy", "small"]);
  });
});
