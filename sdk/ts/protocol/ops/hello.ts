/** `hello` (protocol.md, "The agent's ops"): on every new connection, before the first report. */
import Type from "typebox";
import { AgentInfo } from "../schema.js";

export const hello = {
  args: Type.Object({
    protocol: Type.Integer({ minimum: 1 }),
    agent: Type.Optional(AgentInfo),
    capabilities: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 })),
  }),
  result: Type.Object({
    protocol: Type.Integer(),
    daemon: Type.Object({ name: Type.String(), version: Type.String() }),
    capabilities: Type.Array(Type.String()),
  }),
} as const;
