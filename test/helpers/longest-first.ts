/**
 * The order vitest runs the test files in (vitest.config.ts): the longest first, whatever their
 * tier, by the last run's time (vitest's cache), else by size. Vitest's own order runs one project
 * (tier) after another, which left the slow terminal tests to run last, alone, on an idle machine.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (spec: TestSpecification) => `${spec.project.name}:${relative(config.root, spec.moduleId)}`;
    const last = (spec: TestSpecification) => cache.getFileTestResults(key(spec));
    const size = (spec: TestSpecification) => cache.getFileStats(key(spec))?.size ?? 0;
    return [...files].sort((a, b) => {
      const [ra, rb] = [last(a), last(b)];
      if (ra && rb) {
        if (ra.failed !== rb.failed) return ra.failed ? -1 : 1; // failed first: the answer comes sooner
        return rb.duration - ra.duration;
      }
      if (!ra !== !rb) return ra ? 1 : -1; // a file never timed first: it may be the longest
      return size(b) - size(a);
    });
  }
}
