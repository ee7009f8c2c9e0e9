/** `whoami` (protocol.md, "The hub's ops"): what this caller may do, and which daemon answers. */
import Type from "typebox";
import { Empty } from "../schema.js";

export const whoami = {
  args: Empty,
  result: Type.Object({
    // The named token this caller used (null: the owner's token in $ROOST_HOME/token, or the socket).
    token: Type.Union([Type.String(), Type.Null()]),
    readOnly: Type.Boolean(),
    daemon: Type.Object({ name: Type.String(), version: Type.String() }),
  }),
} as const;
