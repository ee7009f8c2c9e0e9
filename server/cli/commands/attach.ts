/**
 * `roost attach`: a job's live terminal in the user's own. The daemon answers `attach` with the
 * job's screen, then sends its output as `output` events; what the user types goes back as
 * `input`, and the job's terminal takes this one's size (`resize`). The session is attachment.ts.
 */
import type { SocketClient } from "../../../sdk/ts/client/socket-client.js";
import { Attachment } from "../attachment.js";
import type { Command } from "../command.js";
import { connect } from "../connect.js";

export const attach: Command = {
  name: "attach",
  args: "ID",
  arity: [1, 1],
  json: false,
  summary: "Show a job's live terminal here and type into it; Ctrl-] detaches (it keeps running).",
  details:
    "The job's terminal takes this one's size. When the job ends, it says how and exits 0.\n" +
    "--watch only looks: nothing typed reaches the job, and Ctrl-C or Ctrl-] ends it.\n" +
    "When stdin is not a terminal, its bytes are sent as they come (a Ctrl-] byte detaches),\n" +
    "and its end detaches, exit 0: `echo ls | roost attach j3` types ls and returns.",
  options: {
    watch: { type: "boolean", short: "w", help: "only look: no typing, no resizing" },
  },
  examples: ["roost attach j3", "roost attach j3 --watch"],
  async run({ positionals: [id], values, env }) {
    const client = await connect(env);
    try {
      return await attachTo(client, id!, values.watch === true);
    } finally {
      client.onClose = () => {};
      client.close();
    }
  },
};

async function attachTo(client: SocketClient, id: string, watch: boolean): Promise<number> {
  const attachment = new Attachment(client, id, watch);
  const { row, screen } = await attachment.open();
  // Signals first: a Ctrl-C typed the moment the greeting shows, before the keys are raw, is a
  // SIGINT, and it must detach as the key would rather than kill this process unhandled.
  const stops = [attachment.listenToSignals()];
  attachment.draw(row, screen);
  stops.push(attachment.listenToKeys(), attachment.listenToResizes());
  const how = await attachment.ended;
  for (const stop of stops) stop();
  return attachment.close(how);
}
