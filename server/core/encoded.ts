/**
 * One push, many subscribers: each event is turned into JSON once, however many connections (the
 * socket's, the WebSockets) carry it. With 100 subscribers, encoding per subscriber was most of
 * the cost of a report.
 *
 * The one map at a module's level in the core, and no daemon's state: a memo of a pure function,
 * keyed by the event object itself (gone with it), so two daemons in one process that shared it
 * would share nothing but the same answers.
 */
const cache = new WeakMap<object, string>();

export function encoded(event: object): string {
  let text = cache.get(event);
  if (text === undefined) {
    text = JSON.stringify(event);
    cache.set(event, text);
  }
  return text;
}
