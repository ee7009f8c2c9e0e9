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
const server = http.createServer((req, res) => {
  hits++;
  req.resume().on("end", () => res.writeHead(503).end());
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

  it("a hook's events: none listed is every one; a kind's word stands for its events; test always", () => {
    const url = "https://ntfy.sh/t";
    expect(wants({ url }, "done")).toBe(true);
    expect(wants({ url, events: ["schedule"] }, "schedule-needs-you")).toBe(true);
    expect(wants({ url, events: ["schedule"] }, "blocked")).toBe(false);
    expect(wants({ url, events: ["blocked"] }, "test")).toBe(true);
  });
});
