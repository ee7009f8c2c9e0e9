/**
 * Every browser test file's setup, one way: the file's browser (launch(): a chromium of its own),
 * launched before its tests and closed after them, and a function that opens a page logged in to a daemon (openHub), whose
 * context is closed after each test.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import type { ChromiumKind } from "../helpers/chromium.js";
import type { Roost } from "../helpers/daemon.js";
import { type FileBrowser, type HubOptions, type HubPage, launch, openHub } from "./browser.js";

/**
 * Call at the file's top level; `defaults` go to every page, under what each call says; `kind`:
 * which chromium (test/helpers/chromium.ts).
 */
export function hubBrowser(
  defaults: HubOptions = {},
  kind: ChromiumKind = "shell",
): (d: Roost, opts?: HubOptions) => Promise<HubPage> {
  let browser: FileBrowser | undefined;
  const open: HubPage[] = [];
  beforeAll(async () => {
    browser = await launch(kind);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const hub of open.splice(0)) await hub.context.close();
  });
  return async (d, opts = {}) => {
    if (!browser)
      throw new Error("no browser: hubBrowser() launches it before the tests of the file that calls it");
    const hub = await openHub(browser, d, { ...defaults, ...opts });
    open.push(hub);
    return hub;
  };
}
