/**
 * What a secret looks like, in one place: the config's check (config.ts: a roost.json holding one
 * must be its owner's alone) and the redaction of everything the daemon says (its answers' errors,
 * its log, its feed, a remote's status) ask the same function, `secretsIn`, so that a credential
 * form it knows is both kept 0600 and never said.
 *
 * In a URL or a libpq connection string, a secret is:
 * - the password of its userinfo (`postgres://roost:PW@host`), or in an http(s) or ws(s) url the
 *   whole userinfo (`https://TOKEN@host`, a token as the user; elsewhere, as in `postgres://roost@`
 *   or `ssh://git@`, a user alone is only a name);
 * - the value of a parameter whose name says it holds one or points at one (`password=`,
 *   `sslpassword=`, `sslkey=` a key's path, `passfile=`, `token=`, `access_token=`, `api_key=`,
 *   `secret=` …), in a query, a fragment or a `key=value` connection string.
 *
 * Beside the forms, the values: `Secrets` knows every secret roost.json holds (its remotes' tokens,
 * what `secretsIn` finds in its urls, a profile's env keys) and hides each wherever it appears, bare
 * (`… for password pw-…`) or percent-encoded, so that a message that quotes a part of a url (a
 * driver's error) says none of it either.
 */

/** What stands for a secret that was left out. */
export const HIDDEN = "***";

/** A secret found in a text: what it is (`password`, `token`, `sslkey` …) and where. */
export interface FoundSecret {
  what: string;
  start: number;
  end: number;
}

/** `scheme://userinfo@`: the userinfo is what stands before the first `@` of the authority. */
const USERINFO = /\b([a-z][a-z0-9+.-]*):\/\/([^\s/?#@"'<>]+)@/gi;
/**
 * `name=value` where the name ends in a word that holds a secret (`password`, `sslpassword`,
 * `PGPASSWORD`, `access_token`, `sslkey`, `api_key` …); the value up to `&`, `#`, `;`, a space or a
 * quote, or quoted in `'…'` as libpq's connection strings quote.
 */
const PARAM =
  /(?<![\w.-])([\w.-]*?(?:pass(?:word|wd|file)?|pwd|token|secret|key|credentials?))=('(?:[^'\\]|\\.)*'|"[^"]*"|[^\s&#;'",)]*)/gi;
/** The names of env vars that hold a secret (`ANTHROPIC_API_KEY`, `GITHUB_TOKEN`, `PGPASSWORD` …). */
const SECRET_NAME =
  /(pass(word|wd)?|pwd|token|secret|key|credentials?|auth)$|^(secret|token|auth)_|_(secret|token)_/i;
/** Shorter than this, a value is hidden where its form says it is a secret, never wherever it appears. */
const MIN_BARE = 4;

/** The secrets a text carries in the forms above: a url, a connection string, a message quoting one. */
export function secretsIn(text: string): FoundSecret[] {
  const found: FoundSecret[] = [];
  for (const m of text.matchAll(USERINFO)) {
    const scheme = m[1]!;
    const info = m[2]!;
    const at = m.index + scheme.length + 3;
    const colon = info.indexOf(":");
    if (colon >= 0) {
      if (colon + 1 < info.length)
        found.push({ what: "password", start: at + colon + 1, end: at + info.length });
    } else if (/^(https?|wss?)$/i.test(scheme))
      found.push({ what: "token", start: at, end: at + info.length });
  }
  for (const m of text.matchAll(PARAM)) {
    const value = m[2]!;
    if (value === "" || value === "''" || value === '""') continue;
    const start = m.index + m[0].length - value.length;
    found.push({ what: m[1]!.toLowerCase(), start, end: start + value.length });
  }
  return found;
}

/** Whether an env var of this name holds a secret (a profile's `env` in roost.json). */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

/** The text with every secret `secretsIn` finds in it replaced by `***`. */
export function hideForms(text: string): string {
  const found = secretsIn(text).sort((a, b) => a.start - b.start);
  let out = "";
  let from = 0;
  for (const f of found) {
    if (f.start < from) continue; // within one already hidden
    out += text.slice(from, f.start) + HIDDEN;
    from = f.end;
  }
  return out + text.slice(from);
}

/** The values of the secrets a text carries, as written (for `Secrets.learn`). */
export const secretValuesIn = (text: string): string[] =>
  secretsIn(text).map((f) => text.slice(f.start, f.end));

/**
 * A daemon's secrets (roost.json's), and the one redaction of what it says: every form
 * `secretsIn` knows, and every value learnt, wherever it appears. Kept by the daemon (Core's), so
 * that a remote added by `remotes-reload` is hidden from then on.
 */
export class Secrets {
  /** Longest first: a secret that holds another is hidden whole. */
  private values: string[] = [];

  learn(values: Iterable<string>): void {
    const all = new Set(this.values);
    for (const v of values) for (const form of spellings(v)) if (form.length >= MIN_BARE) all.add(form);
    this.values = [...all].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join(HIDDEN);
    return hideForms(out);
  }
}

/** A value as it may be written: as it is, unquoted, percent-decoded, percent-encoded (as a url holds it). */
function spellings(value: string): string[] {
  const bare = /^'.*'$|^".*"$/s.test(value) ? value.slice(1, -1) : value;
  let decoded = bare;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    // not percent-encoded: as it is
  }
  return [...new Set([value, bare, decoded, encodeURIComponent(decoded)])];
}

/**
 * Everything `stream` is given to write passes `redact` first: the daemon's stdout and stderr,
 * which are its log (console.* and whatever a library prints). Returns the stream's own write, for
 * what must reach the user's terminal as it is (the login link, shown on a terminal only).
 */
export function redactWrites(
  stream: NodeJS.WriteStream,
  redact: (text: string) => string,
): (text: string) => void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(
      typeof chunk === "string"
        ? redact(chunk)
        : chunk instanceof Uint8Array
          ? redact(Buffer.from(chunk).toString("utf8"))
          : chunk,
      ...rest,
    )) as typeof stream.write;
  return (text) => void write(text);
}
