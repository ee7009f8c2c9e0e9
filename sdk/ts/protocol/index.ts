export * from "./board-view.js";
export * from "./concierge.js";
export * from "./errors.js";
export * from "./ops.js";
export * from "./row-state.js";
export * from "./schedules.js";
export * from "./schema.js";
export * from "./text.js";
