/**
 * When an agent built on this client has taken each reply (pi's extension, the ACP bridge): the
 * client waits on a seq's `taken` before it records and acks it, and the agent says `took` when
 * its program has the reply. A `took` that comes before the wait is kept.
 */
export class Takers {
  private readonly bySeq = new Map<number, { promise: Promise<void>; resolve: () => void }>();

  /** A reply arrived: its "taken" exists from now on, whichever of the two comes first. */
  arrived(seq: number): void {
    this.of(seq);
  }

  took(seq: number): void {
    this.of(seq).resolve();
  }

  /** Resolves once taken; forgotten then (each seq's handler asks once, in order). */
  taken(seq: number): Promise<void> {
    return this.of(seq).promise.then(() => {
      this.bySeq.delete(seq);
    });
  }

  private of(seq: number) {
    let t = this.bySeq.get(seq);
    if (!t) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      t = { promise, resolve };
      this.bySeq.set(seq, t);
    }
    return t;
  }
}
