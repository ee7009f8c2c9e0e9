/** `remotes-reload` (fleet.md): roost.json's `remotes` read again and followed from now on. */
import Type from "typebox";
import { RemoteStatus } from "../schema.js";

export const remotesReload = {
  args: Type.Object({}),
  /** The remotes followed now, each as the `remote` push says it. */
  result: Type.Object({ remotes: Type.Array(RemoteStatus) }),
} as const;
