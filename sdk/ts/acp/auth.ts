/**
 * Logging the agent in (docs/agents.md, "ACP agents"): an agent that wants a login refuses the
 * session with ACP's auth_required error until the client calls `authenticate` with one of the
 * methods it offered in `initialize`. The bridge does so only then, and only with a method whose
 * key is in the agent's environment: an `env_var` method names its variables (codex-acp's
 * `openai-api-key`: OPENAI_API_KEY), and the ones known here name theirs (Gemini CLI's
 * `gemini-api-key`). With none, the session fails with the agent's words and what it offers.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { errorText } from "./acp-row.js";

/** ACP's auth_required error code (`RequestError.authRequired`). */
const AUTH_REQUIRED = -32000;

/** A method as agents send it: an `env_var` one with its variables (a newer ACP than the SDK's types). */
interface Method {
  id: string;
  name: string;
  type?: string;
  vars?: { name: string }[];
}

/** The variables of methods whose agents do not name them (Gemini CLI 0.61, older codex-acp). */
const KNOWN_KEYS: Record<string, string[]> = {
  "gemini-api-key": ["GEMINI_API_KEY"],
  "openai-api-key": ["OPENAI_API_KEY"],
  "codex-api-key": ["CODEX_API_KEY"],
};

/** The environment variables that log the agent in by this method; none for a login of its own. */
export function keysOf(method: Method): string[] {
  if (method.type === "env_var" && Array.isArray(method.vars) && method.vars.length)
    return method.vars.map((v) => v.name);
  return KNOWN_KEYS[method.id] ?? [];
}

/** The first method whose every key is set (not empty) in `env`. */
export function usableMethod(methods: readonly Method[], env: NodeJS.ProcessEnv): Method | null {
  return (
    methods.find((m) => {
      const keys = keysOf(m);
      return keys.length > 0 && keys.every((k) => Boolean(env[k]));
    }) ?? null
  );
}

/** What the agent offers, said to the user: each method, with the variable to set where there is one. */
export function offered(methods: readonly Method[]): string {
  if (methods.length === 0) return "";
  const each = methods.map((m) => {
    const keys = keysOf(m);
    return keys.length ? `${m.name}: set ${keys.join(" and ")} in the profile's env` : m.name;
  });
  return ` (it offers: ${each.join("; ")})`;
}

const authRequired = (err: unknown): boolean => (err as { code?: unknown })?.code === AUTH_REQUIRED;

/**
 * `make` (session/new or session/load); refused for want of a login, `authenticate` with the usable
 * method and `make` again. Throws the agent's words, with what it offers when nothing here could log it in.
 */
export async function withLogin<T>(
  agent: acp.ClientConnection["agent"],
  methods: readonly Method[],
  env: NodeJS.ProcessEnv,
  make: () => Promise<T>,
): Promise<T> {
  try {
    return await make();
  } catch (err) {
    if (!authRequired(err) || methods.length === 0) throw err;
    const method = usableMethod(methods, env);
    if (!method) throw new LoginError(`${errorText(err)}${offered(methods)}`);
    try {
      await agent.request("authenticate", { methodId: method.id });
    } catch (refused) {
      throw new LoginError(`${errorText(err)}; authenticate with ${method.id} failed: ${errorText(refused)}`);
    }
    return make();
  }
}

/** The session could not be made for want of a login: said as the agent's answer (it is one). */
export class LoginError extends Error {
  readonly code = AUTH_REQUIRED;
}
