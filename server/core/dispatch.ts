/**
 * `dispatch` (control-plane.md, "The hub's ops"): a profile, a task, a new job; the first task of
 * a `type` profile is the job's reply seq 1, in the same commit as the job.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type OpArgs, RoostError, type Row } from "../../sdk/ts/protocol/index.js";
import { blockedPatterns } from "../config.js";
import { expandHome } from "../paths.js";
import type { JobRecord, Launch } from "../store/records.js";
import type { Core } from "./core.js";
import type { Actor } from "./feed.js";
import { DEFAULT_QUIET_MS, start } from "./lifecycle.js";
import { checkName } from "./names.js";
import { excerpt } from "./text.js";

export async function dispatch(
  core: Core,
  args: OpArgs<"dispatch">,
  actor: Actor,
): Promise<{ job: Row; duplicate?: boolean }> {
  if (args.requestId) {
    const id = core.store.jobForDispatchRequest(args.requestId);
    const existing = id ? core.registry.find(id) : undefined;
    if (existing) return { job: core.registry.row(existing), duplicate: true };
  }
  const profile = core.config.profiles.get(args.profile);
  if (!profile) {
    const known = [...core.config.profiles.keys()].sort().join(", ");
    throw new RoostError(
      "bad_request",
      `no profile ${JSON.stringify(args.profile)}; the profiles are: ${known}`,
    );
  }
  const cwd = checkCwd(args.cwd ?? profile.cwd ?? os.homedir());
  const name = args.name === undefined ? null : checkName(args.name);
  const taskMode = profile.task ?? "type";
  const task = args.task?.trim() ? args.task : undefined;
  const launch: Launch = {
    command: task !== undefined && taskMode === "argv" ? [...profile.command, task] : [...profile.command],
    cwd,
    env: profile.env ?? {},
    task: taskMode,
    protocol: profile.protocol ?? false,
    blockedPatterns: blockedPatterns(profile),
    quietMs: profile.quietMs ?? DEFAULT_QUIET_MS,
  };
  const now = new Date().toISOString();
  const firstReply = task !== undefined && taskMode === "type" ? { text: task, mode: null } : null;
  const rec = core.store.createJob((num) => {
    const record: JobRecord = {
      id: `j${num}`,
      token: randomBytes(24).toString("base64url"),
      profile: args.profile,
      launch,
      userName: name,
      defaultName: task !== undefined ? excerpt(task, 60) : args.profile,
      role: null,
      parent: null,
      pinned: false,
      order: core.registry.topOrder(),
      life: "starting",
      exitCode: null,
      pid: null,
      kind: "terminal",
      agent: null,
      capabilities: [],
      report: null,
      lastSeq: 0,
      dispatchRequestId: args.requestId ?? null,
      createdAt: now,
      startedAt: null,
      endedAt: null,
      updatedAt: now,
    };
    return record;
  }, firstReply);
  const job = core.registry.add(rec, firstReply ? 1 : 0);
  core.feed.record(
    rec.id,
    "dispatch",
    `${args.profile}${task !== undefined ? `: ${excerpt(task)}` : ""}`,
    actor,
  );
  await start(core, job);
  return { job: core.registry.row(job) };
}

function checkCwd(dir: string): string {
  const abs = expandHome(dir);
  if (!path.isAbsolute(abs))
    throw new RoostError("bad_request", `cwd ${JSON.stringify(dir)} must be an absolute path`);
  let isDir = false;
  try {
    isDir = fs.statSync(abs).isDirectory();
  } catch {}
  if (!isDir) throw new RoostError("bad_request", `cwd ${JSON.stringify(dir)} is not a directory`);
  return abs;
}
