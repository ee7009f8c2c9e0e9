/**
 * Where the HTTP face listens (docs/http.md, "Where it listens"): 127.0.0.1:7777 unless
 * ROOST_PORT or roost.json's http.port says otherwise (0: any free port). A non-loopback address
 * is taken only from roost.json's http.host, never from the environment: reaching roost from
 * another machine is a decision written down, not a variable left set in a shell.
 */
import { type Config, ConfigError } from "../config.js";
import { isLoopback } from "./guard.js";

export const DEFAULT_PORT = 7777;

export interface ListenAddress {
  host: string;
  port: number;
  /** Listening beyond this machine (asked for in roost.json). */
  exposed: boolean;
}

export function listenAddress(config: Config, env: NodeJS.ProcessEnv = process.env): ListenAddress {
  let port = config.http?.port ?? DEFAULT_PORT;
  if (env.ROOST_PORT !== undefined && env.ROOST_PORT !== "") {
    const n = Number(env.ROOST_PORT);
    if (!Number.isInteger(n) || n < 0 || n > 65535)
      throw new ConfigError(
        `ROOST_PORT=${env.ROOST_PORT} is not a port: use a number from 0 (any free port) to 65535`,
      );
    port = n;
  }
  const fromEnv = env.ROOST_HOST || undefined;
  if (fromEnv && !isLoopback(fromEnv)) {
    throw new ConfigError(
      `ROOST_HOST=${fromEnv} is not a loopback address: to listen beyond this machine, set http.host in roost.json (see docs/http.md)`,
    );
  }
  const host = fromEnv ?? config.http?.host ?? "127.0.0.1";
  return { host, port, exposed: !isLoopback(host) };
}

/** The address a browser on this machine uses (a wildcard address is reached by loopback). */
export function hubUrl(host: string, port: number): string {
  const h =
    host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${port}/`;
}
