/**
 * Triage: which rows the jobs view shows and in what order. The filter (a state word, a profile,
 * text) is the page's, shared by the view and the header's "need you" badge; the order is the
 * user's choice (prefs.ts): what needs you first (`triageRank`), or your own order alone, the
 * rows arranged as trees either way (tree.ts).
 */
import { statesNamed, type ViewState } from "../../sdk/ts/protocol/row-state.js";
import type { Row } from "./api.js";
import { viewState } from "./row-words.js";

export interface Filter {
  /** A word `statesNamed` takes ("need", "blocked", "your turn", "ended"…); "" for every state. */
  state: string;
  /** A profile's name; "" for every profile. */
  profile: string;
  /** Words each found in the row's name, id, profile, summary, question or error; "" for all. */
  text: string;
  /** A remote's name (docs/fleet.md), `local` for this daemon's own jobs; "" for every daemon's. */
  daemon: string;
}

/** The daemon filter's value for this daemon's own jobs (config.ts's LOCAL_DAEMON). */
export const LOCAL_DAEMON = "local";
export const daemonOf = (row: Row) => row.daemon ?? LOCAL_DAEMON;

/** The state filter's choices, in the select's order: [value, label]. */
export const STATE_CHOICES: [string, string][] = [
  ["", "every state"],
  ["need", "need you"],
  ["blocked", "blocked"],
  ["failed", "failed"],
  ["your turn", "your turn"],
  ["waiting", "waiting"],
  ["working", "working"],
  ["starting", "starting"],
  ["done", "done"],
  ["stopped", "stopped"],
  ["running", "running"],
  ["ended", "ended"],
];

export const NO_FILTER: Filter = { state: "", profile: "", text: "", daemon: "" };

/** The text a row is searched in, lower-cased: made once per pushed row (rows are replaced, never changed). */
const haystacks = new WeakMap<Row, string>();
function haystack(row: Row): string {
  let text = haystacks.get(row);
  if (text === undefined) {
    text = [row.name, row.id, row.profile, row.summary, row.question, row.error, row.daemon]
      .filter(Boolean)
      .join("\n")
      .toLowerCase();
    haystacks.set(row, text);
  }
  return text;
}

/** A filter ready to test rows with: its states looked up and its words split once. */
export function matcher(f: Filter): (row: Row) => boolean {
  const states: ViewState[] | null = f.state ? statesNamed(f.state) : null;
  const words = f.text.toLowerCase().split(/\s+/).filter(Boolean);
  return (row) =>
    (!states || states.includes(viewState(row))) &&
    (!f.profile || row.profile === f.profile) &&
    (!f.daemon || daemonOf(row) === f.daemon) &&
    words.every((w) => haystack(row).includes(w));
}

export const isFiltered = (f: Filter) => !!(f.state || f.profile || f.daemon || f.text.trim());

/** The page's filter, and who wants to know when it changes. */
export class Triage {
  filter: Filter = NO_FILTER;
  private readonly listeners = new Set<() => void>();

  set(change: Partial<Filter>): void {
    const next = { ...this.filter, ...change };
    if (
      next.state === this.filter.state &&
      next.profile === this.filter.profile &&
      next.daemon === this.filter.daemon &&
      next.text === this.filter.text
    )
      return;
    this.filter = next;
    for (const fn of this.listeners) fn();
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
