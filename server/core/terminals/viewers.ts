/**
 * Viewers of a job's live terminal (`attach`: `roost attach`, the hub): each gets the screen as it
 * is, then every output after it, exactly. The pty host numbers each job's output chunks and says
 * which one its snapshot ends with; a viewer's first chunks are held until that is known, and the
 * ones the snapshot has already drawn are dropped.
 *
 * And the job's terminal size (docs/protocol.md, `resize`): the largest of its attached viewers'
 * sizes, columns and rows each (as tmux's `aggressive-resize`), so that no viewer shrinks it for
 * the others; with none (or none that said a size), the job's own size.
 */
import { RoostError, type TerminalEvent } from "../../../sdk/ts/protocol/index.js";
import type { Terminals } from "../core.js";
import type { LiveJob, Registry, Size } from "../jobs/index.js";

export interface Viewer {
  push(event: TerminalEvent): void;
  /** Its terminal's size, once it said it (`resize`); a viewer that only watches says none. */
  size: Size | null;
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

  constructor(
    private readonly registry: Pick<Registry, "find">,
    private readonly terminals: () => Promise<Terminals>,
  ) {}

  /**
   * `attach`: the watcher's viewer of the job (with the size it said, even before it attached);
   * attaching again gives a fresh screen, one stream.
   */
  attachFor(watcher: Watcher, job: LiveJob): Promise<{ screen: string; cols: number; rows: number }> {
    const viewer = this.viewerOf(watcher, job.rec.id);
    this.byJob.get(job.rec.id)?.delete(viewer); // its earlier stream, if any: this one replaces it
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

  /**
   * `resize` from a watcher: its viewer's size, which counts while it is attached (a size said
   * before the attach, as `roost attach` does, counts from the attach on).
   */
  resizeFor(watcher: Watcher, job: LiveJob, size: Size): Promise<void> {
    this.viewerOf(watcher, job.rec.id).size = size;
    return this.fitTerminal(job);
  }

  /** `resize` from a caller that cannot view (an HTTP request): the job's own size. */
  resizeOwn(job: LiveJob, size: Size): Promise<void> {
    job.ownSize = size;
    return this.fitTerminal(job);
  }

  /** The watcher's viewer of the job, made on its first attach or resize. */
  private viewerOf(watcher: Watcher, jobId: string): Viewer {
    const mine = this.viewersOf(watcher);
    let viewer = mine.get(jobId);
    if (!viewer) {
      viewer = { push: (event) => watcher.push(event), size: null };
      mine.set(jobId, viewer);
    }
    return viewer;
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
      await this.fitTerminal(job); // asked before the snapshot, so that it comes at the new size
      const terminals = await this.terminals();
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
    if (!watching?.delete(viewer)) return;
    if (watching.size === 0) {
      this.byJob.delete(jobId);
      this.release(jobId);
    }
    const job = this.registry.find(jobId);
    if (job) void this.fitTerminal(job).catch(() => {}); // the largest of those left, or the job's own
  }

  /**
   * The job's terminal at the size it should have: the largest of its attached viewers' sizes
   * (columns and rows each), else its own. Asked of the pty host only when it differs from the
   * last one asked; a running job only.
   */
  async fitTerminal(job: LiveJob): Promise<void> {
    if (job.rec.life !== "running") return;
    let cols = 0;
    let rows = 0;
    for (const viewer of this.byJob.get(job.rec.id)?.keys() ?? []) {
      if (!viewer.size) continue;
      cols = Math.max(cols, viewer.size.cols);
      rows = Math.max(rows, viewer.size.rows);
    }
    const size = cols > 0 ? { cols, rows } : job.ownSize;
    if (job.size?.cols === size.cols && job.size.rows === size.rows) return;
    job.size = size; // before the await: the next call compares with this one, and is sent after it
    try {
      await (await this.terminals()).resize(job.rec.id, size.cols, size.rows);
    } catch (err) {
      if (job.size === size) job.size = null; // not known now: the next call asks again
      throw err;
    }
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
    void this.terminals()
      .then((t) => t.detach(jobId))
      .catch(() => {});
  }
}

const output = (id: string, data: string): TerminalEvent => ({ event: "output", id, data });
