/** Small text rules the spec names. */
import { oneLine } from "../../sdk/ts/protocol/index.js";

export { oneLine };

/** At most `max` characters, an ellipsis marking a cut. */
export const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** A short one-line excerpt for the feed and default names. */
export const excerpt = (s: string, max = 120): string => clip(oneLine(s), max);

/** What an error says, whatever was thrown. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
