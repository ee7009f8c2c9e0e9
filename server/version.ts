/** roost's own version and install root, from its package.json (found from here, in source and in dist). */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** The root of the installed package. */
export const PACKAGE_ROOT = findPackageRoot();
export const ROOST_VERSION: string =
  (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version?: string })
    .version ?? "0.0.0";
