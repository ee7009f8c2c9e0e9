/**
 * A refusal because the row asks something else now (`reply`'s `ifAsked`, docs/protocol.md): the
 * answer was drawn for a question the row no longer asks, and nothing was sent.
 */
import { ApiError } from "./api.js";

export const isConflict = (err: unknown): boolean => err instanceof ApiError && err.code === "conflict";

/** What the row says then: its new question is drawn above it. */
export const conflictText = (id: string): string =>
  `${id} now asks something else: nothing was sent. Read its question again and answer that.`;
