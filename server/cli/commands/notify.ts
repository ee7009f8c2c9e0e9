/** `roost notify test` (docs/notify.md): a test event to each of roost.json's notify hooks, and how each went. */
import { type Command, out, printJson, UsageError } from "../command.js";
import { callOnce } from "../connect.js";

export const notify: Command = {
  name: "notify",
  args: "test",
  arity: [1, 1],
  summary: "Send a test event to each notify hook in roost.json, and say how each went.",
  details:
    "Each hook is sent one POST of a `test` event in its format (json, ntfy, slack), whatever its\n" +
    "events; each is said on a line: its place, format and host (never its url), and the answer.\n" +
    "The exit code is 1 if any failed. --json: {hooks: [{hook, format, host, ok, status, error}]}.",
  examples: ["roost notify test"],
  async run({ positionals: [action], json, env }) {
    if (action !== "test") throw new UsageError(`no action ${JSON.stringify(action)}: test`);
    const { hooks } = await callOnce(env, "notify-test", {});
    if (json) printJson({ hooks });
    else if (hooks.length === 0)
      out('no notify hooks: add one to roost.json\'s "notify" (docs/notify.md), then restart roost');
    else
      for (const h of hooks)
        out(`hook ${h.hook} (${h.format}, ${h.host}): ${h.ok ? `sent (${h.status})` : `failed: ${h.error}`}`);
    return hooks.every((h) => h.ok) ? 0 : 1;
  },
};
