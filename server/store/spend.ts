/**
 * What jobs spent a day, by profile and repository (core/budgets/), and the budget notices said
 * once a day. The day is the daemon machine's local date (`YYYY-MM-DD`); a repository of none is ''.
 */
import type Database from "better-sqlite3";
import type { Spent } from "../../sdk/ts/protocol/index.js";
import type { GroupCommit } from "./group-commit.js";

/** One row of the spend table. */
export interface SpendRow extends Spent {
  day: string;
  profile: string;
  repo: string;
}

export class SpendStore {
  private readonly sql;

  constructor(
    db: Database.Database,
    private readonly commits: GroupCommit,
  ) {
    this.sql = {
      since: db.prepare(
        "SELECT day, profile, repo, cost, tokens, minutes FROM spend WHERE day >= ? ORDER BY day DESC",
      ),
      add: db.prepare(`INSERT INTO spend (day, profile, repo, cost, tokens, minutes)
        VALUES (@day, @profile, @repo, @cost, @tokens, @minutes)
        ON CONFLICT (day, profile, repo) DO UPDATE SET cost = cost + @cost, tokens = tokens + @tokens,
          minutes = minutes + @minutes`),
      notices: db.prepare("SELECT key FROM budget_notices WHERE key LIKE ?"),
      notice: db.prepare("INSERT INTO budget_notices (key, at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING"),
      prune: db.prepare("DELETE FROM budget_notices WHERE at < ?"),
    };
  }

  /** The rows of `day` and the days after it, newest first. */
  since(day: string): SpendRow[] {
    return this.sql.since.all(day) as SpendRow[];
  }

  /** Adds what was spent since the last write (several rows, one commit). */
  add(rows: SpendRow[]): void {
    if (rows.length === 0) return;
    this.commits.run(() => {
      for (const r of rows) this.sql.add.run({ ...r, tokens: Math.round(r.tokens) });
    });
  }

  /** The notices said whose key ends with `suffix` (a day's). */
  notices(suffix: string): string[] {
    return (this.sql.notices.all(`%${suffix}`) as { key: string }[]).map((r) => r.key);
  }

  /** A notice said: kept, so that a restart does not say it again (those of past weeks go). */
  noticed(key: string): void {
    const now = Date.now();
    this.commits.run(() => {
      this.sql.notice.run(key, new Date(now).toISOString());
      this.sql.prune.run(new Date(now - 7 * 24 * 3600_000).toISOString());
    });
  }
}
