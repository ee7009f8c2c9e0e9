/** `token` (http.md, "Tokens"): on the owner's socket only; logic in core/jobs/token.ts. */
import { token } from "../core/jobs/token.js";
import { defineOp } from "./define.js";

export const tokenOp = defineOp({
  name: "token",
  allow: ["hub"],
  acts: true,
  socketOnly: true,
  handler: (core, args) => token(core, args),
});
