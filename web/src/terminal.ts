/**
 * A job's live terminal (xterm.js over `/api/jobs/<id>/terminal`): the screen as it is, then its
 * output; keys typed into it go to the job; it is fitted to its box and the job's terminal resized
 * to match. A read-only viewer watches at the job's own size and sends nothing; a glance (the
 * preview pane) types but keeps the job's size, so that moving through forty rows never reflows
 * forty agents' screens.
 *
 * After a resize, once the job has been quiet for REPAINT_QUIET_MS, the screen is asked for again
 * and drawn afresh (docs/http.md): what shows is the daemon's screen of the job at the new size,
 * whatever the program's own redraw did on its way here (pi's redraw for a new size was seen cut
 * short in the hub, under load, while the daemon's screen had it whole).
 */
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { onMessages, wsUrl } from "./api.js";
import { h } from "./dom.js";

const REPAINT_QUIET_MS = 400;

const THEME = {
  background: "#111418",
  foreground: "#d8dde3",
  cursor: "#d8dde3",
  selectionBackground: "#3a4656",
};

export class TerminalView {
  readonly el: HTMLElement;
  private readonly box: HTMLDivElement;
  private readonly note: HTMLParagraphElement;
  private term: Terminal | null = null;
  private fit: FitAddon | null = null;
  private ws: WebSocket | null = null;
  private disposed = false;
  private retry: number | undefined;
  private backoff = 250;
  private readonly observer: ResizeObserver;
  private fitQueued = false;
  /** A resize was sent: the screen is asked for again once the job has been quiet a moment. */
  private repaint: number | undefined;

  constructor(
    private readonly id: string,
    private readonly readOnly: boolean,
    /** Fit the job's terminal to this box (a job's page); false: watch at the job's own size. */
    private readonly resizes = true,
  ) {
    this.box = h("div", { class: "term-box" });
    this.note = h("p", { class: "term-note", role: "status" });
    this.el = h("div", { class: "term", tabindex: "-1" }, this.box, this.note);
    this.observer = new ResizeObserver(() => this.queueFit());
    this.observer.observe(this.box);
    this.connect();
  }

  /** The job came back (respawned): attach again if not attached. */
  reattach(): void {
    if (!this.ws && !this.disposed) {
      window.clearTimeout(this.retry);
      this.connect();
    }
  }

  focus(): void {
    this.term?.focus();
  }

  dispose(): void {
    this.disposed = true;
    window.clearTimeout(this.retry);
    window.clearTimeout(this.repaint);
    this.observer.disconnect();
    this.ws?.close();
    this.term?.dispose();
  }

  private setNote(text: string): void {
    this.note.textContent = text;
    this.note.hidden = !text;
  }

  private connect(): void {
    this.setNote("Attaching…");
    const ws = new WebSocket(wsUrl(`jobs/${encodeURIComponent(this.id)}/terminal`));
    this.ws = ws;
    let ended = false;
    onMessages(
      ws,
      (msg) => {
        if (msg.ok !== true) {
          ended = true;
          this.setNote(`No terminal: ${String(msg.error ?? "the job is not running")}`);
          return;
        }
        const r = msg.result as { screen: string; cols: number; rows: number };
        this.open(r.cols, r.rows, r.screen);
        this.backoff = 250;
        this.setNote("");
      },
      (msg) => {
        if (msg.event === "output") {
          this.term?.write(String(msg.data));
          if (this.repaint !== undefined) this.repaintWhenQuiet();
        } else if (msg.op === "attach" && msg.ok === true) {
          // The reset goes in the stream (RIS), not term.reset(): output already written waits
          // unparsed in xterm's buffer, and a reset called beside it would be drawn over by it.
          const r = msg.result as { screen: string };
          this.term?.write(`\x1bc${r.screen}`);
          this.el.dataset.repaints = String(Number(this.el.dataset.repaints ?? 0) + 1);
        } else if (msg.event === "detached") {
          ended = true;
          this.setNote(`The terminal ended: ${String(msg.why)}`);
        } else if (msg.ok === false) this.setNote(`Refused: ${String(msg.error)}`);
      },
    );
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.disposed || ended) return;
      // The daemon went away under us: come back by ourselves.
      const delay = this.backoff;
      this.backoff = Math.min(this.backoff * 2, 2000);
      this.setNote("Disconnected from the terminal: reconnecting…");
      this.retry = window.setTimeout(() => this.connect(), delay);
    };
  }

  private open(cols: number, rows: number, screen: string): void {
    this.term?.dispose();
    this.box.replaceChildren();
    const term = new Terminal({
      cols,
      rows,
      theme: THEME,
      fontFamily: 'ui-monospace, "SF Mono", "Cascadia Mono", "DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize: 13,
      scrollback: 5000,
      disableStdin: this.readOnly,
      // A steady cursor: a blinking one keeps the browser drawing twice a second for as long as
      // the page is open (a focused terminal idle for 20 s: 4.8 s of chromium's CPU, 0.5 s steady).
      cursorBlink: false,
      screenReaderMode: false,
    });
    this.term = term;
    term.open(this.box);
    term.textarea?.setAttribute("aria-label", `Terminal of ${this.id}${this.readOnly ? " (read-only)" : ""}`);
    term.write(screen);
    // Ctrl-] leaves the terminal (as it detaches `roost attach`): every other key goes to the job.
    term.attachCustomKeyEventHandler((ev) => {
      if (ev.type === "keydown" && ev.ctrlKey && (ev.key === "]" || ev.code === "BracketRight")) {
        ev.preventDefault();
        term.blur();
        this.el.focus();
        return false;
      }
      return true;
    });
    if (this.readOnly) return;
    term.onData((data) => this.send({ op: "input", args: { data } }));
    if (!this.resizes) return;
    const fit = new FitAddon();
    this.fit = fit;
    term.loadAddon(fit);
    term.onResize(({ cols, rows }) => {
      this.send({ op: "resize", args: { cols, rows } });
      this.repaintWhenQuiet();
    });
    this.queueFit();
  }

  private queueFit(): void {
    if (this.fitQueued || this.readOnly || !this.resizes) return;
    this.fitQueued = true;
    requestAnimationFrame(() => {
      this.fitQueued = false;
      if (!this.term || !this.fit || this.box.clientWidth === 0) return;
      try {
        this.fit.fit();
      } catch {
        // not laid out yet
      }
    });
  }

  /** (Re)arms the repaint: it goes once no output has come for REPAINT_QUIET_MS. */
  private repaintWhenQuiet(): void {
    window.clearTimeout(this.repaint);
    this.repaint = window.setTimeout(() => {
      this.repaint = undefined;
      this.send({ op: "attach" });
    }, REPAINT_QUIET_MS);
  }

  private send(msg: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }
}
