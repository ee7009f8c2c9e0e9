/**
 * Sessions for the task board's tests (test/board*.test.ts): inert protocol jobs (`sleep 600`)
 * spoken for by raw clients with the token roost gave each job, as test/daemon/peers.test.ts does; and
 * the concierge, a job whose role is "concierge" (set in the store while the daemon is down: the
 * concierge's own op is a later issue's).
 */
import path from "node:path";
import Database from "better-sqlite3";
import { expect } from "vitest";
import type { Roost, TestDaemon } from "./daemon.js";
import { until } from "./daemon.js";
import { procEnv, untilRow } from "./jobs.js";
import type { RawClient, Response } from "./raw-client.js";

export const INERT = { command: ["sleep", "600"], task: "type", protocol: true };

export interface Session {
  id: string;
  token: string;
  c: RawClient;
}

export async function tokenOf(hub: RawClient, id: string): Promise<string> {
  const r = await untilRow(hub, id, "running with a pid", (x) => x.life === "running" && x.pid);
  return until(`${id}'s token`, () => {
    const env = procEnv(r.pid);
    return env.ROOST_JOB_ID === id ? env.ROOST_JOB_TOKEN : undefined;
  });
}

/** A job of the `inert` profile that reported, taking peer items as such: its connection speaks for it. */
export async function session(
  d: Roost,
  hub: RawClient,
  name: string,
  opts: { id?: string; items?: boolean } = {},
): Promise<Session> {
  const id = opts.id ?? (await hub.ok("dispatch", { profile: "inert", name })).job.id;
  const token = await tokenOf(hub, id);
  const c = await d.client();
  await c.ok("hello", { protocol: 1, agent: { name: "raw", version: "0" }, capabilities: ["agent-items"] });
  await c.ok("report", {
    id,
    token,
    report: { state: "working", summary: name, agentItems: opts.items ?? true },
  });
  return { id, token, c };
}

/** A running inert job made the concierge: its role set in the store while the daemon is down. */
export async function makeConcierge(d: TestDaemon, hub: RawClient): Promise<string> {
  const { job } = await hub.ok("dispatch", { profile: "inert", name: "the-concierge" });
  await tokenOf(hub, job.id);
  await d.kill("SIGTERM");
  const db = new Database(path.join(d.home, "roost.db"));
  try {
    db.prepare("UPDATE jobs SET role = 'concierge' WHERE id = ?").run(job.id);
  } finally {
    db.close();
  }
  await d.start();
  return job.id;
}

export const deliveries = (s: Session) => s.c.events.filter((e) => e.event === "deliver" && e.id === s.id);
export const nextDelivery = (s: Session, n: number) =>
  s.c.waitFor(() => deliveries(s)[n - 1], `${s.id}'s delivery #${n}`);

export function expectError(r: Response, code: string, mention?: string | RegExp): void {
  expect(r.ok, JSON.stringify(r)).toBe(false);
  expect(r.code, JSON.stringify(r)).toBe(code);
  if (typeof mention === "string") expect(r.error).toContain(mention);
  else if (mention) expect(r.error).toMatch(mention);
}

/** `task` on a connection: the answer, as it came. */
export const task = (c: RawClient, args: Record<string, unknown>) => c.request("task", args);
/** `task`, expecting success: the result. */
export const taskOk = (c: RawClient, args: Record<string, unknown>) => c.ok("task", args);
/** Adds a task as the hub; its id. */
export const added = async (c: RawClient, title: string, extra: Record<string, unknown> = {}) =>
  (await c.ok("task", { action: "add", title, ...extra })).task.id as number;

/** The `task` entries of the feed about task #id, as `why: text`. */
export async function taskEntries(hub: RawClient, id: number): Promise<string[]> {
  const { events } = await hub.ok("events", { limit: 1000 });
  return events
    .filter((e: any) => e.kind === "task" && e.text.startsWith(`#${id} `))
    .map((e: any) => `${e.why}: ${e.text}`);
}
