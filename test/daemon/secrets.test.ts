/**
 * Secrets in roost.json, in every form they take, stay secret. Found from an outside attack: a
 * board url with its password in the query (`postgres://roost@host/db?password=…`) was taken from
 * a roost.json others could read (only `user:pw@` was looked for), and once PostgreSQL stopped, a
 * read-only token's `GET /api/task?action=list` was answered with the url in clear, as were the
 * log and `roost start`. Each form here (the userinfo, `password=`, `sslpassword=`, an `sslkey`
 * path, a token in a remote's url, a key in a profile's env) counts for the 0600 rule, and none
 * is in an answer, the log, the feed or `roost start`'s output (with the board's PostgreSQL
 * stopped: test/postgres/secrets-board.test.ts).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";
import { hideForms, Secrets } from "../../server/secrets.js";
import { CLI, daemonRefusal, startDaemon, type TestDaemon } from "../helpers/daemon.js";
import { api } from "../helpers/http.js";
import { freePort } from "../helpers/processes.js";

const run = promisify(execFile);

/** Secrets no message would hold by chance: any of them found anywhere is a leak. */
const PASSWORD = "pw-Qz81xKv7";
const SSL_PASSWORD = "sslpw-Lm42Rt9";
const REMOTE_TOKEN = "rt-Hb63Nc5w";
const REMOTE_USER_PW = "rpw-Vd27Ks4e";
const REMOTE_BEARER = "bearer-Xp90Wq1z";
const PROFILE_PASSWORD = "ppw-Tc58Gy3n";

let home: string;
afterEach(() => {
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function writeConfig(config: unknown, mode: number): string {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-secrets-"));
  const file = path.join(home, "roost.json");
  fs.writeFileSync(file, JSON.stringify(config));
  fs.chmodSync(file, mode);
  return file;
}

describe("what a secret looks like (server/secrets.ts), one function for the 0600 rule and the redaction", () => {
  it("hides each form in a url, a libpq connection string or a message quoting one, and nothing else", () => {
    const cases: [string, string][] = [
      ["postgres://roost:pw@db/roost", "postgres://roost:***@db/roost"],
      [
        "postgres://roost@db/roost?sslmode=require&password=pw&x=1",
        "postgres://roost@db/roost?sslmode=require&password=***&x=1",
      ],
      [
        "postgres://roost@db/roost?sslpassword=pw&sslkey=/k/roost.key",
        "postgres://roost@db/roost?sslpassword=***&sslkey=***",
      ],
      ["host=db user=roost password='p w' dbname=roost", "host=db user=roost password=*** dbname=roost"],
      [
        "failed: https://TOKEN@far.example/api and wss://u:pw@far/x",
        "failed: https://***@far.example/api and wss://u:***@far/x",
      ],
      ["PGPASSWORD=pw psql --api-key=k", "PGPASSWORD=*** psql --api-key=***"],
      // A user alone is a name but in http(s): these say no secret.
      [
        "postgres://roost@db/roost ssh://git@github.com/x.git",
        "postgres://roost@db/roost ssh://git@github.com/x.git",
      ],
      ['password authentication failed for user "roost"', 'password authentication failed for user "roost"'],
    ];
    for (const [text, shown] of cases) expect(hideForms(text), text).toBe(shown);
  });

  it("hides roost.json's secrets by value too, bare or percent-encoded, longest first", () => {
    const secrets = new Secrets();
    secrets.learn(["p@ss%2Fword", "tok", "abcd"]);
    expect(secrets.redact("it said p@ss/word and p%40ss%2Fword; abcdef")).toBe("it said *** and ***; ***ef");
    expect(secrets.redact("a tok is too short to hide bare")).toBe("a tok is too short to hide bare");
  });
});

describe("the 0600 rule counts every credential form", () => {
  const forms: [string, unknown, string, string][] = [
    [
      "a password in the board url's query",
      { board: { url: `postgres://roost@db/roost?password=${PASSWORD}` } },
      "board.url's password",
      PASSWORD,
    ],
    [
      "an sslpassword in the board url's query",
      { board: { url: `postgres://roost@db/roost?sslmode=require&sslpassword=${SSL_PASSWORD}` } },
      "board.url's sslpassword",
      SSL_PASSWORD,
    ],
    [
      "an sslkey path in the board url's query",
      { board: { url: "postgres://roost@db/roost?sslkey=/home/me/.pg/roost.key" } },
      "board.url's sslkey",
      "/home/me/.pg/roost.key",
    ],
    [
      "the board url's userinfo",
      { board: { url: `postgres://roost:${PASSWORD}@db/roost` } },
      "board.url's password",
      PASSWORD,
    ],
    [
      "a token in a remote's url",
      { remotes: [{ name: "far", url: `https://far.example/?token=${REMOTE_TOKEN}`, token: "t" }] },
      "remotes[0].url's token",
      REMOTE_TOKEN,
    ],
    [
      "a password in a profile's command",
      { agentProfiles: { mine: { command: ["psql", `--password=${PASSWORD}`] } } },
      "agentProfiles.mine.command[1]'s --password",
      PASSWORD,
    ],
    [
      "a key in a profile's env",
      { agentProfiles: { mine: { command: ["x"], env: { ANTHROPIC_API_KEY: REMOTE_BEARER } } } },
      "agentProfiles.mine.env.ANTHROPIC_API_KEY",
      REMOTE_BEARER,
    ],
  ];
  for (const [what, config, named, secret] of forms) {
    it(`${what}: refused when others may read roost.json, saying what and never the secret; 0600 taken`, () => {
      const file = writeConfig(config, 0o644);
      let err: unknown;
      try {
        loadConfig(file, {});
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain(named);
      expect((err as Error).message).toContain(`others may read it (mode 0644): chmod 600 ${file}`);
      expect((err as Error).message).not.toContain(secret);
      fs.chmodSync(file, 0o600);
      expect(() => loadConfig(file, {})).not.toThrow();
    });
  }

  it("a board url with its password in the query keeps a real daemon from starting when roost.json is 0644: exit 2, never the password", async () => {
    writeConfig({ board: { url: `postgres://roost@127.0.0.1:1/roost?password=${PASSWORD}` } }, 0o644);
    const r = await daemonRefusal({ ...process.env, ROOST_HOME: home, ROOST_PORT: "0" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("board.url's password");
    expect(r.stderr).toContain("chmod 600");
    expect(`${r.stdout}${r.stderr}`).not.toContain(PASSWORD);
  });
});

describe("a remote whose url holds a token, a profile whose command holds a password", () => {
  let d: TestDaemon;
  beforeAll(async () => {
    const port = await freePort(); // nothing listens there: the remotes never answer
    d = await startDaemon({
      config: {
        remotes: [
          { name: "far", url: `http://127.0.0.1:${port}/?token=${REMOTE_TOKEN}`, token: REMOTE_BEARER },
          { name: "farther", url: `http://roost:${REMOTE_USER_PW}@127.0.0.1:${port}/`, token: REMOTE_BEARER },
        ],
        agentProfiles: { psql: { command: ["psql", `postgres://me:${PROFILE_PASSWORD}@db/x`] } },
      },
    });
  });
  afterAll(async () => d?.cleanup());

  it("are never in a read-only token's answers, the hub's remotes and profiles, the feed, the log or roost remote ls", async () => {
    const hub = await d.client();
    const made = await hub.ok("token", { action: "create", name: "dash", readOnly: true });
    const readOnly = new URL(made.link).searchParams.get("token")!;
    const said: string[] = [];
    for (const id of ["far:j1", "farther:j1"]) {
      const relayed = await api(d, "list", { id }, { token: readOnly, method: "GET" });
      expect(relayed.body).toMatchObject({ ok: false, code: "busy" });
      expect(relayed.body.error).toContain("did not answer");
      said.push(JSON.stringify(relayed.body));
    }
    const subscribed = await hub.ok("subscribe", {});
    expect(subscribed.remotes.map((r: any) => r.name)).toEqual(["far", "farther"]);
    said.push(JSON.stringify(subscribed.remotes));
    said.push(JSON.stringify((await hub.ok("remotes-reload", {})).remotes));
    said.push(
      JSON.stringify((await api(d, "events", { limit: 500 }, { token: readOnly, method: "GET" })).body),
    );
    const profiles = await api(d, "profiles", {}, { token: readOnly, method: "GET" });
    const psql = profiles.body.result.profiles.find((p: any) => p.name === "psql");
    expect(psql.command).toEqual(["psql", "postgres://me:***@db/x"]);
    said.push(JSON.stringify(profiles.body));
    for (const args of [
      ["remote", "ls"],
      ["remote", "ls", "--json"],
    ]) {
      const listed = await run(process.execPath, [CLI, ...args], { env: d.env });
      expect(listed.stdout).toContain("far");
      said.push(listed.stdout + listed.stderr);
    }
    said.push(d.output);
    for (const text of said)
      for (const secret of [REMOTE_TOKEN, REMOTE_USER_PW, REMOTE_BEARER, PROFILE_PASSWORD])
        expect(text).not.toContain(secret);
  });
});
