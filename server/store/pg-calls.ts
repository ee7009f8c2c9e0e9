/**
 * The shared board's calls to PostgreSQL (pg-board.ts; docs/fleet.md, "One board in PostgreSQL"),
 * each bounded in time. A database that stops answering with its connections open (a
 * frozen server, a partition) would otherwise hold every board op for as long as it lasts: here a
 * query, a connection and the pool's wait for one each give up after `ANSWER_MS`, and the op is
 * answered `busy`, saying so. A connection that did not answer is discarded, never reused (its
 * query may still be on its way; pg would queue the next one behind it). Once one call has timed
 * out, the calls after it are refused at once while one probe at a time asks the database again,
 * so that the board's steps, taken one at a time, do not each wait the whole bound behind another.
 */
import pg from "pg";
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { hideForms } from "../secrets.js";

/** How long a call to the board's database may take before the step is answered `busy`. */
export const ANSWER_MS = 5000;
/** How long the probe waits between its tries while the database does not answer. */
const PROBE_PAUSE_MS = 500;

/** pg's own words for a call it gave up on in time: a query's read, a connect, the pool's wait. */
const TIMED_OUT = /timeout/i;
/** The server's code for a statement it cancelled (its `statement_timeout`). */
const CANCELED = "57014";

export class PgCalls {
  readonly pool: pg.Pool;
  /** Since when the database has not answered in time (null: it answers). */
  private silentSince: number | null = null;
  private probing = false;
  private closed = false;

  constructor(
    private readonly url: string,
    /** Called once the database answers again after it did not. */
    private readonly onBack: () => void,
  ) {
    this.pool = new pg.Pool({ ...this.clientConfig(), max: 4 });
    // An idle connection that breaks (the server restarted) is dropped by the pool; the next
    // query opens another. Without a listener node would throw it.
    this.pool.on("error", (err) => console.error(`roost: the board's database: ${err.message}`));
  }

  /** A connection's bounds, for the pool's and for one of its own (the listener's). */
  clientConfig(): pg.ClientConfig {
    return {
      connectionString: this.url,
      connectionTimeoutMillis: ANSWER_MS, // a connection, and the pool's wait for one
      query_timeout: ANSWER_MS, // each answer, as the client waits for it: a frozen server too
      statement_timeout: ANSWER_MS, // and as the server runs it: a slow or locked one
      keepAlive: true,
    };
  }

  /** Whether the database answers as far as is known: false while a call has timed out and no probe has answered since. */
  get answering(): boolean {
    return this.silentSince === null;
  }

  async query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    this.mustAnswer();
    try {
      return await this.pool.query(text, values);
    } catch (err) {
      throw this.failed(err);
    }
  }

  /**
   * `fn` in a transaction on one connection, committed. Thrown out of by an error the server gave
   * (`pg.DatabaseError`, thrown as it is: the caller reads its code) or one `sound` says leaves the
   * connection sound (the caller's own, after the server answered): rolled back, the connection
   * kept. Any other (a timeout, a broken connection) discards the connection, which the server
   * rolls back as it closes, and is thrown as `busy`.
   */
  async transaction<T>(fn: (c: pg.PoolClient) => Promise<T>, sound: (err: unknown) => boolean): Promise<T> {
    this.mustAnswer();
    let c: pg.PoolClient;
    try {
      c = await this.pool.connect();
    } catch (err) {
      throw this.failed(err);
    }
    try {
      await c.query("BEGIN");
      const result = await fn(c);
      await c.query("COMMIT");
      c.release();
      return result;
    } catch (err) {
      if ((err instanceof pg.DatabaseError && err.code !== CANCELED) || sound(err)) {
        await c.query("ROLLBACK").then(
          () => c.release(),
          (e: Error) => c.release(e),
        );
        throw err;
      }
      c.release(err instanceof Error ? err : new Error(String(err))); // discarded, not reused
      throw this.failed(err);
    }
  }

  /** `busy` saying what did not answer, for what pg threw (a RoostError of the caller's as it is). */
  failed(err: unknown): Error {
    if (err instanceof RoostError) return err;
    const message = err instanceof Error ? err.message : String(err);
    const canceled = err instanceof pg.DatabaseError && err.code === CANCELED;
    if (canceled || (!(err instanceof pg.DatabaseError) && TIMED_OUT.test(message))) {
      // A server that answers, but not in time (a lock held), is not taken for one that is silent.
      if (!canceled) this.silent();
      return new RoostError(
        "busy",
        `the shared board's database ${hideForms(this.url)} did not answer in ${ANSWER_MS / 1000} s: try again once it does`,
      );
    }
    return new RoostError(
      "busy",
      `the board's database ${hideForms(this.url)} did not answer (${message}): try again once it does`,
    );
  }

  /** Refused at once while the database is known not to answer (the probe asks it meanwhile). */
  private mustAnswer(): void {
    if (this.silentSince === null) return;
    const s = Math.round((Date.now() - this.silentSince) / 1000) + ANSWER_MS / 1000;
    throw new RoostError(
      "busy",
      `the shared board's database ${hideForms(this.url)} did not answer in ${ANSWER_MS / 1000} s (nothing from it for ${s} s): try again once it does`,
    );
  }

  /** A call timed out: the calls after it are refused until a probe is answered. */
  private silent(): void {
    if (this.silentSince === null) {
      this.silentSince = Date.now();
      console.error(
        `roost: the shared board's database did not answer in ${ANSWER_MS / 1000} s: board ops are busy until it does`,
      );
    }
    if (this.probing || this.closed) return;
    this.probing = true;
    void (async () => {
      while (this.silentSince !== null && !this.closed) {
        try {
          await this.pool.query("SELECT 1");
          this.silentSince = null;
        } catch {
          await new Promise((r) => setTimeout(r, PROBE_PAUSE_MS).unref());
        }
      }
      this.probing = false;
      if (!this.closed) {
        console.error("roost: the shared board's database answers again");
        this.onBack();
      }
    })();
  }

  /** Ends the pool; a connection that does not answer is not waited for. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.race([this.pool.end().catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);
  }
}
