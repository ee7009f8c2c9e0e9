/**
 * The notify hooks' sending (server/core/notify/), in the test's process against an HTTP server
 * it runs: a hook that never takes an event is tried 1 + the backoff's length times, then given
 * up with a feed entry that names it by its place (never its url); the events a hook asks for.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../../../sdk/ts/protocol/index.js";
import { Notify } from "../../../server/core/notify/index.js";
import { wants } from "../../../server/notify-config.js";

let hits = 0;
/** What `/ok` was sent; anything else is answered 503. */
const taken: { path: string; body: any }[] = [];
const server = http.createServer((req, res) => {
  let raw = "";
  req.setEncoding("utf8").on("data", (s: string) => {
    raw += s;
  });
  req.on("end", () => {
    if (req.url?.startsWith("/ok")) {
      taken.push({ path: req.url, body: JSON.parse(raw) });
      res.writeHead(200).end();
    } else {
      hits++;
      res.writeHead(503).end();
    }
  });
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const blockedRow = {
  id: "j4",
  name: "deploy",
  life: "running",
  state: "blocked",
  status: "waiting",
  exitCode: null,
  question: "Go on?",
  choices: ["yes", "no"],
} as unknown as Row;

describe("notify", () => {
  it("a hook that never takes it is tried again after each wait, then given up in the log and the feed", async () => {
    const said: string[] = [];
    const notify = new Notify(
      [{ url: `${base}/hook?key=s3cret`, events: ["blocked"] }],
      {
        hubUrl: async () => "http://127.0.0.1:7777/",
        feed: { record: (_id, _kind, text) => said.push(text) as never },
        redact: (t) => t,
      },
      [20, 20],
    );
    notify.rowChanged(() => blockedRow);
    notify.rowChanged(() => blockedRow); // the same question again: sent once
    await expect.poll(() => said.length, { timeout: 5000 }).toBe(1);
    expect(hits).toBe(3);
    expect(said[0]).toBe(
      `notify[0] (json, ${new URL(base).host}): gave up on a blocked event after 3 attempts: answered 503 Service Unavailable`,
    );
    expect(said[0]).not.toContain("s3cret");
  });

  it("a schedule that needs you: its own event, with the schedule and a link to the Schedules page", async () => {
    const notify = new Notify(
      [
        { url: `${base}/ok/json`, events: ["schedule"] },
        { url: `${base}/ok/ntfy/topic`, format: "ntfy", events: ["blocked"] },
        { url: `${base}/ok/slack`, format: "slack" },
      ],
      {
        hubUrl: async () => "http://127.0.0.1:7777/",
        feed: { record: () => ({}) as never },
        redact: (t) => t,
      },
    );
    const schedule = { id: "s2", name: "nightly", needsYou: "skipped 3 times: j13 still running" } as never;
    notify.scheduleNeedsYou(schedule);
    await expect.poll(() => taken.length, { timeout: 5000 }).toBe(2);
    // The ntfy hook asks for blocked alone: a test sent after shows it had nothing before.
    await notify.test();
    expect(taken.filter((t) => t.path === "/ok/ntfy").map((t) => t.body.tags)).toEqual([["bell"]]);
    const json = taken.find((t) => t.path === "/ok/json")!.body;
    expect(json).toEqual({
      event: "schedule-needs-you",
      row: null,
      schedule,
      link: "http://127.0.0.1:7777/#/schedules",
    });
    expect(taken.find((t) => t.path === "/ok/slack")!.body.text).toBe(
      'schedule s2 "nightly" needs you: skipped 3 times: j13 still running',
    );
  });

  it("a hook's events: none listed is every one; a kind's word stands for its events; test always", () => {
    const url = "https://ntfy.sh/t";
    expect(wants({ url }, "done")).toBe(true);
    expect(wants({ url, events: ["schedule"] }, "schedule-needs-you")).toBe(true);
    expect(wants({ url, events: ["schedule"] }, "blocked")).toBe(false);
    expect(wants({ url, events: ["blocked"] }, "test")).toBe(true);
  });
});
