/**
 * The hub's browser tests' helpers: Debian's chromium through playwright-core, logged in to a test
 * daemon with its login link; screenshots into test-output/screenshots/ (git-ignored). A test file
 * sets them up with hub-setup.ts.
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { type ChromiumKind, launchChromium } from "../helpers/chromium.js";
import { ROOT, type Roost } from "../helpers/daemon.js";

export const SHOTS = path.join(ROOT, "test-output/screenshots");

/** Long enough for a shared 2-core machine: these wait for real processes, not for timing. */
export const WAIT = 30000;

/**
 * A test file's browser: a chromium of its own (the headless shell unless `kind` says the full
 * browser: test/helpers/chromium.ts), launched before its tests and closed after them.
 * (One chromium per worker, kept across its files, was tried and taken back: hub-fleet's typing
 * into a relayed terminal then failed in two of three fresh-clone runs, not understood yet.)
 */
export interface FileBrowser {
  newContext: Browser["newContext"];
  close(): Promise<void>;
}

export async function launch(kind: ChromiumKind = "shell"): Promise<FileBrowser> {
  const browser = await launchChromium(kind);
  return { newContext: (opts) => browser.newContext(opts), close: () => browser.close() };
}

export interface HubPage {
  context: BrowserContext;
  page: Page;
}

export interface HubOptions {
  /** Another token than the owner's. */
  token?: string;
  viewport?: { width: number; height: number };
  mobile?: boolean;
  dark?: boolean;
  /** The page's kept choices (web/src/prefs.ts) as the user would have made them before. */
  prefs?: Record<string, unknown>;
  /** The browser's notifications allowed and recorded, the page in the background (see RECORD_NOTIFICATIONS). */
  notify?: boolean;
}

/** A fresh browser context logged in to the daemon (the owner's token, or `token`). */
export async function openHub(browser: FileBrowser, d: Roost, opts: HubOptions = {}): Promise<HubPage> {
  const context = await browser.newContext({
    viewport: opts.viewport ?? { width: 1200, height: 800 },
    isMobile: opts.mobile ?? false,
    hasTouch: opts.mobile ?? false,
    deviceScaleFactor: 1,
    colorScheme: opts.dark ? "dark" : "light",
  });
  context.setDefaultTimeout(WAIT);
  // The preview pane (on by default on a wide screen) only where a test asks for it: a second
  // drawing of the row focused would make the tests' locators of a row ambiguous.
  const prefs = { preview: false, ...opts.prefs };
  await context.addInitScript(
    `if (!localStorage.getItem("roost.prefs")) localStorage.setItem("roost.prefs", ${JSON.stringify(JSON.stringify(prefs))});`,
  );
  if (opts.notify) await context.addInitScript(RECORD_NOTIFICATIONS);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(String(err)));
  // The daemon's Content-Security-Policy must not have refused anything the page needs.
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy/i.test(msg.text())) errors.push(msg.text());
  });
  (page as any).__errors = errors;
  await page.goto(`${d.url}login?token=${encodeURIComponent(opts.token ?? d.token)}`);
  await page.locator(".conn.c-live").waitFor();
  return { context, page };
}

/** Uncaught errors the page threw, and CSP refusals (none expected). */
export const pageErrors = (page: Page): string[] => (page as any).__errors ?? [];

export async function shot(page: Page, name: string, fullPage = false): Promise<string> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  // The ticking "ago" times and the caret are the only moving parts.
  await page.screenshot({ path: file, fullPage, animations: "disabled", caret: "hide" });
  return file;
}

export { freePort } from "../helpers/processes.js";

/** `GET /api/<path>` with the owner's token, from the test (not the page). */
export async function api(d: Roost, p: string): Promise<any> {
  const res = await fetch(`${d.url}api/${p}`, { headers: { authorization: `Bearer ${d.token}` } });
  const body = (await res.json()) as any;
  if (!body.ok) throw new Error(`${p}: ${body.error}`);
  return body.result;
}

export async function apiRow(d: Roost, id: string): Promise<any> {
  const { rows } = await api(d, `list?id=${encodeURIComponent(id)}`);
  return rows[0];
}

/** `POST /api/<op>` with the owner's token, from the test (not the page). */
export async function apiPost(d: Roost, op: string, args: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${d.url}api/${op}`, {
    method: "POST",
    headers: { authorization: `Bearer ${d.token}`, "content-type": "application/json" },
    body: JSON.stringify(args),
  });
  const body = (await res.json()) as any;
  if (!body.ok) throw new Error(`${op}: ${body.error}`);
  return body.result;
}

/**
 * A page script: the browser's notifications allowed and recorded in `window.__notes` (the
 * browser's own API, stubbed: headless chromium shows none), and the page in the background
 * (`document.hasFocus()` false), so that the hub notifies.
 */
const RECORD_NOTIFICATIONS = `
    window.__notes = [];
    window.Notification = class {
      static permission = "granted";
      static requestPermission() { return Promise.resolve("granted"); }
      constructor(title, opts) { window.__notes.push({ title, body: opts && opts.body }); }
      close() {}
    };
    document.hasFocus = () => false;
`;
