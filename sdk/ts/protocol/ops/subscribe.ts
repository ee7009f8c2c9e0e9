/** `subscribe` (protocol.md, "The hub's ops"): the rows, then `row`, `removed` and `feed` events. */
import Type from "typebox";
import { Empty, Row } from "../schema.js";

export const subscribe = { args: Empty, result: Type.Object({ rows: Type.Array(Row) }) } as const;
