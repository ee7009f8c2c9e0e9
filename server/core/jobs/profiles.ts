/** `profiles` (protocol.md, "The hub's ops"): what `dispatch` takes, as roost.json defines it. */
import type { OpResult } from "../../../sdk/ts/protocol/index.js";
import { isAcp, speaksProtocol } from "../../config.js";
import { userHome } from "../../paths.js";
import type { Core } from "../core.js";
import { missingProgram } from "./programs.js";

export function profiles(core: Core): OpResult<"profiles"> {
  return {
    profiles: [...core.config.profiles].map(([name, p]) => {
      const missing = missingProgram(p, p.cwd ?? core.paths.home, core.env);
      return {
        name,
        description: p.description ?? null,
        // Read by every hub, read-only ones too: a secret in an argument (`--password=…`) left out.
        command: p.command.map((arg) => core.secrets.redact(arg)),
        task: p.task ?? "type",
        protocol: speaksProtocol(p),
        acp: isAcp(p),
        messages: p.messages === true,
        worktree: p.worktree ?? false,
        sandbox: p.sandbox ?? false,
        // As dispatch's checkLaunch takes it: the profile's, else the home of the user roost runs as.
        cwd: p.cwd ?? userHome(core.env),
        cwdIsHome: p.cwd === undefined,
        source: core.config.fromFile.has(name) ? ("roost.json" as const) : ("built-in" as const),
        installed: missing === null,
        missing,
      };
    }),
  };
}
