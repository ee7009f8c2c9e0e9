/**
 * Whose files roost trusts (design.md, "The home is its owner's alone"). The home holds the
 * owner's HTTP token and roost.json, which says what commands the profiles run: a home another
 * user can write is a way to run commands as whoever runs roost. So, as OpenSSH's StrictModes
 * does, the home and each thing roost uses in it must be this user's and writable by no one
 * else, or roost refuses, saying the path, what is wrong and what to do.
 *
 * Node builtins only: the pty host, which imports nothing else of roost's, checks with it too.
 */
import fs from "node:fs";
import path from "node:path";

/** A refusal: not an op's error but a message for the person who started roost. */
export class UnsafeHome extends Error {}

/** secret: no one else may even read it; file, dir: no one else may write it; socket: ours. */
type Kind = "secret" | "file" | "socket" | "dir";

/**
 * What roost reads or writes in a home, by name (paths.ts names them for the daemon; the pty
 * host, kept apart, names its own). A job's files are in jobs/, its
 * git worktree (if it has one) in worktrees/, which no one else may write.
 */
const IN_HOME: ReadonlyArray<readonly [string, Kind]> = [
  ["token", "secret"],
  ["roost.json", "file"],
  ["roost.db", "file"],
  ["roost.db-wal", "file"],
  ["roost.db-shm", "file"],
  ["roost.db-journal", "file"],
  ["daemon.log", "file"],
  ["pty.log", "file"],
  ["pty.pid", "file"],
  ["roost.sock", "socket"],
  ["pty.sock", "socket"],
  ["jobs", "dir"],
  ["worktrees", "dir"],
];

const OTHERS_RW = 0o077;
const OTHERS_W = 0o022;
const STICKY = 0o1000;
const MAX_LINKS = 40; // as the kernel's own limit before ELOOP
const { O_NOFOLLOW, O_NONBLOCK } = fs.constants;

const me = (): number => process.getuid!();
const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");
/** A path as a shell reads it back, for the commands the messages suggest. */
const sh = (p: string) => `'${p.replaceAll("'", "'\\''")}'`;
const ANOTHER_HOME =
  "Use a home of your own: unset ROOST_HOME (roost then uses ~/.roost), or set it to a path that does " +
  "not exist yet (roost makes it, 0700)";

function refuse(p: string, wrong: string, fix: string): never {
  throw new UnsafeHome(`refusing to use ${p}: it ${wrong}. ${fix}`);
}

/**
 * The daemon's home (and `roost start`'s): made 0700 if absent; else it and all roost uses in it
 * must be ours and writable by no one else. Ours but open to others, it is made 0700 once
 * nothing in it is someone else's or a link (checked again after, for what came meanwhile).
 * A refusal changes nothing. The socket is checked too, wherever ROOST_SOCKET puts it.
 */
export function secureHome(home: string, socket: string): void {
  let found = realWay(home);
  if (found) checkHomeDir(found.real, found.st);
  checkSocket(socket, found?.real);
  if (!found) {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    found = realWay(home);
    if (!found) throw new UnsafeHome(`${home} could not be made`);
    checkHomeDir(found.real, found.st);
  }
  checkEntries(found.real);
  if (found.st.mode & OTHERS_RW) {
    fs.chmodSync(found.real, 0o700); // ours: after this no one else can put anything in it
    checkEntries(found.real);
  }
  fs.mkdirSync(path.join(found.real, "jobs"), { recursive: true, mode: 0o700 }); // none if there
}

/**
 * A home used as it is (the pty host, `roost log`): ours, writable by no one else, and so is all
 * roost uses in it; never changed here. False if there is no such home.
 */
export function checkHome(home: string): boolean {
  const found = realWay(home);
  if (!found) return false;
  checkHomeDir(found.real, found.st);
  if (found.st.mode & OTHERS_W)
    refuse(
      found.real,
      `has mode ${octal(found.st.mode)}: others may write in it`,
      `chmod 700 ${sh(found.real)}`,
    );
  checkEntries(found.real);
  return true;
}

/**
 * A socket roost listens on or connects to: only its user can have made it. Its directory must
 * be ours or root's and writable by no one else (a sticky bit is not enough: others could still
 * make a socket of theirs under that name first); the home's own checks stand in for that when
 * the socket is in the home (`home`, its real path). Nothing to check where nothing exists yet.
 */
export function checkSocket(socket: string, home?: string): void {
  const dir = realWay(path.dirname(socket));
  if (!dir) return;
  if (dir.real !== home) checkSocketDir(dir.real, dir.st);
  checkEntry(path.join(dir.real, path.basename(socket)), "socket");
}

/**
 * Opens a file of roost's: never through a symbolic link (O_NOFOLLOW), never blocking on a FIFO
 * (O_NONBLOCK; it is then refused as not a regular file), and only if it is ours with the mode
 * `kind` allows. The file checked is the one opened, so none can be swapped in between. A file
 * made here (O_CREAT) is 0600.
 */
export function openOwn(file: string, flags: number, kind: "secret" | "file" = "file"): number {
  let fd: number;
  try {
    fd = fs.openSync(file, flags | O_NOFOLLOW | O_NONBLOCK, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK") checkEntry(file, kind); // says what is wrong
    throw err;
  }
  try {
    checkStat(file, fs.fstatSync(fd), kind);
    return fd;
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** A file of roost's, read as `openOwn` opens it; null if there is none. */
export function readOwn(file: string, kind: "secret" | "file" = "file"): string | null {
  let fd: number;
  try {
    fd = openOwn(file, fs.constants.O_RDONLY, kind);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  try {
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The real path and status of `p` (null if it, or a directory on the way, does not exist yet),
 * each directory on the way checked by `checkParent`. A link on the way is followed only if it
 * is ours or root's: its owner could point it elsewhere after.
 */
function realWay(p: string, links = 0): { real: string; st: fs.Stats } | null {
  p = path.resolve(p);
  const parent = path.dirname(p);
  let dir = parent;
  if (parent !== p) {
    const up = realWay(parent, links);
    if (!up) return null;
    checkParent(up.real, up.st);
    dir = up.real;
  }
  const here = path.join(dir, path.basename(p));
  const st = fs.lstatSync(here, { throwIfNoEntry: false });
  if (!st?.isSymbolicLink()) return st ? { real: here, st } : null;
  if (links >= MAX_LINKS) refuse(here, "is a loop of symbolic links", "Point it at a directory");
  if (st.uid !== me() && st.uid !== 0)
    refuse(here, `is a symbolic link owned by uid ${st.uid}, who could point it elsewhere`, ANOTHER_HOME);
  return realWay(path.resolve(dir, fs.readlinkSync(here)), links + 1);
}

/**
 * A directory above the home or the socket. Whoever may write in it may rename what is below
 * and put their own in its place, so it must be ours or root's, and writable by no one else
 * unless it has the sticky bit (/tmp: there only an entry's owner may rename it).
 */
function checkParent(p: string, st: fs.Stats): void {
  if (!st.isDirectory()) refuse(p, "is not a directory", ANOTHER_HOME);
  if (st.uid !== me() && st.uid !== 0)
    refuse(
      p,
      `is owned by uid ${st.uid}, who could put something of theirs in it in place of roost's`,
      ANOTHER_HOME,
    );
  if (st.mode & OTHERS_W && !(st.mode & STICKY))
    refuse(
      p,
      `has mode ${octal(st.mode)}: others may write in it, and without the sticky bit they could ` +
        "put something of theirs in it in place of roost's",
      `chmod go-w ${sh(p)} (or chmod +t), or: ${ANOTHER_HOME}`,
    );
}

function checkHomeDir(p: string, st: fs.Stats): void {
  if (!st.isDirectory()) refuse(p, "is not a directory", ANOTHER_HOME);
  if (st.uid !== me())
    refuse(
      p,
      `is owned by uid ${st.uid} (mode ${octal(st.mode)}), not by uid ${me()} who runs roost, so ` +
        "its owner could change what roost reads there (its token, the commands in roost.json)",
      `${ANOTHER_HOME}. If this directory is yours: chown ${me()} ${sh(p)} && chmod 700 ${sh(p)}`,
    );
}

function checkSocketDir(p: string, st: fs.Stats): void {
  checkParent(p, st);
  if (st.mode & OTHERS_W)
    refuse(
      p,
      `is the socket's directory, and has mode ${octal(st.mode)}: others may write in it, so they could ` +
        "make a socket of theirs where roost's is looked for",
      "Set ROOST_SOCKET to a path in a directory only you can write, or unset it (the socket is then in the home)",
    );
}

function checkEntries(home: string): void {
  for (const [name, kind] of IN_HOME) checkEntry(path.join(home, name), kind);
}

/** An entry (not followed if a link) is absent, or of the kind roost makes and ours. */
function checkEntry(p: string, kind: Kind): void {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  if (st) checkStat(p, st, kind);
}

function checkStat(p: string, st: fs.Stats, kind: Kind): void {
  if (st.isSymbolicLink())
    refuse(p, "is a symbolic link, and roost follows none in its home", fixFor(p, kind, "link"));
  const isKind = kind === "dir" ? st.isDirectory() : kind === "socket" || st.isFile();
  if (!isKind)
    refuse(p, `is not a ${kind === "dir" ? "directory" : "regular file"}`, fixFor(p, kind, "type"));
  if (st.uid !== me())
    refuse(p, `is owned by uid ${st.uid}, not by uid ${me()} who runs roost`, fixFor(p, kind, "owner"));
  const mask = kind === "secret" ? OTHERS_RW : kind === "socket" ? 0 : OTHERS_W;
  if (st.mode & mask)
    refuse(
      p,
      `has mode ${octal(st.mode)}: others may ${othersMay(st.mode & mask)} it`,
      fixFor(p, kind, "mode"),
    );
}

/** What the group and others may do by these mode bits. */
const othersMay = (bits: number) =>
  [bits & 0o044 && "read", bits & 0o022 && "write", bits & 0o011 && "run"].filter(Boolean).join(" and ");

/** What to do about `p`, by what roost uses it for and what is wrong with it. */
function fixFor(p: string, kind: Kind, wrong: "link" | "type" | "owner" | "mode"): string {
  const moveAway = `move it away (mv ${sh(p)} ${sh(`${p}.moved`)})`;
  if (kind === "secret")
    return wrong === "mode"
      ? `It may have been read: delete it (rm ${sh(p)}), roost makes a new token, and log in again`
      : `Roost did not make it: delete it (rm ${sh(p)}), and roost makes a new token`;
  if (kind === "socket") return `Remove it (rm ${sh(p)}) once whatever made it has stopped`;
  if (wrong === "mode") return `chmod go-w ${sh(p)}`;
  if (wrong === "owner") return `If it is yours: chown ${me()} ${sh(p)}; if not, ${moveAway}`;
  if (wrong === "link") return `Put what it points to in its place, or ${moveAway}`;
  return `Roost makes it itself: ${moveAway}`;
}
