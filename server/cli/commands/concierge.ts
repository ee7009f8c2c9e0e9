/**
 * The concierge from the command line (docs/protocol.md, "The concierge"): `roost concierge
 * on|off|status` (and its policy: `answer never|routine|always`, `act on|off`, `undo`), `roost ask
 * TEXT` (the user's words to it), and `roost orders` (the standing orders: list, add, rm).
 */
import type { ConciergeStatus, StandingOrder } from "../../../sdk/ts/protocol/index.js";
import { dueIn } from "../../../sdk/ts/protocol/time-words.js";
import { type Command, out, printJson, str, UsageError } from "../command.js";
import { callOnce } from "../connect.js";
import { inCliWords } from "../errors.js";
import { ago } from "../format.js";
import { io } from "../io.js";

const ANSWERS = ["never", "routine", "always"] as const;

function statusLines(s: ConciergeStatus): string[] {
  const lines = [
    s.on
      ? `the concierge is on: ${s.id} (${s.state})`
      : s.id
        ? `the concierge is off (${s.id}, ${s.state})`
        : "the concierge is off",
    `answers: ${s.policy.answer}; acts: ${s.policy.act ? "yes" : "no"}; standing orders: ${s.orders}`,
  ];
  if (s.answered)
    lines.push(
      `last answer: ${JSON.stringify(s.answered.text)} to ${s.answered.id} "${s.answered.name}" ${ago(s.answered.at)} ago${s.answered.undone ? " (undone)" : ""}`,
    );
  if (s.need) lines.push(`it needs you: ${s.need.text}`);
  return lines;
}

export const concierge: Command = {
  name: "concierge",
  args: "[on|off|status|answer POLICY|act on|off|undo]",
  arity: [0, 2],
  summary: "Turn the hub's own agent on or off, see how it stands, set its policy, undo its last answer.",
  details: [
    "  on [--profile P]   start it: pi with roost's concierge, or P's agent (any protocol agent)",
    "  off                stop it (its row stays)",
    "  status             (the default) on or off, its policy, its last answer, what it needs of you",
    "  answer never|routine|always   may it answer sessions' questions in your place",
    "  act on|off         may it stop, respawn and dispatch sessions",
    "  undo               withdraw its last answer: the session is told to disregard it",
    "--json: the status.",
  ].join("\n"),
  options: {
    profile: { type: "string", value: "P", help: "on: the profile whose agent is the concierge" },
  },
  examples: ["roost concierge on", "roost concierge answer routine", "roost concierge undo"],
  async run({ positionals: [action = "status", arg], values, json, env }) {
    let args: Record<string, unknown>;
    switch (action) {
      case "on": {
        const profile = str(values, "profile");
        args = { action, ...(profile ? { launch: { profile, cwd: io().cwd() } } : {}) };
        break;
      }
      case "off":
      case "status":
      case "undo":
        args = { action };
        break;
      case "answer":
        if (!ANSWERS.includes(arg as (typeof ANSWERS)[number]))
          throw new UsageError("concierge answer needs never, routine or always");
        args = { action, answer: arg };
        break;
      case "act":
        if (arg !== "on" && arg !== "off") throw new UsageError("concierge act needs on or off");
        args = { action, act: arg === "on" };
        break;
      default:
        throw new UsageError(`no action ${JSON.stringify(action)}: on, off, status, answer, act or undo`);
    }
    if (arg !== undefined && action !== "answer" && action !== "act")
      throw new UsageError(`concierge ${action} takes no argument`);
    const status = await callOnce(env, "concierge", args as never).catch((err) => {
      // The daemon names the wire's args; here they are `--profile P`.
      throw inCliWords(err, [
        ['concierge {action: "on", launch: {profile}}', "`roost concierge on --profile P`"],
      ]);
    });
    if (json) printJson(status);
    else {
      if (status.undone) out(`withdrew ${JSON.stringify(status.undone.text)} from ${status.undone.id}`);
      for (const line of statusLines(status)) out(line);
    }
    return 0;
  },
};

export const ask: Command = {
  name: "ask",
  args: "TEXT...",
  arity: [1, Number.POSITIVE_INFINITY],
  summary: "Ask the concierge something: its answer comes in the hub and in `roost events`.",
  examples: ["roost ask what needs me", "roost ask 'answer j4 for me: yes'"],
  async run({ positionals, json, env }) {
    const r = await callOnce(env, "concierge-ask", { text: positionals.join(" ") });
    if (json) printJson(r);
    else out(`asked the concierge (${r.id})`);
    return 0;
  },
};

function orderLine(o: StandingOrder): string {
  const clock = o.words ? ` [${o.words}${o.nextAt ? `, next ${dueIn(o.nextAt)}` : ""}]` : "";
  const applied = o.count ? `; applied ${o.count}×, last ${ago(o.lastAt!)} ago` : "";
  return `#${o.id}${clock} ${o.text} (by ${o.by}${applied})`;
}

export const orders: Command = {
  name: "orders",
  args: "[add TEXT... [--when WHEN] | rm ID...]",
  arity: [0, Number.POSITIVE_INFINITY],
  summary: "The concierge's standing orders: list them, add one (on a clock with --when), remove some.",
  details:
    'WHEN is a schedule\'s: every N(s|m|h|d), daily HH:MM, weekdays HH:MM, cron "m h dom mon dow". --json: {orders}.',
  options: { when: { type: "string", value: "WHEN", help: "add: when it is due (quote it)" } },
  examples: ["roost orders", "roost orders add summarise the day --when 'daily 18:00'", "roost orders rm 2"],
  async run({ positionals: [action, ...rest], values, json, env }) {
    let result: { orders: StandingOrder[]; order?: StandingOrder };
    if (action === undefined) result = await callOnce(env, "concierge-order", { action: "list" });
    else if (action === "add") {
      if (rest.length === 0) throw new UsageError("orders add needs TEXT");
      const when = str(values, "when");
      result = await callOnce(env, "concierge-order", {
        action: "add",
        text: rest.join(" "),
        ...(when !== undefined ? { when } : {}),
      });
    } else if (action === "rm") {
      if (rest.length === 0) throw new UsageError("orders rm needs ID...");
      for (const id of rest) result = await callOnce(env, "concierge-order", { action: "rm", id });
      result ??= { orders: [] };
    } else throw new UsageError(`no action ${JSON.stringify(action)}: add or rm (none: the list)`);
    if (json) printJson({ orders: result!.orders, ...(result!.order ? { order: result!.order } : {}) });
    else if (action === "add") out(`kept ${orderLine(result!.order!)}`);
    else if (result!.orders.length === 0)
      out("no standing orders: try `roost orders add tell me when CI fails`");
    else for (const o of result!.orders) out(orderLine(o));
    return 0;
  },
};
