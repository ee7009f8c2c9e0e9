/** `roost reply`: the user's answer to a job. */
import { type Command, out, printJson, str, UsageError } from "../command.js";
import { callOnce } from "../connect.js";

export const reply: Command = {
  name: "reply",
  args: "ID TEXT...",
  arity: [2, Number.POSITIVE_INFINITY],
  summary: "Answer a job: TEXT is saved, then delivered (or typed); an ended job starts again.",
  details:
    "TEXT's words are joined by spaces. `/stop` stops the job.\n" +
    "--if-asked N answers only the question the row asked as N (its `asked`, in `roost ls --json`): if\n" +
    "it has asked something else since, the answer is refused (conflict) and nothing is sent.",
  options: {
    steer: { type: "boolean", help: "deliver it as a steer (now, between steps) rather than a follow-up" },
    "request-id": {
      type: "string",
      value: "ID",
      help: "sent again with the same ID, it is saved once (the resend says duplicate)",
    },
    "if-asked": {
      type: "string",
      value: "N",
      help: "only if the row still asks what it asked as N (its `asked`); else refused, nothing sent",
    },
  },
  examples: [
    "roost reply j3 yes, go ahead",
    "roost reply j3 --steer 'stop editing tests'",
    "roost reply j3 /stop",
    "roost reply j3 --if-asked 4 y",
  ],
  async run({ positionals: [id, ...words], values, json, env }) {
    const requestId = str(values, "request-id");
    const ifAsked = parseAsked(str(values, "if-asked"));
    const result = await callOnce(env, "reply", {
      id: id!,
      text: words.join(" "),
      ...(values.steer ? { mode: "steer" as const } : {}),
      ...(requestId !== undefined ? { requestId } : {}),
      ...(ifAsked !== undefined ? { ifAsked } : {}),
    });
    if (json) printJson(result);
    else if (result.stopped) out(`${id} stopped`);
    else if (result.duplicate) out("already saved (duplicate)");
    else out(result.seq === undefined ? `saved to ${id}` : `saved as reply ${result.seq} to ${id}`);
    return 0;
  },
};

function parseAsked(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw))
    throw new UsageError(`--if-asked must be the row's asked, a whole number, not ${JSON.stringify(raw)}`);
  return Number(raw);
}
