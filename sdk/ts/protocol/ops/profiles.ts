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
      }),
    ),
  }),
} as const;
