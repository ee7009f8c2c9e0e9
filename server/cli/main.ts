#!/usr/bin/env node
/** The `roost` command. */
import { ConfigError } from "../config.js";
import { runDaemon } from "../main.js";

const [command] = process.argv.slice(2);
if (command === "daemon") {
  runDaemon().catch((err) => {
    console.error(
      err instanceof ConfigError ? `roost: bad config: ${err.message}` : `roost: ${(err as Error).message}`,
    );
    process.exit(err instanceof ConfigError ? 2 : 1);
  });
} else {
  console.error("usage: roost daemon");
  process.exit(64);
}
