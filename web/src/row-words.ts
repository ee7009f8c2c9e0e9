/** What a row says in words: its name, its state ("blocked", "exited 1"), its context use. */
import type { Row } from "./api.js";

export const displayName = (row: Row) => row.name || row.id;

/** The words for a row's state: "blocked · waiting", "done", "exited 1"; `cls` picks the colour. */
export function stateWords(row: Row): { label: string; cls: string } {
  if (row.life === "exited" || row.life === "stopped") {
    const how =
      row.life === "stopped" ? "stopped" : `exited${row.exitCode === null ? "" : ` ${row.exitCode}`}`;
    const failed =
      row.state === "failed" || (row.life === "exited" && row.exitCode !== 0 && row.exitCode !== null);
    return { label: how, cls: failed ? "failed" : "ended" };
  }
  if (row.life === "starting") return { label: "starting", cls: "starting" };
  const status = row.status && row.status !== "busy" ? ` · ${row.status}` : "";
  return { label: row.state + (row.state === "working" ? status : ""), cls: row.state };
}

/** Blocked, failed, or exited with an error: counted in the title, notified. */
export const needsAttention = (row: Row) =>
  row.state === "blocked" || row.state === "failed" || (row.life === "exited" && !!row.exitCode);

export const isRunning = (row: Row) => row.life === "running" || row.life === "starting";

/** "context 42% (84k/200k)", or null when the agent reports nothing of it. */
export function contextWords(row: Row): string | null {
  const c = row.context;
  if (!c) return null;
  const pct = c.percent ?? (c.tokens && c.window ? (100 * c.tokens) / c.window : undefined);
  const tokens = c.tokens !== undefined ? `${Math.round(c.tokens / 1000)}k` : "";
  const window = c.window !== undefined ? `/${Math.round(c.window / 1000)}k` : "";
  if (pct === undefined && !tokens) return null;
  return `context ${pct !== undefined ? `${Math.round(pct)}%` : ""}${tokens ? ` (${tokens}${window})` : ""}`.trim();
}
