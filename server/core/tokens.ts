/**
 * Who may use the HTTP face (docs/http.md, "Tokens"): the owner's token in $ROOST_HOME/token
 * (0600, made on first start; one roost did not make is refused) and the named tokens of `roost token --name`, each either full or
 * read-only (may look, never act). Only a hash of a named token is stored; its secret is shown once.
 *
 * A presented token is compared with every known one in constant time, and all are compared
 * whatever matches first, so the time taken says nothing about which token or how much of it.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { openOwn, readOwn } from "../home.js";
import type { TokenRecord } from "../store/records.js";
import type { Store } from "../store/store.js";

/** Who a request speaks as: `name` null for the owner's token; `digest` the token's, to see it is still known. */
export interface Identity {
  name: string | null;
  readOnly: boolean;
  digest: Buffer;
}

type Known = Identity;

const digestOf = (secret: string): Buffer => createHash("sha256").update(secret, "utf8").digest();
const newSecret = (): string => randomBytes(32).toString("base64url");

/** How long a login link good once waits to be opened, and how many may wait at a time. */
export const ONCE_TTL_MS = 60_000;
const ONCE_KEPT = 100;

export class Tokens {
  private known: Known[] = [];
  private readonly revokeListeners = new Set<(name: string) => void>();
  /**
   * Login links good once (`once`): each code's digest and when it ends. Kept by digest, so the
   * lookup's time says nothing of a code; in memory only (a restart voids them: they are for now).
   */
  private readonly onces = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly ownerFile: string,
  ) {
    this.reload();
  }

  /** Reads the owner's token (making it on first start) and the named ones. */
  reload(): void {
    const owner: Known = { name: null, readOnly: false, digest: digestOf(ensureOwnerToken(this.ownerFile)) };
    const named = this.store.tokens().map((t) => ({
      name: t.name,
      readOnly: t.readOnly,
      digest: Buffer.from(t.hash, "hex"),
    }));
    this.known = [owner, ...named];
  }

  /** The owner's secret, for the login link `roost token` prints. */
  ownerSecret(): string {
    return ensureOwnerToken(this.ownerFile);
  }

  /**
   * A code that logs a browser in as the owner once, within ONCE_TTL_MS: what `roost open` puts
   * on the browser's command line, which other users of the machine may read, instead of the
   * owner's token. The oldest waiting is dropped past ONCE_KEPT.
   */
  once(): string {
    const now = Date.now();
    for (const [digest, end] of this.onces) if (end <= now) this.onces.delete(digest);
    while (this.onces.size >= ONCE_KEPT) this.onces.delete(this.onces.keys().next().value!);
    const code = newSecret();
    this.onces.set(digestOf(code).toString("hex"), now + ONCE_TTL_MS);
    return code;
  }

  /** The owner's secret for a code of `once` not used yet nor ended; the code is used up. */
  redeemOnce(code: string | undefined): string | null {
    if (!code || code.length > 256) return null;
    const digest = digestOf(code).toString("hex");
    const end = this.onces.get(digest);
    if (end === undefined) return null;
    this.onces.delete(digest);
    return end > Date.now() ? this.ownerSecret() : null;
  }

  identify(secret: string | undefined): Identity | null {
    if (!secret || secret.length > 256) return null;
    const digest = digestOf(secret);
    let found: Known | null = null;
    for (const k of this.known) {
      if (timingSafeEqual(k.digest, digest) && !found) found = k;
    }
    return found && { name: found.name, readOnly: found.readOnly, digest: found.digest };
  }

  /**
   * Whether an identity taken earlier (at a WebSocket's upgrade) still holds: its token not revoked
   * (nor the owner's token file changed). Checked on each message, so revoking ends its power at once.
   */
  holds(identity: Identity): boolean {
    return this.known.some((k) => k.digest.equals(identity.digest));
  }

  create(name: string, readOnly: boolean): { secret: string; record: TokenRecord } {
    const secret = newSecret();
    const record: TokenRecord = {
      name,
      hash: digestOf(secret).toString("hex"),
      readOnly,
      createdAt: new Date().toISOString(),
    };
    if (!this.store.addToken(record))
      throw new RoostError(
        "conflict",
        `a token named ${name} exists: revoke it first, or choose another name`,
      );
    this.reload();
    return { secret, record };
  }

  revoke(name: string): void {
    if (!this.store.removeToken(name)) throw new RoostError("not_found", `no token named ${name}`);
    this.reload();
    for (const listener of this.revokeListeners) listener(name);
  }

  /** Told of each revoked token's name: what it holds open (WebSockets) ends with it. */
  onRevoke(listener: (name: string) => void): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  list(): TokenRecord[] {
    return this.store.tokens();
  }
}

/**
 * The owner's token: made on first start, 0600, never through a link. One that is there is
 * adopted only if roost could have made it: a regular file of ours that no one else may read or
 * write (home.ts); else the start is refused, saying to delete it so that roost makes a new one.
 */
export function ensureOwnerToken(file: string): string {
  const { O_CREAT, O_EXCL, O_WRONLY } = fs.constants;
  try {
    const fd = openOwn(file, O_CREAT | O_EXCL | O_WRONLY, "secret");
    const secret = newSecret();
    try {
      fs.writeSync(fd, `${secret}\n`);
    } finally {
      fs.closeSync(fd);
    }
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const secret = readOwn(file, "secret")?.trim();
  if (!secret) throw new Error(`${file} is empty: delete it and roost makes a new token`);
  return secret;
}
