/** `profiles` (protocol.md, "The hub's ops"): what `dispatch` takes, for the hub's pages. */
import Type from "typebox";
import { Empty, oneOf } from "../schema.js";

export const profiles = {
  args: Empty,
  result: Type.Object({
    profiles: Type.Array(
      Type.Object({
        name: Type.String(),
        description: Type.Union([Type.String(), Type.Null()]),
        command: Type.Array(Type.String()),
        task: oneOf(["type", "argv"] as const),
        protocol: Type.Boolean(),
        /** Its jobs run in a git worktree of their own unless a dispatch says otherwise (docs/worktrees.md). */
        worktree: Type.Boolean(),
        /** Its jobs run in roost's sandbox unless a dispatch says otherwise (docs/security.md). */
        sandbox: Type.Boolean(),
        /** Its agent speaks ACP, through roost's ACP bridge (docs/agents.md); `protocol` is true too. */
        acp: Type.Boolean(),
        /**
         * A terminal agent that reads typed text as a message: peers may send to its jobs
         * (protocol.md, "The peer ops": Who takes them).
         */
        messages: Type.Boolean(),
        /** Where its jobs run when `dispatch` names no `cwd`: its own `cwd`, else the daemon's home ($HOME). */
        cwd: Type.String(),
        /** That `cwd` is the daemon's home, not the profile's own: what the hub says ("the daemon's home"). */
        cwdIsHome: Type.Boolean(),
        /** Where it is defined: roost's own, or the home's roost.json (which may replace one of roost's). */
        source: oneOf(["built-in", "roost.json"] as const),
        /** Its program is found and executable; `dispatch` refuses one that is not. */
        installed: Type.Boolean(),
        /** Why it cannot run ("claude is not installed: not found on the PATH"); null when it can. */
        missing: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  }),
} as const;
