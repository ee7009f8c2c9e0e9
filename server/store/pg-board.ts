/**
 * The task board in PostgreSQL (`board: {url}` in roost.json; docs/fleet.md): one board for every
 * daemon that names the same database. The rules stay board.ts's `step`, taken by each daemon on
 * the board as stored; what makes them hold across daemons is here:
 *
 * - Every write is conditional: a task is written only if its `version` is still the one read (and
 *   a claim only while none of its `after` is neither done nor dropped, in the same statement), a
 *   new id only if `next_id` is still the one read. A write that finds the board changed writes
 *   nothing and throws `StaleBoard`: the daemon reads the board again and takes the step again, so
 *   of two daemons' claims of one task, one wins and the other is refused `conflict`.
 * - Each daemon holds a lease (`roost_board_daemons`), renewed every third of it, and by every write
 *   before what it writes: no claim is written under a lease that ran out. A claim is live while its
 *   session's daemon holds its lease (that daemon judges its own sessions, and releases the claims
 *   of those that end); the claims made under a lease that ran out are released by any other, and
 *   only those: each claim keeps its lease's epoch, a fencing number (pg-lease.ts).
 * - Every call is bounded in time (pg-calls.ts): a database that does not answer makes a step
 *   `busy` within seconds, saying so, never a step that waits as long as it is away.
 * - A write says what it changed (its feed entries, `roost_board_changes`) and `NOTIFY`s; the
 *   others `LISTEN`, read the board again, put the entries in their own feeds and push `board`.
 *
 * Session ids are kept qualified by their daemon's board name (`alpha:3`); each daemon reads its
 * own back as they are (`3`), another's qualified, so the same `step` tells them apart
 * (pg-board-rows.ts, with the task's row).
 */
import pg from "pg";
import { type BoardTask, RoostError } from "../../sdk/ts/protocol/index.js";
import { ConfigError } from "../config.js";
import { hideForms } from "../secrets.js";
import { type BoardChange, type BoardNote, type BoardStore, StaleBoard, type StoredBoard } from "./board.js";
import { BoardIds, daemonOf, INSERT_TASK, UPDATE_TASK } from "./pg-board-rows.js";
import { PgCalls } from "./pg-calls.js";
import { Leases, READ_LEASES, RENEW_LEASE, TAKE_LEASE } from "./pg-lease.js";
import { PG_MIGRATIONS } from "./pg-migrations.js";

export interface PgBoardOptions {
  url: string;
  /** This daemon's name on the board (no `:`). */
  name: string;
  /** How long a claim outlives its daemon's last renewal. */
  leaseMs: number;
  /** Who this daemon is (its machine and home): a daemon restarted takes back its own lease. */
  instance: string;
}

const CHANNEL = "roost_board";
/** What the board keeps of changes, for the feeds of daemons that were away a moment. */
const CHANGES_KEPT = 1000;
/**
 * A write's notes kept for the others (the oldest past CHANGES_KEPT let go), and the others told
 * (NOTIFY, sent as the transaction commits): one statement, one round trip of the write's.
 */
const TELL_CHANGE = `WITH added AS (INSERT INTO roost_board_changes (daemon, notes) VALUES ($1, $2) RETURNING id),
    gone AS (DELETE FROM roost_board_changes WHERE id <= (SELECT id FROM added) - $3)
  SELECT pg_notify($4, $1) FROM added`;

export class PgBoard implements BoardStore {
  readonly shared = true;
  /** Each task's version as last read or written. */
  private versions = new Map<number, number>();
  private nextId = 1;
  /** Every daemon's lease, and each claim's epoch, as last read. */
  private readonly leases = new Leases();
  private lastChange = 0;
  private listener: pg.Client | null = null;
  private renewal: NodeJS.Timeout | null = null;
  private onChanged: (notes: BoardNote[]) => void = () => {};
  private fetching: Promise<void> | null = null;
  private fetchAgain = false;
  private closed = false;
  private failing = false;

  private readonly ids: BoardIds;

  private readonly calls: PgCalls;

  private constructor(private readonly opts: PgBoardOptions) {
    this.ids = new BoardIds(opts.name);
    // Once the database answers again after it did not: the lease renewed, the board read again.
    this.calls = new PgCalls(opts.url, () => void this.renew());
  }

  /**
   * Connects, migrates, takes this daemon's lease and listens. Refused (ConfigError) when another
   * daemon holds the name; throws when the database does not answer: the daemon then does not start.
   */
  static async open(opts: PgBoardOptions): Promise<PgBoard> {
    const board = new PgBoard(opts);
    try {
      await board.migrate();
      await board.takeLease();
      const { rows } = await board.calls.query(
        "SELECT coalesce(max(id), 0)::bigint AS id FROM roost_board_changes",
      );
      board.lastChange = Number(rows[0].id);
      await board.listen();
    } catch (err) {
      await board.calls.close();
      if (err instanceof ConfigError) throw err;
      throw new Error(
        `the board's database ${hideForms(opts.url)} did not answer: ${(err as Error).message}`,
      );
    }
    board.renewal = setInterval(() => void board.renew(), Math.max(200, Math.floor(opts.leaseMs / 3)));
    board.renewal.unref();
    return board;
  }

  private async migrate(): Promise<void> {
    await this.calls.transaction(
      async (c) => {
        await c.query("SELECT pg_advisory_xact_lock(7426901)"); // daemons starting at once: one migrates
        await c.query("CREATE TABLE IF NOT EXISTS roost_board_version (version INTEGER NOT NULL)");
        const { rows } = await c.query("SELECT version FROM roost_board_version");
        let version = rows.length > 0 ? (rows[0].version as number) : 0;
        if (rows.length === 0) await c.query("INSERT INTO roost_board_version VALUES (0)");
        if (version > PG_MIGRATIONS.length)
          throw new ConfigError(
            `the board's database ${hideForms(this.opts.url)} is at version ${version}, newer than this roost knows (${PG_MIGRATIONS.length}): update roost`,
          );
        for (; version < PG_MIGRATIONS.length; version++) {
          await c.query(PG_MIGRATIONS[version]!);
          await c.query("UPDATE roost_board_version SET version = $1", [version + 1]);
        }
      },
      (err) => err instanceof ConfigError,
    );
  }

  /** This daemon's lease: taken if free, run out, or its own (the same machine and home). */
  private async takeLease(): Promise<void> {
    const { rows } = await this.calls.query(TAKE_LEASE, this.leaseParams());
    if (rows.length === 0) {
      const held = await this.calls.query("SELECT instance FROM roost_board_daemons WHERE name = $1", [
        this.opts.name,
      ]);
      throw new ConfigError(
        `board.name ${JSON.stringify(this.opts.name)} is another daemon's on this board (${held.rows[0]?.instance}): give each daemon its own board.name`,
      );
    }
  }

  private leaseParams(): unknown[] {
    return [this.opts.name, this.opts.instance, this.opts.leaseMs];
  }

  /**
   * Renews the lease, then reads what others changed (and who still holds a lease). Skipped while
   * the database is known not to answer: its probe renews it as soon as it does.
   */
  private async renew(): Promise<void> {
    if (!this.calls.answering || this.closed) return;
    try {
      const { rows } = await this.calls.query(RENEW_LEASE, this.leaseParams());
      if (rows.length === 0) throw new Error(this.nameTaken());
      if (this.failing) console.error("roost: the board's database answers again");
      this.failing = false;
    } catch (err) {
      if (!this.failing)
        console.error(`roost: could not renew this daemon's lease on the board: ${(err as Error).message}`);
      this.failing = true;
      return;
    }
    this.poke();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.calls.clientConfig());
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = null;
      client.end().catch(() => {});
      // Notifications sent meanwhile are lost: the renewals read the board again until then.
      if (!this.closed) setTimeout(() => void this.listen().catch(() => {}), 1000).unref();
    };
    client.on("error", lost);
    client.on("end", lost);
    client.on("notification", (n) => {
      if (n.payload !== this.opts.name) this.poke();
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      lost();
      throw err;
    }
    this.poke(); // what changed while it was not listening
  }

  watch(changed: (notes: BoardNote[]) => void): void {
    this.onChanged = changed;
  }

  /** Reads what others changed since, once at a time (a poke meanwhile reads again after). */
  private poke(): void {
    if (this.fetching) {
      this.fetchAgain = true;
      return;
    }
    this.fetching = (async () => {
      do {
        this.fetchAgain = false;
        try {
          const { rows } = await this.calls.query(
            "SELECT id, daemon, notes FROM roost_board_changes WHERE id > $1 ORDER BY id",
            [this.lastChange],
          );
          const notes: BoardNote[] = [];
          for (const r of rows) {
            this.lastChange = Math.max(this.lastChange, Number(r.id));
            if (r.daemon !== this.opts.name)
              notes.push(...(r.notes as BoardNote[]).map((n) => this.ids.noteHere(n)));
          }
          if (!this.closed) this.onChanged(notes);
        } catch (err) {
          if (!this.failing)
            console.error(`roost: could not read the board's changes: ${(err as Error).message}`);
        }
      } while (this.fetchAgain && !this.closed);
    })().finally(() => {
      this.fetching = null;
    });
  }

  async load(): Promise<StoredBoard> {
    const results = (await this.calls.query(
      `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
       SELECT * FROM roost_board_tasks ORDER BY id;
       SELECT next_id FROM roost_board_meta;
       ${READ_LEASES};
       COMMIT`,
    )) as unknown as pg.QueryResult[];
    const [, tasks, meta, daemons] = results;
    this.versions = new Map(tasks!.rows.map((r) => [Number(r.id), Number(r.version)]));
    this.nextId = Number(meta!.rows[0].next_id);
    this.leases.read(daemons!.rows, tasks!.rows);
    return { tasks: tasks!.rows.map((r) => this.ids.taskHere(r)), nextId: this.nextId };
  }

  save(change: BoardChange, also: () => void): Promise<void> {
    return this.write(change).then(also);
  }

  private async write(change: BoardChange): Promise<void> {
    const written = new Map<number, number>();
    try {
      await this.calls.transaction(
        async (c) => this.written(c, change, written),
        (err) => err instanceof StaleBoard,
      );
    } catch (err) {
      if (err instanceof StaleBoard) throw err;
      // Another daemon's insert of the same id, between our read of next_id and ours: stale too.
      if ((err as { code?: string }).code === "23505") throw new StaleBoard("a task was added");
      throw this.calls.failed(err);
    }
    for (const id of change.removed) this.versions.delete(id);
    for (const [id, v] of written) this.versions.set(id, v);
    this.nextId = change.nextId;
  }

  /** The change's statements, in its transaction: the lease renewed first, so that a claim is made under it. */
  private async written(c: pg.PoolClient, change: BoardChange, written: Map<number, number>): Promise<void> {
    const lease = await c.query(RENEW_LEASE, this.leaseParams());
    if (lease.rows.length === 0) throw new RoostError("busy", this.nameTaken());
    const epoch = Number(lease.rows[0].epoch);
    const stale = (what: string) => {
      throw new StaleBoard(what);
    };
    for (const id of change.removed) {
      const r = await c.query("DELETE FROM roost_board_tasks WHERE id = $1 AND version = $2", [
        id,
        this.versions.get(id) ?? 0,
      ]);
      if (r.rowCount !== 1) stale(`#${id} changed`);
    }
    if (change.nextId !== this.nextId) {
      const r = await c.query("UPDATE roost_board_meta SET next_id = $2 WHERE next_id = $1", [
        this.nextId,
        change.nextId,
      ]);
      if (r.rowCount !== 1) stale("a task was added");
    }
    for (const t of change.saved) {
      const params = this.ids.taskParams(t);
      const version = this.versions.get(t.id);
      if (version === undefined) {
        await c.query(INSERT_TASK, params);
        written.set(t.id, 1);
      } else {
        const r = await c.query(UPDATE_TASK, [...params, version, epoch]);
        if (r.rowCount !== 1) stale(`#${t.id} changed`);
        written.set(t.id, version + 1);
      }
    }
    const notes = change.notes.map((n) => this.ids.noteThere(n));
    await c.query(TELL_CHANGE, [this.opts.name, JSON.stringify(notes), CHANGES_KEPT, CHANNEL]);
  }

  private nameTaken(): string {
    return `this daemon's name on the board (${JSON.stringify(this.opts.name)}) was taken by another daemon while its lease had run out: give each daemon its own board.name`;
  }

  elsewhereLive(id: string): boolean | null {
    const daemon = daemonOf(id);
    return daemon === null ? null : this.leases.live(daemon);
  }

  lapsed(task: BoardTask): boolean {
    const daemon = task.owner ? daemonOf(task.owner.id) : null;
    return daemon !== null && this.leases.lapsed(daemon, task);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.renewal) clearInterval(this.renewal);
    const listener = this.listener;
    this.listener = null;
    // The lease is left to run out: a daemon restarting takes it back, its sessions' claims kept.
    await Promise.all([
      Promise.race([listener?.end().catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]),
      this.calls.close(),
    ]);
  }
}
