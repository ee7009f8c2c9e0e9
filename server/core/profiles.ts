/** `profiles` (protocol.md, "The hub's ops"): what `dispatch` takes, as roost.json defines it. */
import type { OpResult } from "../../sdk/ts/protocol/index.js";
import type { Core } from "./core.js";

export function profiles(core: Core): OpResult<"profiles"> {
  return {
    profiles: [...core.config.profiles].map(([name, p]) => ({
      name,
      description: p.description ?? null,
      command: p.command,
      task: p.task ?? "type",
      protocol: p.protocol ?? false,
    })),
  };
}
