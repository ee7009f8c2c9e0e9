/**
 * Opening a link in the user's browser, when there is one: $BROWSER (the convention's list of
 * commands separated by ":", the first one; "%s" in it stands for the link, else the link is
 * added at its end), else the desktop's opener: `open` on macOS, `xdg-open` where a display is
 * (without one, xdg-open would start a text browser in this very terminal).
 */
import { spawn } from "node:child_process";

export interface Opener {
  /** What the user is told it was opened with: "xdg-open", or $BROWSER's command. */
  name: string;
  file: string;
  /** Its arguments for a link. */
  args: (link: string) => string[];
}

/** The browser here, null when there is none to open a link. */
export function openerFor(env: NodeJS.ProcessEnv, platform = process.platform): Opener | null {
  const browser = env.BROWSER?.split(":").find((c) => c.trim());
  if (browser) {
    // Through sh, as the command may carry its own arguments; the link goes in as "$1", never
    // into the command's text, so nothing in it is read by the shell.
    const command = browser.includes("%s") ? browser.replaceAll("%s", '"$1"') : `${browser} "$1"`;
    return { name: browser.trim(), file: "/bin/sh", args: (link) => ["-c", command, "sh", link] };
  }
  if (platform === "darwin") return { name: "open", file: "open", args: (link) => [link] };
  if (env.DISPLAY || env.WAYLAND_DISPLAY)
    return { name: "xdg-open", file: "xdg-open", args: (link) => [link] };
  return null;
}

/**
 * Starts the opener on `link`, on its own (it may be the browser itself, which outlives this
 * command); resolves true once it runs, false when it could not be started (not installed).
 */
export function startOpener(opener: Opener, link: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(opener.file, opener.args(link), { env, detached: true, stdio: "ignore" });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
