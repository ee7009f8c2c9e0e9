/**
 * A terminal Claude Code job's conversation, from the transcript its hooks name: `roost hook claude
 * EVENT` sends what the transcript gained since the last hook (server/cli/hooks/claude-conversation.ts)
 * as the job's conversation entries: the prompt, the thinking, the words, the tool call with its
 * input and its result; a hook run again sends nothing twice, a line half written waits.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { bashProfile, jobDir, procEnv, tempDir, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

const line = (o: object) => `${JSON.stringify(o)}\n`;
const at = "2026-12-05T08:00:00.000Z";
const TRANSCRIPT = [
  { type: "user", isSidechain: false, timestamp: at, message: { role: "user", content: "write made.txt" } },
  { type: "user", isMeta: true, message: { role: "user", content: "<command-name>/clear</command-name>" } },
  {
    type: "assistant",
    timestamp: at,
    message: {
      id: "msg_1",
      role: "assistant",
      content: [
        { type: "thinking", thinking: "A file, then." },
        { type: "text", text: "I'll write it." },
      ],
    },
  },
  {
    type: "assistant",
    message: {
      id: "msg_2",
      role: "assistant",
      content: [
        { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo hello > made.txt" } },
      ],
    },
  },
  {
    type: "user",
    message: {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [{ type: "text", text: "done" }],
          is_error: false,
        },
      ],
    },
  },
  {
    type: "assistant",
    message: {
      id: "msg_3",
      role: "assistant",
      content: [{ type: "text", text: "All done: wrote made.txt" }],
    },
  },
]
  .map(line)
  .join("");

/** `roost hook claude EVENT` as Claude Code runs it in the job: its input on stdin. */
function hook(env: Record<string, string>, event: string, input: object): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [CLI, "hook", "claude", event], { env }, (err) =>
      err ? reject(err) : resolve(),
    );
    child.stdin?.end(JSON.stringify(input));
  });
}

describe("a terminal Claude Code job's conversation, from its transcript", () => {
  let d: TestDaemon;
  let hub: RawClient;
  let dir: string;
  beforeAll(async () => {
    d = await startDaemon({ config: { agentProfiles: { term: bashProfile() } } });
    hub = await d.client();
    dir = tempDir();
  });
  afterAll(async () => {
    await d?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("each hook sends what the transcript gained, once; a half-written line waits for the next", async () => {
    const { job } = await hub.ok("dispatch", { profile: "term", cwd: dir });
    const r = await untilRow(hub, job.id, "running", (x) => x.life === "running" && x.pid);
    const jobEnv = await until("the job's environment", () => {
      const e = procEnv(r.pid);
      return e.ROOST_JOB_ID === job.id ? e : undefined;
    });
    const env = {
      ...process.env,
      ROOST_HOME: d.home,
      ROOST_SOCKET: jobEnv.ROOST_SOCKET!,
      ROOST_JOB_ID: job.id,
      ROOST_JOB_TOKEN: jobEnv.ROOST_JOB_TOKEN!,
      ROOST_JOB_DIR: jobDir(d, job.id),
    } as Record<string, string>;
    const transcript = path.join(dir, "session.jsonl");
    fs.writeFileSync(transcript, TRANSCRIPT);
    const input = { session_id: "s1", transcript_path: transcript, cwd: dir, hook_event_name: "Stop" };

    await hook(env, "Stop", input);
    const { entries } = await hub.ok("conversation", { id: job.id });
    expect(entries.map((e: any) => [e.kind, e.role ?? e.tool?.status, e.text ?? e.tool?.output])).toEqual([
      ["message", "user", "write made.txt"],
      ["thinking", "agent", "A file, then."],
      ["message", "agent", "I'll write it."],
      ["tool", "running", "echo hello > made.txt"],
      ["tool", "completed", "done"],
      ["message", "agent", "All done: wrote made.txt"],
    ]);
    expect(entries[0].at).toBe(Date.parse(at));
    expect(JSON.parse(entries[3].tool.input)).toEqual({ command: "echo hello > made.txt" });
    expect(entries[4].tool).toMatchObject({ id: "toolu_1", name: "Bash" });

    // Again with nothing new: nothing sent. A line and a half more: the whole one only.
    await hook(env, "Notification", { ...input, hook_event_name: "Notification" });
    fs.appendFileSync(
      transcript,
      `${line({ type: "user", message: { role: "user", content: "thanks" } })}{"type":"assistant","mess`,
    );
    await hook(env, "UserPromptSubmit", { ...input, hook_event_name: "UserPromptSubmit", prompt: "thanks" });
    const after = await hub.ok("conversation", { id: job.id });
    expect(after.entries.slice(6).map((e: any) => e.text)).toEqual(["thanks"]);
    expect(after.last).toBe(7);
  });
});
