/** The task board's rules (board-rules.ts) on roost.db's board; on PostgreSQL's: board-pg.test.ts. */
import { boardRules } from "../helpers/board-rules.js";

boardRules("SQLite", async () => ({}));
