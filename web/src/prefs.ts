/**
 * The choices the user makes once and keeps (the rows' layout and order, what to be notified of,
 * the parents folded, the directories dispatched to), in this browser's localStorage. A browser that refuses storage (a private
 * window's quota) gets the defaults, and the choice lasts as long as the page.
 */

export interface Prefs {
  /** One line a row, the screen's width used; or the roomy cards, with their actions. */
  density: "dense" | "roomy";
  /**
   * What needs you first (then your order within a state); your order alone; by repository; or by
   * what the running jobs use (CPU, memory: docs/budgets.md, "Resources"), the most first.
   */
  order: "state" | "mine" | "repo" | "cpu" | "mem";
  /** What raises a notification: needs you (blocked, failed, a new question), your turn, done. */
  notify: { need: boolean; turn: boolean; done: boolean };
  /** The parents folded (their children hidden), by job id; the latest last. */
  folded: string[];
  /** The directories dispatched to from this browser, the latest first (dispatch-where.ts). */
  dirs: string[];
  /** The preview pane beside the jobs, on a wide screen (preview-pane.ts). */
  preview: boolean;
  /** Ended rows (done, stopped) fold away this many minutes after they ended; 0: never (rows-tidy.ts). */
  foldEnded: number;
}

const ORDERS: readonly Prefs["order"][] = ["state", "mine", "repo", "cpu", "mem"];

const DEFAULTS: Prefs = {
  density: "dense",
  order: "state",
  notify: { need: true, turn: false, done: false },
  folded: [],
  dirs: [],
  preview: true,
  foldEnded: 10,
};

/** How many folded parents are kept: ids of jobs long gone drop out, the oldest first. */
const FOLDED_KEPT = 500;

const KEY = "roost.prefs";

let current: Prefs | null = null;

function load(): Prefs {
  let saved: Partial<Prefs> = {};
  try {
    saved = JSON.parse(localStorage.getItem(KEY) ?? "{}") ?? {};
  } catch {
    // none kept, or not ours to read
  }
  return {
    density: saved.density === "roomy" ? "roomy" : DEFAULTS.density,
    order: ORDERS.includes(saved.order as Prefs["order"]) ? (saved.order as Prefs["order"]) : DEFAULTS.order,
    notify: { ...DEFAULTS.notify, ...(typeof saved.notify === "object" ? saved.notify : {}) },
    folded: Array.isArray(saved.folded) ? saved.folded.filter((id) => typeof id === "string") : [],
    dirs: Array.isArray(saved.dirs) ? saved.dirs.filter((d) => typeof d === "string") : [],
    preview: saved.preview !== false,
    foldEnded:
      typeof saved.foldEnded === "number" && saved.foldEnded >= 0 ? saved.foldEnded : DEFAULTS.foldEnded,
  };
}

export function prefs(): Prefs {
  current ??= load();
  return current;
}

/** Folds a parent (hides its children) or unfolds it; kept. */
export function setFolded(id: string, fold: boolean): Prefs {
  const folded = prefs().folded.filter((x) => x !== id);
  if (fold) folded.push(id);
  return setPrefs({ folded: folded.slice(-FOLDED_KEPT) });
}

/** Said on `window` when a choice changes, for the parts that follow one (the preview pane). */
export const PREFS_EVENT = "roost:prefs";

export function setPrefs(change: Partial<Prefs>): Prefs {
  current = { ...prefs(), ...change };
  window.dispatchEvent(new Event(PREFS_EVENT));
  try {
    localStorage.setItem(KEY, JSON.stringify(current));
  } catch {
    // kept for this page only
  }
  return current;
}
