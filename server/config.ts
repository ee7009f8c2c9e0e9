/**
 * roost.json (docs/protocol.md, "roost.json"): optional; a bad one is refused at start with the
 * file, the path inside it and what is wrong. The daemon never starts on half a config.
 */
import fs from "node:fs";
import path from "node:path";
import Type, { type Static } from "typebox";
import {
  ANSWER_POLICIES,
  BudgetsConfig,
  HOOK_AGENTS,
  IdleStop,
  idleStopProblem,
  oneOf,
} from "../sdk/ts/protocol/index.js";
import { builtinProfiles } from "./builtin-profiles.js";
import { readOwn, UnsafeHome } from "./home.js";
import { hookProblem, NotifyHook } from "./notify-config.js";
import { LOCAL_DAEMON, PI_EXTENSION } from "./paths.js";
import { isSecretName, secretsIn } from "./secrets.js";
import { compileCheck } from "./validate.js";
import { PACKAGE_ROOT } from "./version.js";

const Profile = Type.Object({
  command: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  task: Type.Optional(oneOf(["type", "argv"] as const)),
  // true: the agent speaks roost's protocol itself; "acp": the Agent Client Protocol on its stdio,
  // which roost's ACP bridge speaks for it (docs/agents.md). `acp: true` says the same.
  protocol: Type.Optional(Type.Union([Type.Boolean(), Type.Literal("acp")])),
  acp: Type.Optional(Type.Boolean()),
  cwd: Type.Optional(Type.String({ minLength: 1 })),
  env: Type.Optional(Type.Record(Type.String(), Type.String())),
  description: Type.Optional(Type.String()),
  // A terminal agent's row is read from its screen: a line matching one of these (a regular
  // expression) turns it blocked, that line its question.
  blockedPattern: Type.Optional(
    Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }))]),
  ),
  // A terminal agent's row is `your turn` only while one of these (regular expressions) matches its
  // cursor's line before the cursor: its prompt (docs/terminals.md); absent, roost's defaults.
  promptPattern: Type.Optional(
    Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }))]),
  ),
  // How long without output before the row says idle (and a follow-up reply is typed).
  quietMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 600000 })),
  // The tools the agent holds and asks about through the row before they run (pi's extension
  // reads them from ROOST_APPROVE): `["bash", "write"]`, `["*"]` for every tool.
  // Each name is checked in loadConfig, which says what a tool's name may be.
  approve: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  // Each job of this profile in a git worktree of its own, unless its dispatch says worktree: false
  // (docs/worktrees.md).
  worktree: Type.Optional(Type.Boolean()),
  // A terminal agent that reads what is typed into it as a message (an agent CLI's prompt): peer
  // items may be typed into it. Not a shell, nor a plain program, where typed text would run.
  messages: Type.Optional(Type.Boolean()),
  // A terminal agent whose own hooks roost installs for each job (docs/agents.md): by default the
  // one its program is named after (`claude`, `codex`, `gemini`); false: none, its screen alone.
  hooks: Type.Optional(Type.Union([oneOf(HOOK_AGENTS), Type.Literal(false)])),
  // A scheduled run's job is stopped once its run is over (docs/protocol.md, "Schedules"); with
  // keep, this profile's jobs stay, as a schedule's `keep` says for its own.
  keep: Type.Optional(Type.Boolean()),
  // Each job of this profile in roost's sandbox (docs/security.md), unless its dispatch says
  // sandbox: false; `network: false` cuts its network, `writable` lists what it may write besides
  // its tree (the agent's own config and cache: `["~/.pi", "~/.cache"]`).
  sandbox: Type.Optional(Type.Boolean()),
  network: Type.Optional(Type.Boolean()),
  writable: Type.Optional(
    Type.Array(Type.String({ pattern: "^(~|~/.*|/.*)$", maxLength: 4096 }), { maxItems: 100 }),
  ),
  // Its jobs stopped once they had nothing to do this long ("2h"; false: never): docs/budgets.md.
  idleStop: Type.Optional(IdleStop),
});
export type Profile = Static<typeof Profile>;

const ConfigSchema = Type.Object({
  // Every job's idleStop, unless its profile or its dispatch says otherwise (docs/budgets.md): off by default.
  idleStop: Type.Optional(IdleStop),
  agentProfiles: Type.Optional(Type.Record(Type.String({ pattern: "^[A-Za-z0-9_.-]{1,100}$" }), Profile)),
  http: Type.Optional(
    Type.Object({
      host: Type.Optional(Type.String({ minLength: 1 })),
      port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
      allowedHosts: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
      allowedOrigins: Type.Optional(Type.Array(Type.String({ pattern: "^https?://[^/]+/?$" }))),
    }),
  ),
  // The concierge: the profile it runs (any protocol agent; default: pi, with roost's
  // concierge), and its policy at the start (the hub's changes are kept by the daemon after).
  concierge: Type.Optional(
    Type.Object(
      {
        profile: Type.Optional(Type.String({ minLength: 1 })),
        answer: Type.Optional(oneOf(ANSWER_POLICIES)),
        act: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  ),
  // Other daemons whose rows the hub shows among this one's (docs/fleet.md): each with a token made
  // on it (`roost remote add NAME URL` writes one, the token read from stdin).
  remotes: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ pattern: "^[A-Za-z0-9_.-]{1,40}$" }),
        url: Type.String({ pattern: "^https?://[^/]+" }),
        token: Type.String({ minLength: 1, maxLength: 256 }),
      }),
      { maxItems: 50 },
    ),
  ),
  // The task board in PostgreSQL, shared by every daemon that names the same database
  // (docs/fleet.md); without it, the board is this daemon's, in roost.db.
  board: Type.Optional(
    Type.Object({
      url: Type.String({ pattern: "^postgres(ql)?://" }),
      // This daemon's name on the board (its sessions' ids there are `name:id`): the host's by default.
      name: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_.-]{1,40}$" })),
      // How long another daemon waits, once this one stopped renewing, before releasing its claims.
      leaseMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 3600000 })),
    }),
  ),
  // Hooks that get a POST when a row needs the user, or a schedule does (docs/notify.md).
  notify: Type.Optional(Type.Array(NotifyHook, { maxItems: 20 })),
  // What jobs may spend (docs/budgets.md): each job's own by default, all jobs' together a day, and
  // each profile's jobs' together a day; each `{cost?, tokens?, minutes?}`.
  budgets: Type.Optional(BudgetsConfig),
});
/** `profiles`: a Map, so that a name from a request ("__proto__", "toString") finds only a profile. */
export type Config = Static<typeof ConfigSchema> & {
  profiles: ReadonlyMap<string, Profile>;
  /** The profiles roost.json defines (one may replace a built-in one of the same name). */
  fromFile: ReadonlySet<string>;
  /** The values of the secrets it holds (`secretsOf`), hidden wherever the daemon would say them. */
  secrets: readonly string[];
};

const checkConfig = compileCheck<Static<typeof ConfigSchema>>(ConfigSchema, "", "the file");

export class ConfigError extends Error {}

/** How long a daemon's claims on a shared board outlive its last renewal, unless `board.leaseMs` says. */
export const DEFAULT_LEASE_MS = 30000;

/**
 * roost's ACP bridge, as built (sdk/ts/acp): an ACP profile's job runs it, a protocol agent that
 * starts the profile's command as its ACP agent.
 */
export const ACP_BRIDGE = path.join(PACKAGE_ROOT, "dist/sdk/ts/acp/bridge.js");

/** Whether the profile's agent speaks ACP (`"acp": true` or `"protocol": "acp"`). */
export const isAcp = (p: Profile): boolean => p.acp === true || p.protocol === "acp";

/** Whether the job speaks roost's protocol: itself, or through the ACP bridge. */
export const speaksProtocol = (p: Profile): boolean => p.protocol === true || isAcp(p);

/**
 * The command a job of the profile runs: its own, or for an ACP agent the bridge with the agent's
 * command after it (the bridge runs in the job's terminal; the agent is its child, on pipes).
 */
export const jobCommand = (p: Profile): string[] =>
  isAcp(p) ? [process.execPath, ACP_BRIDGE, ...p.command] : [...p.command];

/**
 * The concierge's own profile: pi with roost's extension, which gives it the concierge's tools
 * (`ROOST_CONCIERGE`). Not on the profiles' list: `concierge {action: "on"}` starts it, nothing else.
 * `pi`: the `pi` profile as roost.json has it (its model, its arguments, its environment), which the
 * concierge takes; roost's extension is added to its command when the command does not load it.
 */
export const conciergeProfile = (pi?: Profile): Profile => {
  const command = pi?.command ?? ["pi", "-e", PI_EXTENSION];
  return {
    ...(pi ?? {}),
    command: command.includes(PI_EXTENSION) ? command : [...command, "-e", PI_EXTENSION],
    task: "type",
    protocol: true,
    env: { ...pi?.env, ROOST_CONCIERGE: "1" },
    description: "roost's concierge: pi, woken by digests of what the sessions did",
  };
};

/**
 * A profile run as the concierge (roost.json's `concierge.profile`, `on --profile`): the same, its
 * agent told it is the concierge (`ROOST_CONCIERGE`: pi's extension gives it the concierge's tools;
 * `roost mcp` gives them by the session's role).
 */
export const asConcierge = (profile: Profile): Profile => ({
  ...profile,
  env: { ...profile.env, ROOST_CONCIERGE: "1" },
});

/** A pattern or patterns of roost.json's, as a list (it takes one or several). */
const listOf = (v: string | string[] | undefined): string[] => (v === undefined ? [] : [v].flat());

/** The patterns of a profile, as a list (roost.json takes one or several). */
export const blockedPatterns = (p: Profile): string[] => listOf(p.blockedPattern);

/** A profile's own prompt patterns; undefined: roost's defaults (core/terminals/prompts.ts). */
export const promptPatterns = (p: Profile): string[] | undefined =>
  p.promptPattern === undefined ? undefined : listOf(p.promptPattern);

/** What `approve` may name: a tool (`bash`, `roost_send`), or `*` for every one. */
const TOOL_NAME = /^(\*|[A-Za-z0-9_.-]{1,100})$/;

/** A secret roost.json holds: where (`remotes[0].token`, `board.url's password`) and its value. */
export interface ConfigSecret {
  where: string;
  value: string;
}

/**
 * Every secret roost.json holds, in every form (secrets.ts says what a secret in a url looks like):
 * the remotes' tokens, what their urls and the board's carry (a userinfo password, `password=`,
 * `sslpassword=`, an `sslkey` path, a token), a profile's command arguments that carry one
 * (`--password=…`, a url with one), and its env vars named as secrets (`ANTHROPIC_API_KEY`) or
 * whose values carry one (`DATABASE_URL=postgres://u:pw@…`).
 */
export function secretsOf(config: Static<typeof ConfigSchema>): ConfigSecret[] {
  const carried = (where: string, text: string): ConfigSecret[] =>
    secretsIn(text).map((f) => ({ where: `${where}'s ${f.what}`, value: text.slice(f.start, f.end) }));
  return [
    ...(config.remotes ?? []).flatMap((r, i) => [
      { where: `remotes[${i}].token`, value: r.token },
      ...carried(`remotes[${i}].url`, r.url),
    ]),
    ...(config.board ? carried("board.url", config.board.url) : []),
    // A hook's url is its credential (a Slack webhook's path, an ntfy topic): whole.
    ...(config.notify ?? []).map((h, i) => ({ where: `notify[${i}].url`, value: h.url })),
    ...Object.entries(config.agentProfiles ?? {}).flatMap(([name, p]) => [
      ...p.command.flatMap((arg, i) => carried(`agentProfiles.${name}.command[${i}]`, arg)),
      ...Object.entries(p.env ?? {}).flatMap(([key, value]) => {
        const where = `agentProfiles.${name}.env.${key}`;
        return isSecretName(key) && value !== "" ? [{ where, value }] : carried(where, value);
      }),
    ]),
  ];
}

/**
 * A roost.json that holds secrets must be readable by its owner alone: one others may read has
 * leaked them, as ssh refuses a key others may read. The refusal says where they are, never what.
 */
function secretsKept(file: string, secrets: readonly ConfigSecret[]): void {
  if (secrets.length === 0) return;
  const mode = fs.statSync(file).mode & 0o777;
  if (mode & 0o077) {
    const where = [...new Set(secrets.map((s) => s.where))];
    const said = where.length > 3 ? [...where.slice(0, 3), `${where.length - 3} more`] : where;
    throw new ConfigError(
      `${file}: it holds secrets (${said.join(", ")}), and others may read it (mode ${mode.toString(8).padStart(4, "0")}): chmod 600 ${file} (and make new ones if others have read it)`,
    );
  }
}

export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Config {
  let raw: string | null = null;
  try {
    raw = readOwn(file); // it says what commands run: one others may write is refused (home.ts)
  } catch (err) {
    if (err instanceof UnsafeHome) throw err;
    throw new ConfigError(`${file}: ${(err as Error).message}`);
  }
  let parsed: unknown = {};
  if (raw !== null) {
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw new ConfigError(`${file}: not valid JSON: ${(err as Error).message}`);
    }
  }
  const checked = checkConfig(parsed);
  if (!checked.ok) throw new ConfigError(`${file}: ${checked.message}`);
  const config = checked.value;
  const idle = idleStopProblem(config.idleStop);
  if (idle) throw new ConfigError(`${file}: idleStop: ${idle}`);
  for (const [name, profile] of Object.entries(config.agentProfiles ?? {})) {
    const idleStop = idleStopProblem(profile.idleStop);
    if (idleStop) throw new ConfigError(`${file}: agentProfiles.${name}.idleStop: ${idleStop}`);
    for (const [i, tool] of (profile.approve ?? []).entries())
      if (!TOOL_NAME.test(tool))
        throw new ConfigError(
          `${file}: agentProfiles.${name}.approve[${i}]: ${JSON.stringify(tool)} is not a tool's name (letters, digits, _ . -; or * for every tool)`,
        );
    for (const [key, patterns] of [
      ["blockedPattern", blockedPatterns(profile)],
      ["promptPattern", promptPatterns(profile) ?? []],
    ] as const) {
      for (const pattern of patterns) {
        try {
          new RegExp(pattern);
        } catch (err) {
          throw new ConfigError(`${file}: agentProfiles.${name}.${key}: ${(err as Error).message}`);
        }
      }
    }
  }
  for (const [i, hook] of (config.notify ?? []).entries()) {
    const problem = hookProblem(hook, i);
    if (problem) throw new ConfigError(`${file}: ${problem}`);
  }
  const seen = new Set<string>();
  for (const [i, r] of (config.remotes ?? []).entries()) {
    if (seen.has(r.name))
      throw new ConfigError(
        `${file}: remotes[${i}].name: ${JSON.stringify(r.name)} is named twice: each remote its own name`,
      );
    if (r.name === LOCAL_DAEMON)
      throw new ConfigError(
        `${file}: remotes[${i}].name: "${LOCAL_DAEMON}" is this daemon's: give the remote another name`,
      );
    seen.add(r.name);
  }
  const secrets = secretsOf(config);
  secretsKept(file, secrets);
  const profiles = new Map([
    ...Object.entries(builtinProfiles(env)),
    ...Object.entries(config.agentProfiles ?? {}),
  ]);
  const conciergeRuns = config.concierge?.profile;
  if (conciergeRuns !== undefined && !profiles.has(conciergeRuns))
    throw new ConfigError(
      `${file}: concierge.profile: no profile ${JSON.stringify(conciergeRuns)}; the profiles are: ${[...profiles.keys()].sort().join(", ")}`,
    );
  for (const name of Object.keys(config.budgets?.profiles ?? {}))
    if (!profiles.has(name))
      throw new ConfigError(
        `${file}: budgets.profiles.${name}: no profile ${JSON.stringify(name)}; the profiles are: ${[...profiles.keys()].sort().join(", ")}`,
      );
  return {
    ...config,
    profiles,
    fromFile: new Set(Object.keys(config.agentProfiles ?? {})),
    secrets: secrets.map((s) => s.value),
  };
}
