/**
 * Debian's chromium through playwright-core, launched one way for the hub's browser tests
 * (test/browser/browser.ts) and the hub's benchmark (bench/scenarios/hub.ts).
 *
 * Which chromium: the tests run in Chromium's headless shell (Debian's `chromium-headless-shell`:
 * the same Blink and V8, without the full browser around them), where it is installed; it ran
 * the browser tier in about half the time and 60 % of the CPU of the full browser. The full
 * browser (Debian's `chromium`) is launched where it is the point: a test of what only it has
 * (the notifications a service worker shows), and the benchmark, which measures the hub in the
 * browser its user runs. `ROOST_CHROMIUM` names another binary for all of them.
 */
import fs from "node:fs";
import { type Browser, type BrowserServer, chromium, type LaunchOptions } from "playwright-core";

/** "shell": the headless shell if installed (else the full browser); "full": the full browser. */
export type ChromiumKind = "shell" | "full";

const FULL = "/usr/bin/chromium";
const SHELL = "/usr/bin/chromium-headless-shell";

function chromiumPath(kind: ChromiumKind): string {
  if (process.env.ROOST_CHROMIUM) return process.env.ROOST_CHROMIUM;
  return kind === "shell" && fs.existsSync(SHELL) ? SHELL : FULL;
}

const options = (kind: ChromiumKind): LaunchOptions => ({
  executablePath: chromiumPath(kind),
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});

/** Headless chromium, this process's child. */
export function launchChromium(kind: ChromiumKind = "shell"): Promise<Browser> {
  return chromium.launch(options(kind));
}

/**
 * The full chromium as a server whose process is at hand (`process().pid`), for a caller that
 * must end it by pid whatever happens; `connectChromium` opens it.
 */
export function launchChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer(options("full"));
}

export function connectChromium(server: BrowserServer): Promise<Browser> {
  return chromium.connect(server.wsEndpoint());
}
