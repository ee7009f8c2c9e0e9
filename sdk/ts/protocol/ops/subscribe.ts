/**
 * `subscribe` (protocol.md, "The hub's ops"): the rows (the remotes' too, with the remotes when
 * roost.json names some), then `row`, `removed`, `feed`, `board`, `schedule` and `remote` events.
 */
import Type from "typebox";
import { Empty, RemoteStatus, Row } from "../schema.js";

export const subscribe = {
  args: Empty,
  result: Type.Object({ rows: Type.Array(Row), remotes: Type.Optional(Type.Array(RemoteStatus)) }),
} as const;
