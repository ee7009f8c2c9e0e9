/** The agent's ops, on its job's connection (agent-protocol.md, "Ops"). */

import { RoostError } from "../../sdk/ts/protocol/index.js";
import { ackOp, hello, report } from "../core/agents.js";
import { type Caller, defineOp } from "./define.js";

const connectionOf = (caller: Caller) => {
  if (!caller.conn) throw new RoostError("unsupported", "this op is for an agent's socket connection");
  return caller.conn;
};

export const agentOps = [
  defineOp({
    name: "hello",
    allow: ["hub", "session"],
    acts: true,
    socketOnly: true,
    handler: (core, args, caller) => hello(core, connectionOf(caller), args),
  }),
  defineOp({
    name: "report",
    allow: ["hub", "session"],
    acts: true,
    socketOnly: true,
    handler: (core, args, caller) => report(core, connectionOf(caller), args),
  }),
  defineOp({
    name: "ack",
    allow: ["hub", "session"],
    acts: true,
    socketOnly: true,
    handler: (core, args) => ackOp(core, args),
  }),
];
