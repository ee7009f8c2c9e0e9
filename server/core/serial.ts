/**
 * One at a time: each task starts once the one before it has settled (failed or not). Used where
 * two requests that cross must not both act: a job's life changes, and typing into its terminal.
 * Each job holds its own (registry.ts, `LiveJob`), so nothing is shared beyond the job.
 */
export class OneAtATime {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task);
    this.tail = run.catch(() => {});
    return run;
  }
}
