/**
 * Viewers of a job's live terminal (`attach`: `roost attach`, later the hub): each gets the screen
 * as it is, then every output after it, exactly. The pty host numbers each job's output chunks
 * and says which one its snapshot ends with; a viewer's first chunks are held until that is known,
 * and the ones the snapshot has already drawn are dropped.
 */
import { RoostError, type TerminalEvent } from "../../sdk/ts/protocol/index.js";
import type { Core } from "./core.js";
import type { LiveJob } from "./registry.js";

export interface Viewer {
  push(event: TerminalEvent): void;
}

/**
 * Who attaches (the `attach` op's caller: a socket connection, a WebSocket): it takes the pushes
 * and says when it goes away. It has one viewer per job, let go with it.
 */
export interface Watcher {
  push(event: TerminalEvent): void;
  onClose(cleanup: () => void): void;
}

interface Chunk {
  data: string;
  seq: number;
}

/** A viewer's state: held chunks until its snapshot is out, then live. */
interface Watch {
  held: Chunk[] | null;
}

export class Viewers {
  private readonly byJob = new Map<string, Map<Viewer, Watch>>();
  /** Each watcher's viewers, by job. */
  private readonly byWatcher = new WeakMap<Watcher, Map<string, Viewer>>();

  constructor(private readonly core: () => Core) {}

  /** `attach`: the watcher's viewer of the job; attaching again gives a fresh screen, one stream. */
  attachFor(watcher: Watcher, job: LiveJob): Promise<{ screen: string; cols: number; rows: number }> {
    const mine = this.viewersOf(watcher);
    this.detachFor(watcher, job.rec.id);
    const viewer: Viewer = { push: (event) => watcher.push(event) };
    mine.set(job.rec.id, viewer);
    return this.attach(job, viewer);
  }

  /** `detach`: the watcher's viewer of the job let go (none is no error). */
  detachFor(watcher: Watcher, jobId: string): void {
    const mine = this.byWatcher.get(watcher);
    const viewer = mine?.get(jobId);
    if (!viewer) return;
    mine!.delete(jobId);
    this.detach(jobId, viewer);
  }

  private viewersOf(watcher: Watcher): Map<string, Viewer> {
    const mine = this.byWatcher.get(watcher);
    if (mine) return mine;
    const made = new Map<string, Viewer>();
    watcher.onClose(() => {
      for (const [id, viewer] of made) this.detach(id, viewer);
    });
    this.byWatcher.set(watcher, made);
    return made;
  }

  async attach(job: LiveJob, viewer: Viewer): Promise<{ screen: string; cols: number; rows: number }> {
    if (job.rec.life !== "running")
      throw new RoostError("bad_request", `${job.rec.id} is not running (${job.rec.life})`);
    const id = job.rec.id;
    const watching = this.byJob.get(id) ?? new Map<Viewer, Watch>();
    this.byJob.set(id, watching);
    const watch: Watch = { held: [] };
    watching.set(viewer, watch);
    try {
      const terminals = await this.core().terminals();
      const snap = await terminals.attach(id);
      // After the answer has gone out (it is written on a later turn than this), what the
      // snapshot had not drawn yet, then live.
      setImmediate(() => {
        if (watching.get(viewer) !== watch) return;
        for (const chunk of watch.held ?? []) if (chunk.seq > snap.seq) viewer.push(output(id, chunk.data));
        watch.held = null;
      });
      return { screen: snap.snapshot, cols: snap.cols, rows: snap.rows };
    } catch (err) {
      this.detach(id, viewer);
      throw err;
    }
  }

  /** Output from the pty host, for every viewer of the job. */
  output(jobId: string, data: string, seq: number): void {
    const watching = this.byJob.get(jobId);
    if (!watching) return;
    for (const [viewer, watch] of watching) {
      if (watch.held) watch.held.push({ data, seq });
      else viewer.push(output(jobId, data));
    }
  }

  detach(jobId: string, viewer: Viewer): void {
    const watching = this.byJob.get(jobId);
    if (!watching?.delete(viewer) || watching.size > 0) return;
    this.byJob.delete(jobId);
    this.release(jobId);
  }

  /** The job ended or was removed: its viewers are told, and let go (a rerun is a new screen). */
  ended(jobId: string, why: string): void {
    const watching = this.byJob.get(jobId);
    if (!watching) return;
    this.byJob.delete(jobId);
    for (const viewer of watching.keys()) viewer.push({ event: "detached", id: jobId, why });
    this.release(jobId);
  }

  /** No viewer left: the pty host stops sending the job's output. */
  private release(jobId: string): void {
    void this.core()
      .terminals()
      .then((t) => t.detach(jobId))
      .catch(() => {});
  }
}

const output = (id: string, data: string): TerminalEvent => ({ event: "output", id, data });
