/**
 * Answers in the order of their requests, however long each takes to work out (docs/protocol.md,
 * "The socket"): a request that is answered later holds its place, and what is sent meanwhile goes
 * out after it. The one copy for the daemon's socket (bridge/connection.ts), a terminal's WebSocket
 * (http/websockets.ts) and the pty host's connections (pty/conn.ts).
 *
 * No imports: the pty host, which must stay apart from the rest of roost, uses it too.
 */
interface Place<T> {
  value: T | undefined;
  filled: boolean;
}

export class OrderedAnswers<T> {
  private readonly places: Place<T>[] = [];

  /** `write` sends one answer; it is called in the requests' order, each answer once. */
  constructor(private readonly write: (value: T) => void) {}

  /** Places held and not yet written: what a connection counts as in flight. */
  get held(): number {
    return this.places.length;
  }

  /** Written now, or after the places held before it. */
  send(value: T): void {
    if (this.places.length === 0) this.write(value);
    else this.places.push({ value, filled: true });
  }

  /** Holds a place: what is sent meanwhile goes after it. Fill it once (a later fill is ignored). */
  hold(): (value: T) => void {
    const place: Place<T> = { value: undefined, filled: false };
    this.places.push(place);
    return (value) => {
      if (place.filled) return;
      place.value = value;
      place.filled = true;
      while (this.places[0]?.filled) this.write(this.places.shift()!.value as T);
    };
  }
}
