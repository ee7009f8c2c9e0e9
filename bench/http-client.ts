/**
 * A small HTTP client for the daemon's HTTP face: `POST /api/<op>` with the owner's token, on
 * keep-alive connections (node:http with an Agent of a fixed number of sockets; requests beyond
 * them wait in the agent's queue, as a browser's or undici's pool would hold them).
 */
import http from "node:http";
import type { Answer } from "./lines.js";

export class HttpHub {
  readonly agent: http.Agent;
  private readonly host: string;
  private readonly port: number;
  /** Requests that had to open a connection (not `reusedSocket`): keep-alive keeps it at `sockets`. */
  connectionsMade = 0;

  constructor(
    url: string,
    private readonly token: string,
    readonly sockets = 16,
  ) {
    const u = new URL(url);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  /** `POST /api/<op>` with the args as its JSON body; resolves with the answer (never rejects). */
  request(op: string, args: unknown): Promise<Answer> {
    const body = JSON.stringify(args);
    return new Promise((resolve) => {
      const req = http.request(
        {
          agent: this.agent,
          host: this.host,
          port: this.port,
          method: "POST",
          path: `/api/${op}`,
          headers: {
            authorization: `Bearer ${this.token}`,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on("data", (c: Buffer) => parts.push(c));
          res.on("end", () => {
            const text = Buffer.concat(parts).toString("utf8");
            try {
              resolve({ id: null, ...(JSON.parse(text) as Omit<Answer, "id">) });
            } catch {
              resolve({ id: null, ok: false, code: `http ${res.statusCode}`, error: text.slice(0, 200) });
            }
          });
          res.on("error", (err) => resolve({ id: null, ok: false, code: "http", error: String(err) }));
        },
      );
      req.on("socket", () => {
        if (!req.reusedSocket) this.connectionsMade++;
      });
      req.on("error", (err) => resolve({ id: null, ok: false, code: "http", error: String(err) }));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
