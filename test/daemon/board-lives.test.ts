/** Claims following lives (board-lives-rules.ts) on roost.db's board; on PostgreSQL's: board-pg.test.ts. */
import { boardLives } from "../helpers/board-lives-rules.js";

boardLives("SQLite", async () => ({}));
