/**
 * Validation with the schema set, each check compiled once (at its first use), and errors a person can act on: the field's
 * path and what it must be ("report.summary must not have more than 500 characters").
 *
 * Every value checked here is first bounded in depth (LIMITS.depth), whatever its schema says of
 * it: a value nested thousands deep breaks every recursive walk after it (JSON.stringify, a push,
 * a store write), so it is refused before any of them, in this one place.
 */
import type { TObject, TSchema } from "typebox";
import { Compile } from "typebox/compile";
import type { TLocalizedValidationError } from "typebox/error";
import { tooDeep } from "../sdk/ts/protocol/bounds.js";
import { LIMITS } from "../sdk/ts/protocol/index.js";

export type Check<T> = (value: unknown) => { ok: true; value: T } | { ok: false; message: string };

/**
 * `label` prefixes field paths ("" for none); `root` names the value itself when it is wrong as a
 * whole; `depth` is LIMITS.depth but for a value that holds args' equals further down (a remote's
 * answer holds rows two levels down, each as deep as a report may be).
 */
export function compileCheck<T>(
  schema: TSchema,
  label: string,
  root = "args",
  depth: number = LIMITS.depth,
): Check<T> {
  // Compiled at its first use, not here: the daemon builds a check for every op and report field
  // as it starts, and compiling them all there was a fifth of its start's CPU, for ops most
  // daemons never see.
  let validator: ReturnType<typeof Compile> | undefined;
  return (value) => {
    const deep = tooDeep(value, depth);
    if (deep) {
      const where = deep.slice(0, 2).map((key) => key.slice(0, 64));
      const at = fieldName(label, `/${where.join("/")}`) || root;
      return { ok: false, message: `${at} is nested deeper than ${depth} levels` };
    }
    validator ??= Compile(schema);
    return validator.Check(value)
      ? { ok: true, value: value as T }
      : { ok: false, message: describe(validator.Errors(value), label, root) };
  };
}

/** An object of a typed schema with its known fields only: unknown ones are ignored, never kept. */
export function knownFields<T extends TObject>(schema: T, value: object): object {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) kept[key] = v;
  }
  return kept;
}

/** The first failing field, said once: unions of literals become "one of …". */
function describe(errors: TLocalizedValidationError[], label: string, root: string): string {
  const first = errors[0];
  if (!first) return `${label || root} is not valid`;
  const at = first.instancePath;
  const same = errors.filter((e) => e.instancePath === at);
  const field = fieldName(label, at) || root;
  const required = same.find((e) => e.keyword === "required");
  if (required) {
    const missing = (required.params as { requiredProperties?: string[] }).requiredProperties ?? [];
    return `${fieldName(label, `${at}/${missing[0] ?? "?"}`)} is required`;
  }
  const allowed = same.filter((e) => e.keyword === "const").map((e) => JSON.stringify(e.params.allowedValue));
  if (same.some((e) => e.keyword === "type" && e.params.type === "null")) allowed.push("null");
  if (allowed.length > 1 && same.some((e) => e.keyword === "const")) {
    return `${field} must be one of ${allowed.join(", ")}`;
  }
  const specific =
    same.find((e) => !["anyOf", "type", "const"].includes(e.keyword)) ??
    same.find((e) => e.keyword === "type" && e.params.type !== "null") ??
    first;
  return `${field} ${specific.message}`;
}

function fieldName(label: string, instancePath: string): string {
  const parts = instancePath.split("/").filter(Boolean);
  const name = parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), label);
  return name;
}
