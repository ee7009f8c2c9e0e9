// After tsc: the CLI entry is executable, so `roost` works from a bin link.
import fs from "node:fs";

fs.chmodSync(new URL("../dist/server/cli/main.js", import.meta.url), 0o755);
