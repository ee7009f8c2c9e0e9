/**
 * The agent's `session/request_permission` requests, one at a time on the row: blocked, the tool
 * call's title as the question, the agent's own options as the choices. A reply answers the one on
 * the row once: naming an option (its name, its id, or its number) selects it; any other text
 * rejects the request (the agent's `reject_once` option, else cancelled) and goes on as a prompt
 * of its own, so the agent reads why. A turn cancelled answers every request `cancelled`, as ACP
 * asks of a client.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AcpRow } from "./acp-row.js";
import { oneLine } from "./acp-row.js";

interface Asked {
  question: string;
  toolCall: acp.ToolCallUpdate;
  options: acp.PermissionOption[];
  settle: (outcome: acp.RequestPermissionOutcome) => void;
}

/** The option a reply names: by name or id (any case), or by its number in the list (1, 2 …). */
export function optionNamed(options: acp.PermissionOption[], text: string): acp.PermissionOption | null {
  const t = text.trim().toLowerCase();
  if (!t) return null;
  const n = /^\d+$/.test(t) ? Number(t) : 0;
  if (n >= 1 && n <= options.length) return options[n - 1]!;
  return options.find((o) => o.name.trim().toLowerCase() === t || o.optionId.toLowerCase() === t) ?? null;
}

/** The question a request asks: what the tool call would do. */
export function questionOf(req: acp.RequestPermissionRequest): string {
  const title = req.toolCall.title ? oneLine(req.toolCall.title) : "";
  return title ? `Allow: ${title}?` : "The agent asks for permission to go on: allow?";
}

export class Permissions {
  /** The one on the row first, the others waiting their turn. */
  private readonly queue: Asked[] = [];

  constructor(private readonly row: AcpRow) {}

  /** A request of the agent's: resolves with the user's answer (or cancelled). */
  ask(req: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    return new Promise((resolve) => {
      const asked: Asked = {
        question: questionOf(req),
        toolCall: req.toolCall,
        options: req.options,
        settle: (outcome) => {
          const i = this.queue.indexOf(asked);
          if (i === -1) return; // answered already
          this.queue.splice(i, 1);
          signal.removeEventListener("abort", onAbort);
          resolve({ outcome });
          if (i === 0) this.showNext();
        },
      };
      // The agent withdrew it ($/cancel_request), or the connection closed.
      const onAbort = () => asked.settle({ outcome: "cancelled" });
      if (signal.aborted) return resolve({ outcome: { outcome: "cancelled" } });
      signal.addEventListener("abort", onAbort, { once: true });
      this.queue.push(asked);
      if (this.queue.length === 1) this.show(asked);
    });
  }

  get pending(): boolean {
    return this.queue.length > 0;
  }

  /**
   * A reply, while a request is on the row: true when it named an option (the reply is taken);
   * false when it did not (the request is rejected, and the reply goes on as a prompt).
   */
  answer(text: string): boolean {
    const asked = this.queue[0];
    if (!asked) return false;
    const option = optionNamed(asked.options, text);
    if (option) {
      // Allowed, the call runs: the row shows it, though the agent may not announce it itself.
      if (option.kind === "allow_once" || option.kind === "allow_always") this.row.allowed(asked.toolCall);
      asked.settle({ outcome: "selected", optionId: option.optionId });
      return true;
    }
    const reject = asked.options.find((o) => o.kind === "reject_once");
    asked.settle(reject ? { outcome: "selected", optionId: reject.optionId } : { outcome: "cancelled" });
    return false;
  }

  /** The turn was cancelled: every request is answered so (ACP's rule for a client). */
  cancelAll(): void {
    for (const asked of [...this.queue]) asked.settle({ outcome: "cancelled" });
  }

  private showNext(): void {
    const next = this.queue[0];
    if (next) this.show(next);
    else this.row.unblocked();
  }

  private show(asked: Asked): void {
    this.row.blocked(
      asked.question,
      asked.options.map((o) => o.name),
    );
  }
}
