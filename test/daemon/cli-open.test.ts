/**
 * `roost open`: the built CLI against a real daemon, with stand-ins for the browser (scripts that
 * write down what they were given) as $BROWSER and as `xdg-open` on the PATH. The browser gets a
 * login link good once; the owner's token is only printed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, needsBuild, ok, PLAIN_SHELL, roost } from "../helpers/cli.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";

let d: TestDaemon;
let link = "";
const bin = fs.mkdtempSync(path.join(os.tmpdir(), "roost-open-"));
const recorded = path.join(bin, "recorded");

/** A "browser" that writes its arguments, one a line, to `recorded`. */
function recorder(name: string): string {
  const file = path.join(bin, name);
  fs.writeFileSync(
    file,
    `#!/bin/sh\nprintf '%s\\n' "$@" > "${recorded}.tmp" && mv "${recorded}.tmp" "${recorded}"\n`,
    {
      mode: 0o755,
    },
  );
  return file;
}

/** The daemon's environment with no browser in it: no $BROWSER, no display. */
function noBrowser(): Record<string, string> {
  const env = { ...d.env };
  for (const k of ["BROWSER", "DISPLAY", "WAYLAND_DISPLAY"]) delete env[k];
  return env;
}

const recordedArgs = async (): Promise<string> =>
  String(
    await until(
      "the browser to be started",
      () => fs.existsSync(recorded) && fs.readFileSync(recorded, "utf8"),
    ),
  );

/**
 * The link a browser was given: not the token (other users may read a command line) but a code
 * that logs in as the owner once: the cookie is the owner's token; the same link again is refused.
 */
async function expectOnceLink(given: string): Promise<void> {
  expect(given.startsWith(`${d.url}login?once=`)).toBe(true);
  expect(new URL(given).searchParams.get("once")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const first = await fetch(given, { redirect: "manual" });
  expect(first.status).toBe(303);
  expect(first.headers.get("set-cookie")).toMatch(
    new RegExp(`=${encodeURIComponent(d.token)}; Path=/; HttpOnly`),
  );
  const again = await fetch(given, { redirect: "manual" });
  expect(again.status).toBe(401);
  expect(again.headers.get("set-cookie")).toBeNull();
}

beforeAll(async () => {
  needsBuild();
  d = await startDaemon({ env: PLAIN_SHELL });
  link = (await json(["open", "--print"], d.env)).link;
  expect(link).toBe(`${d.url}login?token=${encodeURIComponent(d.token)}`);
});
afterAll(async () => {
  await d?.cleanup();
  fs.rmSync(bin, { recursive: true, force: true });
});

describe("roost open", () => {
  it("opens the link with $BROWSER, and prints it", async () => {
    fs.rmSync(recorded, { force: true });
    const browser = recorder("browser");
    const r = await roost(["open"], { ...noBrowser(), BROWSER: browser });
    expect(r).toEqual({
      code: 0,
      stdout: `${link}\n`,
      stderr: `opening the hub in your browser (${browser})\n`,
    });
    const [given, ...more] = (await recordedArgs()).split("\n");
    expect(more).toEqual([""]);
    await expectOnceLink(given!);
  });

  it("$BROWSER's first command, with the link where %s is", async () => {
    fs.rmSync(recorded, { force: true });
    const browser = recorder("browser");
    const result = await json(["open"], {
      ...noBrowser(),
      BROWSER: `${browser} --new-tab %s --then:firefox`,
    });
    expect(result).toEqual({ link, opened: `${browser} --new-tab %s --then` });
    const [tab, given, then, end] = (await recordedArgs()).split("\n");
    expect([tab, then, end]).toEqual(["--new-tab", "--then", ""]);
    await expectOnceLink(given!);
  });

  it.skipIf(process.platform === "darwin")("xdg-open when there is a display", async () => {
    fs.rmSync(recorded, { force: true });
    recorder("xdg-open");
    const env = { ...noBrowser(), DISPLAY: ":99", PATH: `${bin}:${process.env.PATH}` };
    const r = await roost(["open"], env);
    expect(r).toEqual({
      code: 0,
      stdout: `${link}\n`,
      stderr: "opening the hub in your browser (xdg-open)\n",
    });
    await expectOnceLink((await recordedArgs()).trimEnd());

    // No xdg-open to be found: the link, and why nothing opened.
    const none = await roost(["open"], { ...env, PATH: path.join(bin, "nothing-here") });
    expect(none).toEqual({
      code: 0,
      stdout: `${link}\n`,
      stderr: "roost: could not start xdg-open: open the link yourself\n",
    });
  });

  it("no browser (no $BROWSER, no display), or --print: only the link", async () => {
    fs.rmSync(recorded, { force: true });
    recorder("xdg-open");
    const headless = { ...noBrowser(), PATH: `${bin}:${process.env.PATH}` };
    expect(await roost(["open"], headless)).toEqual({ code: 0, stdout: `${link}\n`, stderr: "" });
    expect(await json(["open"], headless)).toEqual({ link, opened: null });
    const withBrowser = { ...headless, BROWSER: recorder("browser"), DISPLAY: ":99" };
    expect(await ok(["open", "--print"], withBrowser)).toBe(`${link}\n`);
    expect(await json(["open", "--print"], withBrowser)).toEqual({ link, opened: null });
    // None said it opened one (`opened: null`), and no stand-in wrote anything meanwhile.
    expect(fs.existsSync(recorded)).toBe(false);
  });
});
