/** The notify hooks' room (docs/notify.md): what the rest of the daemon uses of it. */
export { type HookResult, Notify } from "./notify.js";
