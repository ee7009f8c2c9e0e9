/** `peer_register` (protocol.md, "The peer ops"): a foreground pi becomes a session with a row. */
import Type from "typebox";
import { JobId, JobName, Token } from "../schema.js";

export const peer_register = {
  args: Type.Object({
    name: JobName,
    /** The pi's own session key: registering again with it gets the same id back. */
    session: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    pid: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 })),
  }),
  result: Type.Object({ id: JobId, token: Token }),
} as const;
