/**
 * The merge queue's tests (test/daemon/queue*.test.ts): a daemon with git's identity, a `quiet`
 * profile for jobs that only hold a worktree, and a short wait between tries on a dirty target;
 * and a job whose branch has files committed on it by hand, as its agent would.
 */
import fs from "node:fs";
import path from "node:path";
import { startDaemon, type TestDaemon } from "./daemon.js";
import { GIT_IDENTITY, git } from "./git.js";
import { silentProfile } from "./jobs.js";
import type { RawClient } from "./raw-client.js";

export const startQueueDaemon = (): Promise<TestDaemon> =>
  startDaemon({
    env: { ...GIT_IDENTITY, ROOST_QUEUE_WAIT_MS: "200" },
    config: { agentProfiles: { quiet: silentProfile() } },
  });

/** A job in a worktree of `base`, with `files` committed on its branch. */
export async function committedJob(
  c: RawClient,
  base: string,
  files: Record<string, string>,
  message = Object.keys(files).join(" "),
): Promise<any> {
  const { job } = await c.ok("dispatch", { profile: "quiet", task: "work", cwd: base, worktree: true });
  for (const [name, text] of Object.entries(files))
    fs.writeFileSync(path.join(job.worktree.path, name), text);
  git(job.worktree.path, "add", "-A");
  git(job.worktree.path, "commit", "-q", "-m", message);
  return job;
}
