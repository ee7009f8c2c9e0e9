/**
 * Replies and peer items into the ACP agent, each a `session/prompt` of its own, one turn at a
 * time: a follow-up waits for the turn under way to end; a steer cancels it (`session/cancel`) and
 * is the next prompt, ahead of the follow-ups. A reply that answers the permission request on the
 * row, or is a command of roost's (`/model`, `/mode`), is taken at once and prompts nothing.
 *
 * An agent that queues prompts itself (claude-agent-acp's `promptQueueing`) is steered without a
 * cancel: the steer is prompted at once, and the agent hands its turn over to it at its next step
 * (the turn under way answered `end_turn`, whose end is then not the row's). A cancel would leave
 * that agent's cancelled turn's end behind, to answer the steer at once while it runs on unseen.
 *
 * Everything is decided the moment it arrives (the agent client's `onArrive`), not in its turn: a
 * steer must not wait behind a follow-up. The client's handlers then only wait, in order, for each
 * to be taken (`taken`), so that an ack covers only what the agent has: a reply is taken when its
 * prompt is sent. A peer item's text keeps roost's envelope (who sent it, not the user).
 */

import type { Reply } from "../agent/index.js";
import { Takers } from "../agent/takers.js";
import { type AcpRow, answered, errorText } from "./acp-row.js";
import type { Permissions } from "./permissions.js";
import type { TurnAnswer } from "./usage.js";

/** The session, as the turns use it (the bridge's, on the ACP connection). */
export interface AcpSession {
  prompt(text: string): Promise<TurnAnswer>;
  cancel(): void;
  /** The agent takes a prompt while a turn runs, and hands the turn over to it (claude-agent-acp). */
  queues: boolean;
  /** `/model NAME`, `/mode NAME`: null when done, else why not. */
  command(name: "model" | "mode", arg: string): Promise<string | null>;
}

interface Prompt {
  seq: number;
  text: string;
  steer: boolean;
}

export class Turns {
  /** Not yet prompted, steers first, oldest first within each. */
  private readonly queue: Prompt[] = [];
  private running: Prompt | null = null;
  /** Prompts wait until the session is made. */
  private session: AcpSession | null = null;
  /** Each arrived seq's "taken", resolved once its prompt was sent (or at once, for an answer or a command). */
  private readonly takers = new Takers();

  constructor(
    private readonly row: AcpRow,
    private readonly permissions: Permissions,
  ) {}

  /** The session is made: what came meanwhile is prompted now. */
  started(session: AcpSession): void {
    this.session = session;
    this.pump();
  }

  /**
   * A prompt came (a reply or an item, not an answer or a command): the row is its turns' from
   * then on, whether a turn runs now or has already ended.
   */
  prompted = false;

  /** A reply or an item has arrived: it answers, runs as a command, or is queued as a prompt. */
  arrive(reply: Reply): void {
    this.takers.arrived(reply.seq);
    if (reply.kind === undefined) {
      if (this.permissions.pending && this.permissions.answer(reply.text)) {
        this.takers.took(reply.seq);
        return;
      }
      const command = /^\/(model|mode)(?:\s+([\s\S]*))?$/.exec(reply.text.trim());
      if (command) {
        this.command(command[1] as "model" | "mode", (command[2] ?? "").trim());
        this.takers.took(reply.seq);
        return;
      }
    }
    const prompt = { seq: reply.seq, text: reply.text, steer: reply.mode === "steer" };
    this.prompted = true;
    if (prompt.steer && this.running && this.session?.queues) {
      // A permission asked meanwhile is answered cancelled: the turn goes on to its next step.
      this.permissions.cancelAll();
      this.start(this.session, prompt);
      return;
    }
    if (prompt.steer && this.running) {
      const firstFollowUp = this.queue.findIndex((p) => !p.steer);
      this.queue.splice(firstFollowUp === -1 ? this.queue.length : firstFollowUp, 0, prompt);
      // The turn ends `cancelled`, and the steer is the next prompt (a permission asked meanwhile
      // is answered cancelled, as ACP asks).
      this.permissions.cancelAll();
      this.session?.cancel();
      return;
    }
    this.queue.push(prompt);
    this.pump();
  }

  /** Resolves once the reply or item `seq` was taken (the client then records and acks it). */
  taken(seq: number): Promise<void> {
    return this.takers.taken(seq);
  }

  private pump(): void {
    const session = this.session;
    if (!session || this.running) return;
    const next = this.queue.shift();
    if (next) this.start(session, next);
  }

  private start(session: AcpSession, prompt: Prompt): void {
    this.running = prompt;
    this.takers.took(prompt.seq);
    this.row.turnStarted();
    session.prompt(prompt.text).then(
      (answer) => {
        // A turn that handed over to a steer: its tokens count, its end is not the row's.
        if (prompt !== this.running) this.row.handedOver(answer.tokens);
        else this.ended(() => this.row.turnEnded(answer.stop, answer.tokens));
      },
      (err: unknown) => {
        if (prompt !== this.running) return;
        // The connection's end (the agent gone) is no answer: the agent's exit says why, on the row.
        if (answered(err)) this.ended(() => this.row.turnFailed(errorText(err)));
        else this.running = null;
      },
    );
  }

  /** A turn ended: the next prompt starts at once (the row stays working), else the row settles. */
  private ended(settle: () => void): void {
    this.running = null;
    this.permissions.cancelAll(); // none outlives its turn
    if (this.queue.length) this.pump();
    else settle();
  }

  private command(name: "model" | "mode", arg: string): void {
    const session = this.session;
    if (!session) this.row.note(`/${name}: the agent is still starting; say it again once it is ready`);
    else if (!arg) this.row.note(`/${name}: say which`);
    else this.run(session, name, arg);
  }

  private run(session: AcpSession, name: "model" | "mode", arg: string): void {
    void session.command(name, arg).then(
      (refused) => {
        if (refused) this.row.note(refused);
      },
      (err: unknown) => this.row.note(`/${name}: ${errorText(err)}`),
    );
  }
}
