/**
 * A terminal relayed from a remote daemon (docs/fleet.md): the remote's terminal WebSocket, for one
 * viewer here, with the remote's token, so that a browser never holds it.
 */
import type WebSocket from "ws";
import { LIMITS, RoostError } from "../../sdk/ts/protocol/index.js";
import { TOO_LARGE } from "./remote-input.js";
import type { RemoteLink } from "./remote-link.js";

/**
 * A job's terminal on a remote, for one viewer here: the remote's terminal WebSocket, whose answer
 * is `attach`'s and whose `output` and `detached` events go to the viewer with the job's id here.
 */
export class RemoteTerminal {
  readonly opened: Promise<unknown>;
  private readonly ws: WebSocket;
  private ended = false;
  /** Its `attach` was answered: the viewer is told when it ends, and what it types goes through. */
  private attached = false;
  /**
   * What the viewer typed (or a size it took) before the remote's terminal answered: sent, in
   * order, once it has. A viewer that attaches again (the hub does, to repaint after a resize)
   * gets a new terminal whose connection is still opening while its keys keep coming.
   */
  private readonly early: string[] = [];
  private readonly ends: (() => void)[] = [];

  constructor(
    link: RemoteLink,
    theirs: string,
    private readonly ours: string,
    private readonly push: (e: object) => void,
  ) {
    this.ws = link.open(`api/jobs/${encodeURIComponent(theirs)}/terminal`);
    link.terminals.add(this);
    this.ends.push(() => link.terminals.delete(this));
    let answered = false;
    this.opened = new Promise((resolve, reject) => {
      this.ws.on("message", (data: Buffer) => {
        if (this.ended) return;
        const first = !answered;
        answered = true;
        const read = link.checks.terminal(data, first, link.name);
        if (!read.ok) {
          // Refused as any message of the remote's is (`broke`), which ends this terminal too.
          const refused = link.refuse(read.why);
          if (first) reject(refused);
          return;
        }
        const msg = read.value;
        if (msg.kind === "attached") {
          if (msg.answer.ok) {
            this.attached = true;
            for (const early of this.early.splice(0)) this.ws.send(early);
            resolve(msg.answer.result);
          } else reject(new RoostError(msg.answer.code, `${link.name}: ${msg.answer.error}`));
        } else if (msg.kind === "output") this.push({ event: "output", id: this.ours, data: msg.data });
        else if (msg.kind === "detached") this.end(msg.why);
        // Else a refusal of input or a size: the viewer's keys went nowhere; nothing to answer.
      });
      this.ws.on("error", (err) => {
        if ((err as { code?: string }).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" && !this.ended) {
          const refused = link.refuse(`its terminal sent ${TOO_LARGE} at once`);
          if (!answered) reject(refused);
          answered = true;
        } else if (!answered) {
          answered = true;
          reject(link.unanswered(err));
        }
      });
      this.ws.on("close", () => {
        if (!answered) {
          answered = true;
          reject(link.unanswered(new Error("the connection closed")));
        }
        this.end(`the remote ${link.name} stopped answering`);
      });
    });
    this.opened.catch(() => {});
  }

  send(op: "input" | "resize", args: Record<string, unknown>): void {
    const { id: _id, ...rest } = args;
    const message = JSON.stringify({ op, args: rest });
    if (this.attached && this.ws.readyState === this.ws.OPEN) this.ws.send(message);
    // Bounded as a viewer's messages in flight are: past that, its keys go where they went before.
    else if (!this.attached && !this.ended && this.early.length < LIMITS.inFlight) this.early.push(message);
  }

  onEnd(fn: () => void): void {
    this.ends.push(fn);
  }

  /** The job ended, or the remote went: the viewer is told, once. */
  end(why: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.attached) this.push({ event: "detached", id: this.ours, why });
    this.finish();
  }

  /** The viewer detached or went: nothing more is said to it. */
  close(): void {
    this.ended = true;
    this.finish();
  }

  private finish(): void {
    this.ws.close();
    for (const fn of this.ends.splice(0)) fn();
  }
}
