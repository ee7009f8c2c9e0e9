/** Brings the HTTP face up on its address and says where (docs/http.md, "Where it listens"). */
import type { FastifyInstance } from "fastify";
import type { Core } from "../core/core.js";
import { hubUrl, type ListenAddress } from "./address.js";

/**
 * The built app listening, and its address; null when it cannot listen (said why, on stderr).
 * `toTerminal` writes past the log's redaction (secrets.ts): the login link, on a terminal only.
 */
export async function listenHub(
  core: Core,
  app: FastifyInstance,
  address: ListenAddress,
  toTerminal: (text: string) => void,
): Promise<string | null> {
  try {
    await app.listen({ host: listenHost(address.host), port: address.port });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    console.error(
      e.code === "EADDRINUSE"
        ? `roost: ${address.host}:${address.port} is in use (another roost?): set ROOST_PORT, or http.port in roost.json`
        : `roost: the hub cannot listen on ${address.host}:${address.port}: ${e.message}`,
    );
    await app.close().catch(() => {});
    return null;
  }
  const url = hubUrl(address.host, (app.server.address() as { port: number }).port);
  if (address.exposed) {
    console.log(`  listening beyond this machine (${address.host}, from roost.json): the token is the guard`);
  }
  console.log(`  hub ${url}`); // last but the login line: what waits for the daemon reads this
  // The login link carries the token: shown in a terminal, never written to a log.
  if (process.stdout.isTTY)
    toTerminal(`  log in: ${url}login?token=${encodeURIComponent(core.tokens.ownerSecret())}\n`);
  else console.log("  the login link: roost open");
  return url;
}

/**
 * For `localhost` Fastify binds 127.0.0.1 and, on a second server of its own, ::1: a server whose
 * connections the caps (connections.ts) never see. 127.0.0.1 alone, then: a client that resolves
 * `localhost` tries both, and ::1 is one `http.host` away.
 */
const listenHost = (host: string) => (host === "localhost" ? "127.0.0.1" : host);
