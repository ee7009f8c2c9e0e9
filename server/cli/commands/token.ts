/** `roost token` and `roost open`: the hub's login links (opened in a browser), and named tokens for dashboards. */

import { openerFor, startOpener } from "../browser.js";
import { CliError, type Command, out, printJson, str, UsageError } from "../command.js";
import { callOnce } from "../connect.js";
import { io } from "../io.js";

export const token: Command = {
  name: "token",
  arity: [0, 0],
  summary: "Print the hub's login link, or make, list and revoke named tokens.",
  details: [
    "With no option: the login link carrying the owner's token ($ROOST_HOME/token).",
    "--name N makes a token of its own, shown once, with its login link; add --read-only",
    "for one that may look (rows, events, terminals) but never act. --revoke N ends one,",
    "and the browsers logged in with it are logged out.",
  ].join("\n"),
  options: {
    name: { type: "string", value: "NAME", help: "make a named token (letters, digits, _ . -)" },
    "read-only": { type: "boolean", help: "with --name: a token that may look but never act" },
    revoke: { type: "string", value: "NAME", help: "end the named token" },
    list: { type: "boolean", help: "list the named tokens (never their secrets)" },
  },
  examples: [
    "roost token",
    "roost token --read-only --name dash",
    "roost token --list",
    "roost token --revoke dash",
  ],
  async run({ values, json, env }) {
    const name = str(values, "name");
    const revoke = str(values, "revoke");
    const readOnly = values["read-only"] === true;
    const list = values.list === true;
    if ([name !== undefined, revoke !== undefined, list].filter(Boolean).length > 1)
      throw new UsageError("use one of --name, --revoke and --list");
    if (readOnly && name === undefined) throw new UsageError("--read-only goes with --name NAME");

    if (list) {
      const { tokens = [] } = await callOnce(env, "token", { action: "list" });
      if (json) printJson({ tokens });
      else if (tokens.length === 0) out("no named tokens (the owner's is in $ROOST_HOME/token)");
      else
        for (const t of tokens)
          out(`${t.name.padEnd(20)} ${t.readOnly ? "read-only" : "full     "} made ${t.createdAt}`);
      return 0;
    }
    if (revoke !== undefined) {
      const result = await callOnce(env, "token", { action: "revoke", name: revoke });
      if (json) printJson(result);
      else out(`revoked ${revoke}`);
      return 0;
    }
    const result =
      name !== undefined
        ? await callOnce(env, "token", { action: "create", name, readOnly })
        : await callOnce(env, "token", { action: "link" });
    if (json) printJson(result);
    else {
      if (result.token)
        out(
          `made ${result.token.readOnly ? "a read-only" : "a full"} token ${result.token.name} (shown once):`,
        );
      out(result.link);
    }
    return 0;
  },
};

export const open: Command = {
  name: "open",
  arity: [0, 0],
  summary: "Open the hub in your browser, and print its login link (the address with the owner's token).",
  details: [
    "The browser is $BROWSER, else `open` on macOS, else `xdg-open` when there is a display; with",
    "none (over ssh, say), the link is only printed, to open where you are (see docs/http.md for",
    "tunnels). The link logs the browser in and takes the token out of the address bar. The",
    "browser is given a link good once, for a minute, not the token: its command line may be read",
    "by other users of this machine. --json: {link, opened}, opened being what opened it, or null.",
  ].join("\n"),
  options: {
    print: { type: "boolean", help: "only print the link: start no browser" },
  },
  examples: ["roost open", "roost open --print"],
  async run({ values, json, env }) {
    const { link } = await callOnce(env, "token", { action: "link" });
    if (!link) throw new CliError("roost answered with no login link");
    const opener = values.print ? null : openerFor(env);
    let opened: string | null = null;
    if (opener) {
      const once = (await callOnce(env, "token", { action: "once" })).link;
      if (!once) throw new CliError("roost answered with no login link");
      if (await startOpener(opener, once, env)) opened = opener.name;
    }
    if (json) printJson({ link, opened });
    else {
      out(link);
      if (opened) io().stderr.write(`opening the hub in your browser (${opened})\n`);
      else if (opener) io().stderr.write(`roost: could not start ${opener.name}: open the link yourself\n`);
    }
    return 0;
  },
};
