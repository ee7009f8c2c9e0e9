/**
 * One at a time per key: each task starts once the one before it for the same key has settled
 * (failed or not). Used where two requests that cross must not both act (a job's life changes;
 * typing into a terminal).
 */
export function serialPer<K extends object>(): <T>(key: K, task: () => Promise<T>) => Promise<T> {
  const tails = new WeakMap<K, Promise<unknown>>();
  return (key, task) => {
    const run = (tails.get(key) ?? Promise.resolve()).then(task);
    tails.set(
      key,
      run.catch(() => {}),
    );
    return run;
  };
}
