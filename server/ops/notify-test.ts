/** `notify-test` (docs/notify.md): the owner's, on the socket (the hooks' urls are roost.json's secrets); logic in core/notify/notify.ts. */
import { defineOp } from "./define.js";

export const notifyTestOp = defineOp({
  name: "notify-test",
  allow: ["hub"],
  acts: true,
  socketOnly: true,
  handler: async (core) => ({ hooks: await core.notify.test() }),
});
