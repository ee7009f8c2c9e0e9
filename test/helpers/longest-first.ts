/**
 * The order vitest runs the test files in (vitest.config.ts): one tier (project) after another,
 * the tier whose longest file is longest first, and in each tier the longest file first, by the
 * last run's time (vitest's cache), else by size.
 *
 * Why tiers whole: a worker goes on to the next file only when that file is of its own project;
 * else it is ended and another started, which loads every module its files import again. Files of
 * all tiers mixed ended 124 workers in a run (281 s of CPU), where tiers whole end a few per tier
 * (52 workers, 225 s). Why the longest tier first: vitest's own order ran the slow
 * terminal tests last, alone, on an idle machine; this way the unit tier's short files come last
 * and fill the workers as the run ends.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (spec: TestSpecification) => `${spec.project.name}:${relative(config.root, spec.moduleId)}`;
    const last = (spec: TestSpecification) => cache.getFileTestResults(key(spec));
    const size = (spec: TestSpecification) => cache.getFileStats(key(spec))?.size ?? 0;
    const ordered = [...files].sort((a, b) => {
      const [ra, rb] = [last(a), last(b)];
      if (ra && rb) {
        if (ra.failed !== rb.failed) return ra.failed ? -1 : 1; // failed first: the answer comes sooner
        return rb.duration - ra.duration;
      }
      if (!ra !== !rb) return ra ? 1 : -1; // a file never timed first: it may be the longest
      return size(b) - size(a);
    });
    // Each tier where its first file (its longest, or one that failed) is, its files after it.
    const tiers = [...new Set(ordered.map((spec) => spec.project.name))];
    return tiers.flatMap((tier) => ordered.filter((spec) => spec.project.name === tier));
  }
}
