/**
 * One push, many subscribers: each event is turned into JSON once, however many connections (the
 * socket's, the WebSockets) carry it. With 100 subscribers, encoding per subscriber was most of
 * the cost of a report.
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
