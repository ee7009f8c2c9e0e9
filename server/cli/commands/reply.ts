/** `roost reply`: the user's answer to a job. */
import { type Command, out, printJson, str } from "../command.js";
import { callOnce } from "../connect.js";

export const reply: Command = {
  name: "reply",
  args: "ID TEXT...",
  arity: [2, Number.POSITIVE_INFINITY],
  summary: "Answer a job: TEXT is saved, then delivered (or typed); an ended job starts again.",
  details: "TEXT's words are joined by spaces. `/stop` stops the job.",
  options: {
    steer: { type: "boolean", help: "deliver it as a steer (now, between steps) rather than a follow-up" },
    "request-id": {
      type: "string",
      value: "ID",
      help: "sent again with the same ID, it is saved once (the resend says duplicate)",
    },
  },
  examples: [
    "roost reply j3 yes, go ahead",
    "roost reply j3 --steer 'stop editing tests'",
    "roost reply j3 /stop",
  ],
  async run({ positionals: [id, ...words], values, json, env }) {
    const requestId = str(values, "request-id");
    const result = await callOnce(env, "reply", {
      id: id!,
      text: words.join(" "),
      ...(values.steer ? { mode: "steer" as const } : {}),
      ...(requestId !== undefined ? { requestId } : {}),
    });
    if (json) printJson(result);
    else if (result.stopped) out(`${id} stopped`);
    else if (result.duplicate) out("already saved (duplicate)");
    else out(result.seq === undefined ? `saved to ${id}` : `saved as reply ${result.seq} to ${id}`);
    return 0;
  },
};
