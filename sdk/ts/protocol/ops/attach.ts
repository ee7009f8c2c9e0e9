/** `attach` (terminals.md; `roost attach`, the hub's terminal view): watch a job's live terminal. */
import Type from "typebox";
import { JobId } from "../schema.js";

export const attach = {
  args: Type.Object({ id: JobId }),
  // The screen as ANSI text that, written to a terminal of this size, draws it; then `output`
  // events carry what follows, exactly, until `detach`, the job's end, or the connection's.
  result: Type.Object({ screen: Type.String(), cols: Type.Integer(), rows: Type.Integer() }),
} as const;
