/**
 * Debian's chromium through playwright-core, launched one way for the hub's browser tests
 * (test/browser/browser.ts) and the hub's benchmark (bench/scenarios/hub.ts). `ROOST_CHROMIUM`
 * names another binary.
 */
import { type Browser, type BrowserServer, chromium, type LaunchOptions } from "playwright-core";

const options = (): LaunchOptions => ({
  executablePath: process.env.ROOST_CHROMIUM ?? "/usr/bin/chromium",
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
export function launchChromium(): Promise<Browser> {
  return chromium.launch(options());
}

/**
 * The same chromium as a server whose process is at hand (`process().pid`), for a caller that must
 * end it by pid whatever happens; `connectChromium` opens it.
 */
export function launchChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer(options());
}

export function connectChromium(server: BrowserServer): Promise<Browser> {
  return chromium.connect(server.wsEndpoint());
}
