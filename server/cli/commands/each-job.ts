/**
 * One action on several jobs (`roost stop j3 j4 j7`): asked all at once on one connection (the
 * daemon runs them together, so stopping forty jobs takes about as long as one), each result
 * said on a line of its own, in the order given; the exit code is 1 if any failed.
 */
import type { SocketClient } from "../../../sdk/ts/client/socket-client.js";
import { type Invocation, out, printJson } from "../command.js";
import { connect } from "../connect.js";
import { reportError } from "../errors.js";

export const SEVERAL =
  "Several IDs are done together, each said on a line (--json: {ok, id} each); the exit code is 1\n" +
  "if any failed, each failure on stderr with its ID.";

export async function eachJob(
  inv: Invocation,
  done: string,
  act: (client: SocketClient, id: string) => Promise<unknown>,
): Promise<number> {
  const ids = [...new Set(inv.positionals)];
  const client = await connect(inv.env);
  try {
    const acts = ids.map((id) => act(client, id));
    for (const p of acts) p.catch(() => {}); // each is awaited below, in order
    let failed = 0;
    for (const [i, id] of ids.entries()) {
      try {
        await acts[i];
        if (inv.json) printJson({ ok: true, id });
        else out(`${done} ${id}`);
      } catch (err) {
        // One job: its failure is the command's, said as any command's is.
        if (ids.length === 1) throw err;
        failed++;
        reportError(err, { json: inv.json, id });
      }
    }
    return failed > 0 ? 1 : 0;
  } finally {
    client.close();
  }
}
