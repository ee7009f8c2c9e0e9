/** `peers` (protocol.md, "The peer ops"): every session on the list, the asker's own marked `self`. */
import Type, { type TSchema } from "typebox";
import { Empty, JOB_KINDS, JobId, LIVES, oneOf, STATES, STATUSES } from "../schema.js";

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Peer = Type.Object({
  id: JobId,
  name: Type.String(),
  profile: Type.String(),
  role: nullable(Type.Literal("concierge")),
  kind: oneOf(JOB_KINDS),
  life: oneOf(LIVES),
  state: oneOf(STATES),
  status: nullable(oneOf(STATUSES)),
  summary: nullable(Type.String()),
  parent: nullable(JobId),
  connected: Type.Boolean(),
  self: Type.Boolean(),
});

export const peers = {
  args: Empty,
  result: Type.Object({ peers: Type.Array(Peer) }),
} as const;
