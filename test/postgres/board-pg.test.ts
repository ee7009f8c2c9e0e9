/**
 * The task board's rules and claims following lives (board-rules.ts, board-lives-rules.ts), the
 * same cases as on roost.db's board, on a board in a real PostgreSQL server (Debian's, started
 * here on a temp directory and a free port): each list of cases on a database of its own.
 */
import { afterAll, beforeAll } from "vitest";
import { boardLives } from "../helpers/board-lives-rules.js";
import { boardNext } from "../helpers/board-next-rules.js";
import { boardRules } from "../helpers/board-rules.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(() => pg?.cleanup());

boardRules("PostgreSQL", async () => ({ board: { url: await pg.database("rules"), name: "here" } }));
boardLives("PostgreSQL", async () => ({ board: { url: await pg.database("lives"), name: "here" } }));
boardNext("PostgreSQL", async () => ({ board: { url: await pg.database("next"), name: "here" } }));
