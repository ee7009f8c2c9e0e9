/**
 * The choices the user makes once and keeps (the rows' layout and order, what to be notified of),
 * in this browser's localStorage. A browser that refuses storage (a private window's quota) gets
 * the defaults, and the choice lasts as long as the page.
 */

export interface Prefs {
  /** One line a row, the screen's width used; or the roomy cards, with their actions. */
  density: "dense" | "roomy";
  /** What needs you first (then your order within a state); or your order alone. */
  order: "state" | "mine";
  /** What raises a notification: needs you (blocked, failed, a new question), your turn, done. */
  notify: { need: boolean; turn: boolean; done: boolean };
}

const DEFAULTS: Prefs = {
  density: "dense",
  order: "state",
  notify: { need: true, turn: false, done: false },
};

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
    order: saved.order === "mine" ? "mine" : DEFAULTS.order,
    notify: { ...DEFAULTS.notify, ...(typeof saved.notify === "object" ? saved.notify : {}) },
  };
}

export function prefs(): Prefs {
  current ??= load();
  return current;
}

export function setPrefs(change: Partial<Prefs>): Prefs {
  current = { ...prefs(), ...change };
  try {
    localStorage.setItem(KEY, JSON.stringify(current));
  } catch {
    // kept for this page only
  }
  return current;
}
