/**
 * A daemon that starts finds its jobs again (docs/design.md, "Jobs outlive the daemon").
 */
import fs from "node:fs";
import path from "node:path";
import { readOwn } from "../../home.js";
import { jobDir } from "../../paths.js";
import type { Core, ExitInfo, Terminals } from "../core.js";
import { ROOST } from "../feed.js";
import { ended, isEnded, type LiveJob, onExit, start, terminalStarted } from "../jobs/index.js";
import { onScreen } from "./screens.js";

/**
 * At daemon start, or when the pty host went away (`hostLostAt`, when): every job the store has as
 * live is matched with the pty host's terminals.
 * Live ones stay running (their agents reconnect); the exits the host kept, or wrote to the job's
 * directory, are taken once each; a job whose terminal is gone for good is failed, with why.
 */
export async function findJobsAgain(core: Core, opts: { hostLostAt?: string } = {}): Promise<void> {
  // The pty host went away under a running daemon: only the jobs it held are looked for, as they
  // were. One starting now, or started again while the next host came up, is its start's
  // (lifecycle.ts, which tries again on the next host); a foreground pi never was the host's.
  const held = opts.hostLostAt
    ? new Map(
        core.registry
          .all()
          .filter((j) => j.rec.life === "running" && j.rec.kind !== "foreground")
          .map((j) => [j, j.rec.pid]),
      )
    : null;
  // A daemon that starts with no job to find, and no host left running to ask, starts no host:
  // the first job's start does (host-link.ts connects on demand). A daemon that is only looked at
  // (the hub, the board, the CLI) costs no second process.
  if (!held && !fs.existsSync(core.paths.ptySocket) && core.registry.all().every(isEnded)) return;
  const terminals = await core.terminals();
  const { live, exited } = await terminals.list();
  const liveIds = new Map(live.map((l) => [l.jobId, l.pid]));
  for (const info of exited) {
    onExit(core, info);
    await terminals.forget(info.jobId);
  }
  // The jobs still running are written in one transaction: a daemon with hundreds of them would
  // otherwise make two commits for each (its row, its feed entry) before its socket opens.
  const gone = core.store.batch(() => {
    const notRunning: LiveJob[] = [];
    for (const job of core.registry.all()) {
      if (isEnded(job)) continue;
      if (held && (!held.has(job) || held.get(job) !== job.rec.pid)) continue;
      const pid = liveIds.get(job.rec.id);
      if (job.rec.kind === "foreground") {
        core.peers.foreground.disconnected(core, job); // its pi reconnects within the grace, or it exited
      } else if (pid !== undefined) foundRunning(core, terminals, job, pid);
      else notRunning.push(job);
    }
    return notRunning;
  });
  for (const job of gone) {
    const saved = readExitFile(core, job.rec.id);
    if (saved) onExit(core, saved);
    else
      ended(
        core,
        job,
        null,
        "its terminal is gone (the pty host ended or the machine restarted); respawn starts it again",
      );
    // A reply that came after the host went away came to a job that had ended, which roost did
    // not know yet: as any reply to an ended job, it starts the job again (reply.ts). Left
    // waiting, it would be taken only when some later reply started the job.
    const since = opts.hostLostAt;
    if (since && core.store.pendingReplies(job.rec.id).some((r) => r.at >= since)) {
      await start(core, job).catch((err) =>
        console.error(`roost: ${job.rec.id} could not start again for its waiting reply:`, err),
      );
    }
  }
}

/** A job whose terminal the host still has: running as it was, its row from its screen. */
function foundRunning(core: Core, terminals: Terminals, job: LiveJob, pid: number): void {
  // Running as it was: not a change of its content (a job the daemon left starting is one).
  const same = job.rec.life === "running";
  job.rec.pid = pid;
  job.rec.life = "running";
  if (same) core.registry.noted(job, true);
  else core.registry.changed(job, true);
  // Its row from its screen as it is now, and (a terminal agent) its waiting replies typed.
  if (!job.rec.launch.protocol) terminalStarted(core, job, false);
  void terminals.screen(job.rec.id).then(
    (state) => onScreen(core, state),
    () => {},
  );
  core.feed.record(job.rec.id, "restart", `found running after a daemon restart (pid ${pid})`, ROOST);
}

function readExitFile(core: Core, jobId: string): ExitInfo | null {
  try {
    const file = path.join(jobDir(core.paths, jobId), "exit.json");
    const data = JSON.parse(readOwn(file) ?? "") as {
      exitCode: number | null;
      signal: number | null;
      at?: string;
      leftovers?: number;
    };
    const leftovers = Number.isInteger(data.leftovers) ? data.leftovers : undefined;
    return { jobId, exitCode: data.exitCode, signal: data.signal, at: data.at, leftovers };
  } catch {
    return null;
  }
}
