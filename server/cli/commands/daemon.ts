/** `roost daemon`: the daemon in the foreground (what `roost start` runs in the background). */
import { UnsafeHome } from "../../home.js";
import { CliError, type Command } from "../command.js";

export const daemon: Command = {
  name: "daemon",
  arity: [0, 0],
  json: false,
  summary: "Run the daemon in the foreground; Ctrl-C stops it (the jobs keep running).",
  details:
    "It logs to this terminal. A bad roost.json, or a home or file in it that is not yours alone,\n" +
    "exits 2, saying where and what to do.",
  examples: ["roost daemon", "ROOST_HOME=/tmp/roost-try roost daemon"],
  async run({ env }) {
    // Loaded here, not with the CLI: every other command starts without the daemon's modules.
    const [{ runDaemon }, { ConfigError }] = await Promise.all([
      import("../../main.js"),
      import("../../config.js"),
    ]);
    try {
      await runDaemon(env);
    } catch (err) {
      // A bad roost.json or home exits 2, so a supervisor can tell "fix the file" from "try again".
      if (err instanceof ConfigError) throw new CliError(`bad config: ${err.message}`, 2);
      if (err instanceof UnsafeHome) throw new CliError(err.message, 2);
      throw err;
    }
    return 0; // listening now: it runs until a signal or `roost shutdown` ends the process
  },
};
