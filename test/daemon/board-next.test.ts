/** claim next, the tasks' word, conflict and resent requests (board-next-rules.ts) on roost.db's board; on PostgreSQL's: board-pg.test.ts. */
import { boardNext } from "../helpers/board-next-rules.js";

boardNext("SQLite", async () => ({}));
