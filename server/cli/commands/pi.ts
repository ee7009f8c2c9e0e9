/**
 * `roost pi install | uninstall | path`: roost's extension in pi's extensions folder
 * (`$PI_CODING_AGENT_DIR/extensions`, else `~/.pi/agent/extensions`), so that every pi loads it:
 * a pi the user runs joins roost as a foreground session when roost's socket is there, and a
 * profile of roost.json that runs `pi` alone is a protocol agent (docs/pi.md). What is written
 * is one line that loads the extension from this roost, so that updating roost updates it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PI_EXTENSION } from "../../paths.js";
import { CliError, type Command, out, printJson, UsageError } from "../command.js";

/** The file `install` writes in pi's extensions folder. */
const FILE_NAME = "roost.js";

/** pi's agent directory, as pi finds it. */
export const piAgentDir = (env: NodeJS.ProcessEnv) =>
  env.PI_CODING_AGENT_DIR || path.join(env.HOME || os.homedir(), ".pi", "agent");

const loader = (extension: string) =>
  `// roost's extension for pi, written by \`roost pi install\` (\`roost pi uninstall\` removes it).\nexport { default } from ${JSON.stringify(extension)};\n`;

export const pi: Command = {
  name: "pi",
  args: "install | uninstall | path",
  arity: [1, 1],
  summary: "Put roost's extension in pi's extensions folder (or take it out), so that every pi loads it.",
  details: [
    "install: writes extensions/roost.js in pi's agent directory ($PI_CODING_AGENT_DIR, else",
    "~/.pi/agent): a pi you run then joins roost (a foreground session) when roost's socket is",
    "there, and a roost.json profile running `pi` alone is a protocol agent. The built-in `pi`",
    "profile loads the extension itself (`pi -e`) and needs no install.",
    "uninstall: removes that file. path: prints the extension's own file (for `pi -e`).",
    "--json: {action, file, extension}.",
  ].join("\n"),
  examples: ["roost pi install", "roost pi uninstall", "pi -e $(roost pi path)"],
  async run({ positionals: [action], json, env }) {
    const file = path.join(piAgentDir(env), "extensions", FILE_NAME);
    if (action === "path") {
      if (json) printJson({ action, file: null, extension: PI_EXTENSION });
      else out(PI_EXTENSION);
      return 0;
    }
    if (action === "install") {
      if (!fs.existsSync(PI_EXTENSION))
        throw new CliError(
          `roost's pi extension is not built (${PI_EXTENSION}): run \`npm run build\` in roost`,
        );
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, loader(PI_EXTENSION));
      if (json) printJson({ action, file, extension: PI_EXTENSION });
      else {
        out(`installed ${file}`);
        out(`  it loads ${PI_EXTENSION}`);
        out("  every pi now loads roost's extension: with roost's socket there, it joins roost.");
      }
      return 0;
    }
    if (action === "uninstall") {
      const had = fs.existsSync(file);
      fs.rmSync(file, { force: true });
      if (json) printJson({ action, file, extension: PI_EXTENSION });
      else out(had ? `removed ${file}` : `nothing to remove: ${file} is not there`);
      return 0;
    }
    throw new UsageError(`pi takes install, uninstall or path, not ${JSON.stringify(action)}`);
  },
};
