/**
 * A shared board's url keeps its secret when PostgreSQL stops (the rest of the secrets' tests:
 * test/daemon/secrets.test.ts). Found from an outside attack: once PostgreSQL stopped, a read-only
 * token's `GET /api/task?action=list` was answered with the url in clear, as were the log and
 * `roost start`.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, startDaemon, type TestDaemon, until } from "../helpers/daemon.js";
import { api } from "../helpers/http.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { killPtyHost } from "../helpers/processes.js";

const run = promisify(execFile);

const PASSWORD = "pw-Qz81xKv7";
const SSL_PASSWORD = "sslpw-Lm42Rt9";

describe("with the board's PostgreSQL stopped", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.cleanup());

  const forms: [string, (url: string) => string, string][] = [
    ["a password in the url's query", (url) => `${url}?password=${PASSWORD}`, PASSWORD],
    ["an sslpassword in the url's query", (url) => `${url}?sslpassword=${SSL_PASSWORD}`, SSL_PASSWORD],
    ["the url's userinfo", (url) => url.replace("postgres@", `postgres:${PASSWORD}@`), PASSWORD],
  ];
  for (const [i, [what, withSecret, secret]] of forms.entries()) {
    it(`${what}: a read-only token's GET /api/task?action=list, a session's task, the log, the feed and roost start never hold it`, async () => {
      const url = withSecret(await pg.database(`secrets${i}`));
      let d: TestDaemon | undefined;
      let stopped = false;
      try {
        d = await startDaemon({ config: { board: { url, name: "here", leaseMs: 1000 } } });
        const hub = await d.client();
        expect((await hub.ok("task", { action: "add", title: "a task" })).task.id).toBe(1);
        const made = await hub.ok("token", { action: "create", name: "dash", readOnly: true });
        const readOnly = new URL(made.link).searchParams.get("token")!;
        const { job } = await hub.ok("dispatch", { profile: "shell", name: "a session" });

        pg.stop();
        stopped = true;
        const byHttp = await api(d, "task", { action: "list" }, { token: readOnly, method: "GET" });
        expect(byHttp.body).toMatchObject({ ok: false, code: "busy" });
        expect(byHttp.body.error).toContain("did not answer");
        expect(JSON.stringify(byHttp.body)).not.toContain(secret);
        const bySocket = await hub.request("task", { action: "add", title: "another" });
        expect(bySocket).toMatchObject({ ok: false, code: "busy" });
        expect(JSON.stringify(bySocket)).not.toContain(secret);
        // The lease's renewals fail meanwhile, and say so in the log.
        await until("a failed renewal in the log", () => d!.output.includes("could not renew"));
        const events = await api(d, "events", { limit: 500 }, { token: readOnly, method: "GET" });
        expect(events.body.ok).toBe(true);
        expect(JSON.stringify(events.body)).not.toContain(secret);
        expect(d.output).not.toContain(secret);
        await hub.ok("rm", { id: job.id });

        // `roost start` while the database does not answer: the daemon refuses, and says why.
        await d.kill("SIGTERM");
        const started = await run(process.execPath, [CLI, "start"], { env: d.env }).catch((e) => e);
        expect(started.code).toBe(1);
        expect(started.stderr).toContain("did not answer");
        expect(`${started.stdout}${started.stderr}`).not.toContain(secret);
        expect(fs.readFileSync(path.join(d.home, "daemon.log"), "utf8")).not.toContain(secret);
      } finally {
        if (d) killPtyHost(d.home);
        await d?.cleanup();
        if (stopped) pg.start(); // for the next form
      }
    });
  }
});
