/**
 * The OpenAI Responses wire over a WebSocket (`GET /v1/responses`, upgraded), which Codex's
 * built-in OpenAI provider tries before HTTP (and, refused, says so to its user, "Falling back from
 * WebSockets to HTTPS transport", on every turn). Each `response.create` message is a request as
 * `POST /v1/responses` would carry it; its answer is the same events, one JSON message each, and
 * an error is an `error` event with its status.
 */
import type http from "node:http";
import { WebSocketServer } from "ws";

/**
 * Takes the server's upgrades to `/v1/responses`: `answer` gets each request's body and a stand-in
 * for the HTTP response that turns what the wire writes (server-sent events) into messages.
 */
export function answerOverWebSockets(
  server: http.Server,
  answer: (body: string, res: http.ServerResponse) => Promise<void>,
): { close(): void } {
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    if (!/^\/v1\/responses(\?|$)/.test(req.url ?? "")) return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      // The conversation so far on this socket: a request that names the response before sends
      // only what is new since, so the request is made whole again (what a test reads is whole).
      let history: unknown[] = [];
      ws.on("message", (data) => {
        const { type, ...body } = JSON.parse(String(data)) as Record<string, unknown>;
        if (type !== "response.create") return;
        const input = (body.input ?? []) as unknown[];
        body.input = body.previous_response_id ? [...history, ...input] : input;
        delete body.previous_response_id;
        let status = 200;
        const res = {
          headersSent: false,
          writeHead(code: number) {
            status = code;
            return res;
          },
          write(chunk: string) {
            for (const line of chunk.split("\n")) {
              if (!line.startsWith("data: ")) continue;
              const event = JSON.parse(line.slice(6));
              if (event.type === "response.completed")
                history = [...(body.input as unknown[]), ...event.response.output];
              ws.send(line.slice(6));
            }
            return true;
          },
          end(chunk?: string) {
            if (status >= 400 && chunk) {
              const { error } = JSON.parse(chunk) as { error: unknown };
              ws.send(JSON.stringify({ type: "error", status, error }));
            } else if (chunk) res.write(chunk);
            return res;
          },
        };
        void answer(JSON.stringify(body), res as unknown as http.ServerResponse).catch((err) =>
          ws.send(JSON.stringify({ type: "error", status: 500, error: { message: String(err) } })),
        );
      });
    });
  });
  return {
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
