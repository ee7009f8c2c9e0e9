/**
 * The Gemini wire of the scripted model (scripted-model.ts), which Gemini CLI speaks:
 * `POST /v1beta/models/M:streamGenerateContent?alt=sse`, each event a response whose candidate
 * holds text or functionCall parts, the last with its finishReason and usageMetadata. Gemini CLI
 * is pointed at it with `GOOGLE_GEMINI_BASE_URL` (the server's origin) and any `GEMINI_API_KEY`.
 *
 * What it asks besides its turn is an aside: `generateContent` unstreamed (its checks of who
 * speaks next, of loops, its choice of model, each a JSON answer: one that says the user speaks
 * next and the default model) and `countTokens`.
 */
import { type Answer, type ModelRequest, piecesOf, sse, usageOf, type Wire } from "./model-wire.js";

interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args?: unknown };
  functionResponse?: { name: string; response?: Record<string, unknown> };
}
interface Content {
  role: string;
  parts?: Part[];
}

/** A function's response as text: its `output` (Gemini CLI's tools), or else the whole of it. */
const responseText = (r: Part["functionResponse"]) =>
  typeof r?.response?.output === "string" ? r.response.output : JSON.stringify(r?.response ?? {});

const partText = (p: Part) =>
  p.functionResponse ? responseText(p.functionResponse) : p.thought ? "" : (p.text ?? "");

const usageMetadata = (a: Answer) => {
  const u = usageOf(a);
  return {
    promptTokenCount: u.prompt,
    candidatesTokenCount: u.completion,
    totalTokenCount: u.prompt + u.completion,
  };
};

/** What an unstreamed aside answers: JSON that every check of Gemini CLI reads as "nothing to do". */
const ASIDE_JSON = JSON.stringify({
  reasoning: "scripted",
  next_speaker: "user",
  model_choice: "flash",
  complexity_reasoning: "scripted",
  complexity_score: 1,
  unproductive_state_confidence: 0,
  unproductive_state_analysis: "",
});

export const gemini: Wire = {
  dialect: "gemini",
  handles: (method, url) => method === "POST" && /\/models\/[^/:]+:\w+/.test(url),
  parse(url, body) {
    const [, model = "", method = ""] = /\/models\/([^/:]+):(\w+)/.exec(url) ?? [];
    if (method !== "streamGenerateContent") {
      return {
        aside: method,
        answer: (res) => {
          res.writeHead(200, { "content-type": "application/json" });
          if (method === "countTokens") return void res.end(JSON.stringify({ totalTokens: 1000 }));
          res.end(
            JSON.stringify({
              candidates: [
                { content: { role: "model", parts: [{ text: ASIDE_JSON }] }, finishReason: "STOP", index: 0 },
              ],
              usageMetadata: usageMetadata({}),
            }),
          );
        },
      };
    }
    const contents = (body.contents ?? []) as Content[];
    const tools = ((body.tools ?? []) as { functionDeclarations?: { name: string }[] }[]).flatMap((t) =>
      (t.functionDeclarations ?? []).map((f) => f.name),
    );
    const parts = contents.flatMap((c) => (c.parts ?? []).map((p) => ({ role: c.role, p })));
    return {
      request: {
        dialect: "gemini",
        model,
        messages: contents.map((c) => ({ ...c, content: c.parts })) as ModelRequest["messages"],
        tools,
        text: parts.map(({ p }) => partText(p)).join("\n"),
        toolResults: parts
          .filter(({ p }) => p.functionResponse)
          .map(({ p }) => responseText(p.functionResponse)),
        body,
        keyText: parts
          .filter(({ role, p }) => role === "user" && typeof p.text === "string")
          .map(({ p }) => p.text!),
      },
    };
  },
  stream(res, a, req) {
    const chunk = (parts: Part[], last: boolean) =>
      sse({
        candidates: [
          { content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) },
        ],
        ...(last ? { usageMetadata: usageMetadata(a) } : {}),
        modelVersion: req.model,
      });
    for (const text of piecesOf(a.thinking)) res.write(chunk([{ text, thought: true }], false));
    const pieces = piecesOf(a.text);
    const calls = (a.tools ?? []).map((t) => ({ functionCall: { name: t.name, args: t.args } }));
    pieces.forEach((text, i) => {
      res.write(chunk([{ text }], i === pieces.length - 1 && calls.length === 0));
    });
    if (calls.length > 0 || pieces.length === 0)
      res.write(chunk(calls.length ? calls : [{ text: "" }], true));
    res.end();
  },
  error(res, a) {
    const code = a.status ?? 400;
    res.writeHead(code, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        error: { code, message: a.error, status: code === 400 ? "INVALID_ARGUMENT" : "UNAVAILABLE" },
      }),
    );
  },
};
