/** The store tests' job: a shell job's record as `dispatch` makes it, numbered by the store. */
import { newJobRecord } from "../../server/core/jobs/new-job.js";
import type { JobRecord } from "../../server/store/records.js";

export const shellJob = (num: number, dispatchRequestId: string | null = null): JobRecord =>
  newJobRecord({
    id: `j${num}`,
    token: "t",
    profile: "shell",
    launch: { command: ["bash"], cwd: "/tmp", env: {}, task: "type", protocol: false },
    defaultName: "shell",
    order: 0,
    dispatchRequestId,
  });
