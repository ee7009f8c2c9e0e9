/** `hello` (protocol.md, "The agent's ops"): on every new connection, before the first report. */
import Type from "typebox";
import { AgentInfo } from "../schema.js";

export const hello = {
  args: Type.Object({
    protocol: Type.Integer({ minimum: 1 }),
    agent: Type.Optional(AgentInfo),
    capabilities: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 })),
    /**
     * The agent's own conversation (docs/agents.md, "Resumed conversations"), once it knows it: the
     * session it is in, and whether it went on with the one roost gave it (`ROOST_AGENT_SESSION`).
     * Said on a connection that speaks for its job; a hello with this alone changes nothing else.
     */
    conversation: Type.Optional(
      Type.Object({ session: Type.String({ minLength: 1, maxLength: 200 }), resumed: Type.Boolean() }),
    ),
  }),
  result: Type.Object({
    protocol: Type.Integer(),
    daemon: Type.Object({ name: Type.String(), version: Type.String() }),
    capabilities: Type.Array(Type.String()),
  }),
} as const;
