/** `token` (http.md, "Tokens"): the HTTP face's tokens; on the unix socket only, the owner's. */
import Type from "typebox";
import { oneOf } from "../schema.js";

const TokenInfo = Type.Object({ name: Type.String(), readOnly: Type.Boolean(), createdAt: Type.String() });

export const token = {
  args: Type.Object({
    // `once`: a login link good once, for a minute (`roost open`'s, for the browser's command line).
    action: oneOf(["link", "once", "create", "revoke", "list"] as const),
    name: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_.-]{1,64}$" })),
    readOnly: Type.Optional(Type.Boolean()),
  }),
  result: Type.Object({
    // The hub's address, and a login link carrying the token (`link`, `create`) or a code (`once`).
    url: Type.Optional(Type.String()),
    link: Type.Optional(Type.String()),
    token: Type.Optional(TokenInfo),
    tokens: Type.Optional(Type.Array(TokenInfo)),
  }),
} as const;
