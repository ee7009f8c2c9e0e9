/**
 * JSON made once. A push goes to many subscribers: each event is turned into JSON once, however
 * many connections (the socket's, the WebSockets) carry it; with 100 subscribers, encoding per
 * subscriber was most of the cost of a report. And a part many answers share (the board's 200
 * tasks, in every `task` answer to 50 sessions working it) is encoded once for all of them
 * (`encodeOnce`), and written into each answer as it is.
 *
 * The one map at a module's level in the core, and no daemon's state: a memo of a pure function,
 * keyed by the object itself (gone with it), so two daemons in one process that shared it would
 * share nothing but the same answers.
 */
const cache = new WeakMap<object, string>();

/** A message's JSON: an event, or an answer (`{id?, ok, result}`) whose result may hold parts encoded once. */
export function encoded(message: object): string {
  let text = cache.get(message);
  if (text === undefined) {
    text = withSharedParts(message);
    cache.set(message, text);
  }
  return text;
}

/**
 * A value that is never changed again (it is frozen here), encoded now: an answer whose result
 * holds it writes this text instead of encoding it again. Its objects inside are the caller's to
 * leave unchanged too.
 */
export function encodeOnce<T extends object>(value: T): T {
  Object.freeze(value);
  if (!cache.has(value)) cache.set(value, Array.isArray(value) ? ofItems(value) : JSON.stringify(value));
  return value;
}

/** An array's JSON, from its items' texts where each was encoded once (a board whose one task changed). */
function ofItems(items: readonly unknown[]): string {
  const texts: string[] = [];
  for (const item of items) {
    const text = item !== null && typeof item === "object" ? cache.get(item) : undefined;
    if (text === undefined) return JSON.stringify(items);
    texts.push(text);
  }
  return `[${texts.join(",")}]`;
}

/** JSON.stringify's text, but an answer's result's values encoded once are written as they are. */
function withSharedParts(message: object): string {
  const result = (message as { result?: unknown }).result;
  if (result === null || typeof result !== "object" || Array.isArray(result)) return JSON.stringify(message);
  const values = Object.entries(result);
  if (!values.some(([, v]) => v !== null && typeof v === "object" && cache.has(v)))
    return JSON.stringify(message);
  const fields: string[] = [];
  for (const [key, value] of values) {
    const text =
      (value !== null && typeof value === "object" ? cache.get(value) : undefined) ?? JSON.stringify(value);
    if (text !== undefined) fields.push(`${JSON.stringify(key)}:${text}`); // undefined: left out, as JSON.stringify does
  }
  const { result: _, ...envelope } = message as Record<string, unknown>;
  const head = JSON.stringify(envelope).slice(0, -1);
  return `${head}${head.length > 1 ? "," : ""}"result":{${fields.join(",")}}}`;
}
