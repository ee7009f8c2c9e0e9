/**
 * `roost remote add NAME URL | rm NAME | ls | reload`: the other daemons this one's hub shows
 * (roost.json's `remotes`; docs/fleet.md). `add` reads the remote's token from stdin (asked for,
 * unechoed, on a terminal), never from the command line, where the shell's history and `ps` would
 * keep it; it checks the token with the remote when it answers, and writes roost.json owner-only.
 */
import fs from "node:fs";
import path from "node:path";
import { readOwn } from "../../home.js";
import { LOCAL_DAEMON, roostPaths } from "../../paths.js";
import { hideForms } from "../../secrets.js";
import { CliError, type Command, out, printJson, UsageError } from "../command.js";
import { callOnce, NotRunning } from "../connect.js";

interface Remote {
  name: string;
  url: string;
  token: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,40}$/;

/** roost.json as it is (an object), and its remotes. */
function readConfig(file: string): { config: Record<string, unknown>; remotes: Remote[] } {
  const raw = readOwn(file);
  let config: unknown = {};
  if (raw !== null) {
    try {
      config = JSON.parse(raw);
    } catch (err) {
      throw new CliError(`${file}: not valid JSON (${(err as Error).message}): fix it first`);
    }
  }
  if (!config || typeof config !== "object" || Array.isArray(config))
    throw new CliError(`${file}: not a JSON object: fix it first`);
  const remotes = (config as { remotes?: unknown }).remotes ?? [];
  if (!Array.isArray(remotes)) throw new CliError(`${file}: remotes is not a list: fix it first`);
  return { config: config as Record<string, unknown>, remotes: remotes as Remote[] };
}

/** roost.json written whole, owner-only (it holds the remotes' tokens), by a rename. */
function writeConfig(file: string, config: Record<string, unknown>): void {
  const tmp = path.join(path.dirname(file), `.roost.json.${process.pid}.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  fs.renameSync(tmp, file);
}

/** A line from stdin: on a terminal asked for, and not echoed; else the first line piped in. */
async function readToken(name: string): Promise<string> {
  const { stdin, stderr } = process;
  const chars: string[] = [];
  if (stdin.isTTY) stderr.write(`${name}'s token (made there: roost token --name NAME; not shown): `);
  await new Promise<void>((resolve, reject) => {
    const raw = stdin.isTTY === true;
    if (raw) stdin.setRawMode(true);
    const done = (err?: Error) => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      if (raw) stdin.setRawMode(false);
      stdin.pause();
      if (raw) stderr.write("\n");
      if (err) reject(err);
      else resolve();
    };
    const onEnd = () => done();
    const onData = (chunk: Buffer) => {
      for (const c of chunk.toString("utf8")) {
        if (c === "\r" || c === "\n") return done();
        if (c === "\u0003") return done(new CliError("cancelled", 130));
        if (c === "\u007f" || c === "\b") chars.pop();
        else chars.push(c);
      }
    };
    stdin.on("data", onData);
    stdin.on("end", onEnd);
    stdin.resume();
  });
  return chars.join("").trim();
}

/**
 * The running daemon told to follow roost.json's remotes as they are now (`remotes-reload`): what
 * it follows, or null when no daemon runs (it reads them when it starts).
 */
async function reloaded(env: NodeJS.ProcessEnv): Promise<{ name: string; reachable: boolean }[] | null> {
  try {
    return (await callOnce(env, "remotes-reload", {})).remotes;
  } catch (err) {
    if (err instanceof NotRunning) return null;
    throw err;
  }
}

/** Says what the daemon does now about the remotes (a line), after roost.json changed. */
function sayReloaded(now: { name: string; reachable: boolean }[] | null): void {
  if (now === null) out("  roost is not running: it follows roost.json's remotes when it starts");
  else if (now.length === 0) out("  the daemon follows no remote now");
  else out(`  the daemon follows ${now.map((r) => r.name).join(", ")} now`);
}

/** Whether the remote takes the token: true, false (it refused it), or why it could not be asked. */
async function tokenWorks(url: string, token: string): Promise<true | false | string> {
  try {
    const res = await fetch(new URL("api/whoami", url.endsWith("/") ? url : `${url}/`), {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10000),
    });
    if (res.status === 401) return false;
    return res.ok ? true : `it answered HTTP ${res.status}`;
  } catch (err) {
    return (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
  }
}

export const remote: Command = {
  name: "remote",
  args: "add NAME URL | rm NAME | ls | reload",
  arity: [1, 3],
  summary:
    "Join other daemons to this one's hub: add one (its token read from stdin), remove one, list them.",
  details: [
    "add NAME URL: URL is the other daemon's HTTP face (through a tunnel: docs/fleet.md); its",
    "token, made on it (roost token --name NAME, or --read-only for one that may only look), is",
    "read from stdin, asked for unechoed on a terminal, so that it stays out of the shell's",
    "history. It is tried on the remote first: one the remote refuses is not written. roost.json",
    "keeps it (owner-only), and a running daemon follows it at once (no restart). NAME is",
    `letters, digits, _ . - (not "${LOCAL_DAEMON}"); its jobs are then NAME:ID here (roost ls,`,
    "reply, stop, attach). rm NAME: forgets it; the hub lets its rows go. ls: the remotes (never",
    "their tokens). reload: the daemon reads roost.json's remotes again, after an edit by hand.",
    "--json: {remotes: [{name, url}]} (reload: as the daemon follows them, {name, url, reachable,",
    "error}).",
  ].join("\n"),
  examples: [
    "roost remote add build https://build.example.ts.net/",
    "pass show roost/build | roost remote add build https://build.example.ts.net/",
    "roost remote ls",
    "roost remote rm build",
    "roost remote reload",
  ],
  async run({ positionals: [action, name, url], json, env }) {
    const file = roostPaths(env).config;
    const { config, remotes } = readConfig(file);
    // As the daemon shows them: a token in a url (`?token=`, `user:pw@`) left out (secrets.ts).
    const listed = () => remotes.map((r) => ({ name: r.name, url: hideForms(r.url) }));
    if (action === "ls") {
      if (name !== undefined) throw new UsageError("remote ls takes no NAME");
      if (json) printJson({ remotes: listed() });
      else if (remotes.length === 0) out("no remotes: roost remote add NAME URL joins one");
      else for (const r of listed()) out(`${r.name.padEnd(20)} ${r.url}`);
      return 0;
    }
    if (action === "reload") {
      if (name !== undefined) throw new UsageError("remote reload takes no NAME");
      const now = await callOnce(env, "remotes-reload", {});
      if (json) printJson(now);
      else if (now.remotes.length === 0) out("the daemon follows no remote");
      else
        for (const r of now.remotes)
          out(`${r.name.padEnd(20)} ${r.url}${r.reachable ? "" : `  (${r.error ?? "not answering"})`}`);
      return 0;
    }
    if (action === "rm") {
      if (name === undefined || url !== undefined) throw new UsageError("remote rm takes one NAME");
      if (!remotes.some((r) => r.name === name))
        throw new CliError(`no remote named ${name}: roost remote ls lists them`);
      writeConfig(file, { ...config, remotes: remotes.filter((r) => r.name !== name) });
      const now = await reloaded(env);
      if (json) printJson({ remotes: listed().filter((r) => r.name !== name) });
      else {
        out(`removed ${name} from ${file}`);
        sayReloaded(now);
      }
      return 0;
    }
    if (action !== "add") throw new UsageError(`no action ${JSON.stringify(action)}: add, rm, ls or reload`);
    if (name === undefined || url === undefined) throw new UsageError("remote add takes NAME and URL");
    if (!NAME.test(name) || name === LOCAL_DAEMON)
      throw new UsageError(
        `NAME ${JSON.stringify(name)}: 1-40 letters, digits, _ . - (and not "${LOCAL_DAEMON}", this daemon's)`,
      );
    if (!/^https?:\/\/[^/]+/.test(url))
      throw new UsageError(`URL ${JSON.stringify(url)}: http(s)://HOST[:PORT]/`);
    if (remotes.some((r) => r.name === name))
      throw new CliError(`a remote is named ${name} already: roost remote rm ${name} first`);
    const token = await readToken(name);
    if (token === "")
      throw new CliError("no token read from stdin: make one on the remote (roost token --name NAME)");
    const works = await tokenWorks(url, token);
    if (works === false)
      throw new CliError(
        `${hideForms(url)} refused that token (401): make one there with roost token --name NAME`,
      );
    writeConfig(file, { ...config, remotes: [...remotes, { name, url, token }] });
    const now = await reloaded(env);
    if (json) printJson({ remotes: [...listed(), { name, url: hideForms(url) }] });
    else {
      out(`added ${name} (${hideForms(url)}) to ${file}`);
      if (works !== true) out(`  it did not answer now (${works}): the hub shows it greyed until it does`);
      sayReloaded(now);
    }
    return 0;
  },
};
