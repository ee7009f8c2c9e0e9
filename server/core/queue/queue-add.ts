/**
 * What `queue-add` checks before anything is queued (docs/worktrees.md, "The merge queue"): each
 * job has a worktree, a branch and a target; a push names a remote the repository has; and no
 * target's checkout has uncommitted changes (the queue lands by fast-forwarding it there).
 */
import { type OpArgs, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { QueueRecord } from "../../store/queue.js";
import { checkoutOf, commitOf, git, isInside, listed, uncommitted } from "../worktrees/index.js";
import type { QueueParts } from "./queue.js";

export interface Planned {
  id: string;
  repo: string;
  branch: string;
  into: string;
}

export async function checkAdd(
  parts: Pick<QueueParts, "registry" | "worktreesDir">,
  args: OpArgs<"queue-add">,
  open: QueueRecord[],
): Promise<Planned[]> {
  if (args.push !== undefined && (args.push.startsWith("-") || /\s/.test(args.push)))
    throw badRemote(args.push);
  const planned: Planned[] = [];
  for (const given of args.ids) {
    const job = parts.registry.get(given);
    const id = job.rec.id;
    const wt = job.rec.worktree;
    if (!wt)
      throw new RoostError(
        "bad_request",
        `${id} has no worktree: the queue lands a worktree's branch (dispatch with worktree: true); nothing was queued`,
      );
    const into = args.into ?? wt.base;
    if (!into)
      throw new RoostError(
        "bad_request",
        `${wt.repo} was on a detached HEAD when ${id} started, so ${id} has no base branch: say which branch to land on (into); nothing was queued`,
      );
    if (planned.some((p) => p.id === id))
      throw new RoostError("bad_request", `${id} is named twice: name each job once; nothing was queued`);
    const queued = open.find((r) => r.id === id);
    if (queued)
      throw new RoostError(
        "conflict",
        `${id} is in the queue already (#${queued.n}, ${queued.state}): cancel it first (queue-cancel) to queue it again; nothing was queued`,
      );
    if (!(await commitOf(wt.repo, `refs/heads/${wt.branch}`)))
      throw new RoostError(
        "not_found",
        `${id}'s branch ${wt.branch} is gone from ${wt.repo}; nothing was queued`,
      );
    planned.push({ id, repo: wt.repo, branch: wt.branch, into });
  }
  const targets = new Map(planned.map((p) => [`${p.repo}\0${p.into}`, p]));
  for (const { repo, into } of targets.values()) {
    const intoRef = `refs/heads/${into}`;
    if (!(await commitOf(repo, intoRef)))
      throw new RoostError("not_found", `there is no branch ${into} in ${repo}; nothing was queued`);
    const where = await checkoutOf(repo, intoRef);
    if (where && isInside(parts.worktreesDir, where))
      throw new RoostError(
        "conflict",
        `${into} is checked out in ${where}, a job's worktree: roost runs no git there; check ${into} out elsewhere; nothing was queued`,
      );
    if (!where) continue;
    const dirty = await uncommitted(where);
    if (dirty.length > 0)
      throw new RoostError(
        "conflict",
        `${where}, where ${into} is checked out, has uncommitted changes (${listed(dirty)}): the queue lands by fast-forwarding ${into} there; commit or stash them, then queue again; nothing was queued`,
      );
  }
  if (args.push !== undefined) for (const { repo } of targets.values()) await checkRemote(repo, args.push);
  return planned;
}

/** A remote's name as git allows one (no leading '-', no whitespace), that the repository has. */
async function checkRemote(repo: string, remote: string): Promise<void> {
  if ((await git(repo, ["check-ref-format", `refs/remotes/${remote}/x`])).code !== 0) throw badRemote(remote);
  if ((await git(repo, ["config", "--get", `remote.${remote}.url`])).code !== 0)
    throw new RoostError(
      "bad_request",
      `push: ${repo} has no remote ${remote} (\`git remote -v\` there lists its remotes); nothing was queued`,
    );
}

const badRemote = (remote: string) =>
  new RoostError(
    "bad_request",
    `push: ${JSON.stringify(remote)} is not a remote's name (one word, not starting with '-', as \`git remote -v\` lists them); nothing was queued`,
  );
