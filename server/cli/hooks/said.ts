/**
 * What a terminal agent's hook says, in roost's words: the `hook` op's args but the job's identity
 * (`roost hook` adds them), each CLI's input read by its own file (claude.ts, codex.ts, gemini.ts).
 */
import type { OpArgs } from "../../../sdk/ts/protocol/index.js";
import { LIMITS } from "../../../sdk/ts/protocol/limits.js";

export type HookSaid = Omit<OpArgs<"hook">, "id" | "token">;

/** A hook's input: the JSON object a CLI gave it (fields read loosely: each CLI adds its own). */
export type HookInput = Record<string, unknown>;

export const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** Text cut to `max` characters on one line (a row's fields are bounded: the op refuses longer). */
export function clipped(text: string | undefined, max: number): string | undefined {
  if (text === undefined) return undefined;
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The fields of a tool's input that say what it does, by the names the CLIs give them. */
const TELLING = [
  "command",
  "cmd",
  "file_path",
  "absolute_path",
  "path",
  "pattern",
  "url",
  "query",
  "prompt",
  "description",
];

/** What a tool's input says, on one line: its command, its file, its pattern …; else its JSON. */
export function inputSummary(input: unknown): string | undefined {
  if (typeof input === "string") return clipped(input, LIMITS.summary);
  if (input === null || typeof input !== "object") return undefined;
  const fields = input as Record<string, unknown>;
  for (const key of TELLING) {
    const v = fields[key];
    if (Array.isArray(v) && v.every((w) => typeof w === "string"))
      return clipped(v.join(" "), LIMITS.summary);
    if (str(v)) return clipped(v as string, LIMITS.summary);
  }
  const json = JSON.stringify(input);
  return json === "{}" ? undefined : clipped(json, LIMITS.summary);
}

/** A tool's name and what its input says (PreToolUse's, BeforeTool's), bounded. */
export function toolSaid(input: HookInput): Pick<HookSaid, "tool" | "summary"> {
  return {
    tool: clipped(str(input.tool_name) ?? "tool", LIMITS.tool),
    summary: inputSummary(input.tool_input),
  };
}
