/**
 * roost.json's notify hooks (docs/notify.md), against a real daemon and a real HTTP server the test
 * runs: a row that comes to be blocked, then done, is posted to each hook in its format (json,
 * ntfy, slack), once per change; a hook that answers 500 is sent again and takes it; no payload
 * holds the hub's token or the job's; `roost notify test` sends each hook a test event and says
 * how each went; a bad hook in roost.json stops the daemon at start, saying what to write.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INERT, type Session, session } from "../helpers/board.js";
import { json, needsBuild, roost } from "../helpers/cli.js";
import { daemonRefusal, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { daemonEnv } from "../helpers/daemon-process.js";
import { rmTemp, tempDir } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";

beforeAll(needsBuild);

interface Received {
  path: string;
  raw: string;
  body: any;
}

/** A hooks' server: what each path was sent, in order; `/fail-once` answers its first POST 500. */
class HookServer {
  readonly received: Received[] = [];
  private failed = false;
  readonly server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8").on("data", (s: string) => {
      raw += s;
    });
    req.on("end", () => {
      this.received.push({ path: req.url ?? "", raw, body: JSON.parse(raw) });
      if (req.url === "/fail-once" && !this.failed) {
        this.failed = true;
        res.writeHead(500).end("not now");
      } else res.writeHead(200).end("ok");
    });
  });
  base = "";

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  at(p: string): Received[] {
    return this.received.filter((r) => r.path === p);
  }
}

const hooks = new HookServer();
let d: TestDaemon;
let c: RawClient;
let hub: string;

beforeAll(async () => {
  await hooks.listen();
  d = await startDaemon({
    config: {
      agentProfiles: { inert: INERT },
      notify: [
        { url: `${hooks.base}/json`, events: ["blocked", "done"] },
        { url: `${hooks.base}/ntfy/roost-topic`, format: "ntfy" },
        { url: `${hooks.base}/slack`, format: "slack", events: ["blocked"] },
        { url: `${hooks.base}/fail-once`, events: ["blocked"] },
      ],
    },
  });
  c = await d.client();
  hub = /^ {2}hub (\S+)$/m.exec(d.output)![1]!;
});
afterAll(async () => {
  await d?.cleanup();
  hooks.server.close();
});

describe("notify hooks", () => {
  let agent: Session;

  it("a blocked row is posted to each hook in its format; a 500 is tried again; done follows", async () => {
    agent = await session(d, c, "deploy-3");
    await agent.c.ok("report", {
      id: agent.id,
      token: agent.token,
      report: { state: "blocked", question: "Deploy to production?", choices: ["yes", "no"] },
    });
    const link = `${hub}#/jobs/${agent.id}`;
    const [asJson] = await until("the json hook", () =>
      hooks.at("/json").length ? hooks.at("/json") : undefined,
    );
    expect(asJson!.body).toMatchObject({
      event: "blocked",
      link,
      row: {
        id: agent.id,
        name: "deploy-3",
        state: "blocked",
        question: "Deploy to production?",
        choices: ["yes", "no"],
      },
    });
    expect(Object.keys(asJson!.body).sort()).toEqual(["event", "link", "row"]);

    // ntfy's JSON publish: to the server's root, the topic in the body.
    const [asNtfy] = await until("the ntfy hook", () =>
      hooks.at("/ntfy").length ? hooks.at("/ntfy") : undefined,
    );
    expect(asNtfy!.body).toEqual({
      topic: "roost-topic",
      title: `${agent.id} "deploy-3" is blocked`,
      message: "Deploy to production? [yes | no]",
      tags: ["question"],
      priority: 4,
      click: link,
    });

    const [asSlack] = await until("the slack hook", () =>
      hooks.at("/slack").length ? hooks.at("/slack") : undefined,
    );
    expect(asSlack!.body.text).toBe(`${agent.id} "deploy-3" is blocked: Deploy to production? [yes | no]`);
    expect(asSlack!.body.blocks).toEqual([
      {
        type: "section",
        text: {
          type: "mrkdwn",
          text: `*${agent.id} "deploy-3" is blocked*\nDeploy to production? [yes | no]`,
        },
      },
      { type: "context", elements: [{ type: "mrkdwn", text: `<${link}|Open in roost>` }] },
    ]);

    // Answered 500 first: sent again (after a second), and taken.
    const tries = await until("the second attempt", () =>
      hooks.at("/fail-once").length >= 2 ? hooks.at("/fail-once") : undefined,
    );
    expect(tries).toHaveLength(2);
    expect(tries[1]!.raw).toBe(tries[0]!.raw);

    // Done: to the hooks that ask for it (json, ntfy), not to those that do not (slack).
    await agent.c.ok("report", {
      id: agent.id,
      token: agent.token,
      report: { state: "done", summary: "deployed" },
    });
    await until("done on the json hook", () => hooks.at("/json").length === 2);
    expect(hooks.at("/json")[1]!.body).toMatchObject({
      event: "done",
      row: { id: agent.id, summary: "deployed" },
    });
    await until("done on the ntfy hook", () => hooks.at("/ntfy").length === 2);
    expect(hooks.at("/ntfy")[1]!.body).toMatchObject({
      title: `${agent.id} "deploy-3" is your turn`,
      message: "deployed",
    });
    // The same state said again sends nothing; a new question sends again (and shows the first did not).
    await agent.c.ok("report", {
      id: agent.id,
      token: agent.token,
      report: { state: "done", summary: "deployed, twice" },
    });
    await agent.c.ok("report", {
      id: agent.id,
      token: agent.token,
      report: { state: "blocked", question: "Roll back?", choices: ["yes", "no"] },
    });
    await until("the new question on the json hook", () => hooks.at("/json").length >= 3);
    expect(hooks.at("/json").map((r) => r.body.event)).toEqual(["blocked", "done", "blocked"]);
    expect(hooks.at("/json")[2]!.body.row.question).toBe("Roll back?");
    await until("the new question on the slack hook", () => hooks.at("/slack").length === 2);
  });

  it("no payload holds the hub's token or the job's", () => {
    const owner = fs.readFileSync(path.join(d.home, "token"), "utf8").trim();
    expect(owner.length).toBeGreaterThan(10);
    expect(hooks.received.length).toBeGreaterThan(5);
    for (const r of hooks.received) {
      expect(r.raw).not.toContain(owner);
      expect(r.raw).not.toContain(agent.token);
      expect(r.raw).not.toContain("token=");
    }
  });

  it("roost notify test sends a test event to each hook and says how each went", async () => {
    const before = hooks.received.length;
    const r = await roost(["notify", "test"], d.env);
    expect(r.code, r.stderr).toBe(0);
    const host = new URL(hooks.base).host;
    expect(r.stdout).toBe(
      [
        `hook 1 (json, ${host}): sent (200)`,
        `hook 2 (ntfy, ${host}): sent (200)`,
        `hook 3 (slack, ${host}): sent (200)`,
        `hook 4 (json, ${host}): sent (200)`,
        "",
      ].join("\n"),
    );
    const sent = hooks.received.slice(before);
    expect(sent).toHaveLength(4);
    expect(sent.find((x) => x.path === "/json")!.body).toMatchObject({ event: "test", row: null, link: hub });
    expect(sent.find((x) => x.path === "/ntfy")!.body).toMatchObject({
      topic: "roost-topic",
      tags: ["bell"],
    });
    // The op itself, on the socket: each hook's result, in roost.json's order.
    expect((await c.ok("notify-test", {})).hooks.map((h: { ok: boolean }) => h.ok)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect((await json(["notify", "test"], d.env)).hooks[0]).toEqual({
      hook: 1,
      format: "json",
      host,
      ok: true,
      status: 200,
      error: null,
    });
  });
});

describe("notify in roost.json", () => {
  it("a hook that cannot be sent stops the daemon at start, saying what to write; roost notify test says a failure", async () => {
    const home = tempDir();
    try {
      const write = (notify: unknown) =>
        fs.writeFileSync(path.join(home, "roost.json"), JSON.stringify({ notify }), { mode: 0o600 });
      write([{ url: "ntfy.sh/topic" }]);
      let r = await daemonRefusal(daemonEnv(home));
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        "notify[0].url: not a URL: write the whole address, https://ntfy.sh/my-topic",
      );
      write([{ url: "https://ntfy.sh/t", format: "teams" }]);
      r = await daemonRefusal(daemonEnv(home));
      expect(r.stderr).toContain('notify[0].format: "teams" is not a format roost sends: json, ntfy, slack');
      write([{ url: "https://ntfy.sh/t", events: ["blocked", "sometimes"] }]);
      r = await daemonRefusal(daemonEnv(home));
      expect(r.stderr).toContain('notify[0].events[1]: "sometimes" is not an event');
      // A hook's url is a secret (a Slack webhook's path): a roost.json others may read is refused.
      fs.chmodSync(path.join(home, "roost.json"), 0o644);
      write([{ url: "https://hooks.example.com/T0/B0/xyz" }]);
      fs.chmodSync(path.join(home, "roost.json"), 0o644);
      r = await daemonRefusal(daemonEnv(home));
      expect(r.stderr).toContain("notify[0].url");
      expect(r.stderr).toContain("chmod 600");
      expect(r.stderr).not.toContain("xyz");
    } finally {
      rmTemp(home);
    }
  });

  it("roost notify test: a hook that does not answer is said failed, exit 1", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const own = await startDaemon({
      config: { notify: [{ url: `http://127.0.0.1:${port}/gone`, format: "slack" }] },
    });
    try {
      const r = await roost(["notify", "test"], own.env);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(`hook 1 (slack, 127.0.0.1:${port}): failed: ECONNREFUSED\n`);
    } finally {
      await own.cleanup();
    }
  });
});
