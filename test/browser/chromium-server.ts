/**
 * The browser tier's one chromium: the browser project's globalSetup (vitest.config.ts) launches
 * it once for the run and hands its endpoint to the test files, whose `launch()` (browser.ts)
 * connects to it; each test still has a context of its own. One browser process, one GPU process
 * and a few utility processes for the tier, rather than a set per file (12), each launch and close
 * some 1 to 2 s of CPU. What it costs: the files' protocol passes through this process (vitest's
 * own), which serves it (docs/testing.md, "How long it takes").
 */
import { chromium, type LaunchOptions } from "playwright-core";
import type { TestProject } from "vitest/node";

/** Debian's chromium, headless, with nothing of its own to fetch or sync. */
export const CHROMIUM: LaunchOptions = {
  executablePath: process.env.ROOST_CHROMIUM ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
};

declare module "vitest" {
  export interface ProvidedContext {
    /** The shared chromium's address for `chromium.connect`; none where this setup did not run. */
    chromiumEndpoint?: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer(CHROMIUM);
  project.provide("chromiumEndpoint", server.wsEndpoint());
  // Only here: a file's `browser.close()` on a connected browser disconnects it (closing the
  // contexts it made), and leaves the browser to the other files.
  return () => server.close();
}
