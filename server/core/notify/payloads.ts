/**
 * What a hook is sent (docs/notify.md), by its format: `json`, roost's own `{event, row, link}`;
 * `ntfy`, ntfy's JSON publish (`{topic, title, message, tags, click, priority}`, posted to the
 * server's root); `slack`, an incoming webhook's `{text, blocks}`. Built from the row (or the
 * schedule) alone: the hub's token is in none of them, and `link` is the hub's page without it.
 */
import type { Row, Schedule } from "../../../sdk/ts/protocol/index.js";
import type { NotifyEvent } from "../../notify-config.js";

/** What happened, once, whatever the format: a hook's body is made from it. */
export interface Happened {
  event: NotifyEvent;
  row: Row | null;
  schedule?: Schedule;
  /** The hub's page for it (no token: the reader logs in as they do). */
  link: string;
  /** One line: `j7 "deploy-3" is blocked`. */
  title: string;
  /** What it asks or says: the question and its choices, the error, the summary. */
  message: string;
}

/** A POST: where, and its JSON body. */
export interface Request {
  url: string;
  body: unknown;
}

const TAGS: Record<NotifyEvent, string> = {
  blocked: "question",
  failed: "x",
  done: "white_check_mark",
  "schedule-needs-you": "alarm_clock",
  "budget-warning": "money_with_wings",
  "budget-exceeded": "money_with_wings",
  test: "bell",
};

/** ntfy's priorities: 4 (high) for what waits on the user, 3 (default) for the rest. */
const urgent = (e: NotifyEvent) => e === "blocked" || e === "failed" || e === "schedule-needs-you";

/** The body for `format`, posted where that format posts. */
export function requestFor(format: string, url: string, h: Happened): Request {
  if (format === "ntfy") {
    // ntfy's JSON publish goes to the server's root, the topic in the body: the url's last part.
    const u = new URL(url);
    const parts = u.pathname.split("/").filter(Boolean);
    const topic = parts.pop()!;
    u.pathname = `/${parts.join("/")}`;
    return {
      url: u.toString(),
      body: {
        topic,
        title: h.title,
        message: h.message || h.title,
        tags: [TAGS[h.event]],
        priority: urgent(h.event) ? 4 : 3,
        click: h.link,
      },
    };
  }
  if (format === "slack")
    return {
      url,
      body: {
        text: `${h.title}${h.message ? `: ${h.message}` : ""}`,
        blocks: [
          {
            type: "section",
            text: { type: "mrkdwn", text: `*${slackEscape(h.title)}*\n${slackEscape(h.message)}` },
          },
          { type: "context", elements: [{ type: "mrkdwn", text: `<${h.link}|Open in roost>` }] },
        ],
      },
    };
  return {
    url,
    body: { event: h.event, row: h.row, link: h.link, ...(h.schedule ? { schedule: h.schedule } : {}) },
  };
}

/** Slack's mrkdwn takes &, < and > as its own: an agent's text is shown, not read as links. */
const slackEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The title and message of a row's event. */
export function rowWords(event: NotifyEvent, row: Row): { title: string; message: string } {
  const who = `${row.id} ${JSON.stringify(row.name || row.id)}`;
  if (event === "blocked") {
    const choices = row.choices?.length ? ` [${row.choices.join(" | ")}]` : "";
    return {
      title: `${who} is blocked`,
      message: `${row.question ?? row.summary ?? "it waits for you"}${choices}`,
    };
  }
  if (event === "failed") return { title: `${who} failed`, message: row.error ?? row.summary ?? "" };
  // An agent that said done and stays for more is shown `your turn`: the title says what the hub shows.
  const word = row.view === "your turn" ? "is your turn" : "is done";
  return { title: `${who} ${word}`, message: row.summary ?? "" };
}
