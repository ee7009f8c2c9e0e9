/**
 * Validation with the schema set, compiled once, and errors a person can act on: the field's
 * path and what it must be ("report.summary must not have more than 500 characters").
 */
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";
import type { TLocalizedValidationError } from "typebox/error";

export type Check<T> = (value: unknown) => { ok: true; value: T } | { ok: false; message: string };

/** `label` prefixes field paths ("" for none); `root` names the value itself when it is wrong as a whole. */
export function compileCheck<T>(schema: TSchema, label: string, root = "args"): Check<T> {
  const validator = Compile(schema);
  return (value) =>
    validator.Check(value)
      ? { ok: true, value: value as T }
      : { ok: false, message: describe(validator.Errors(value), label, root) };
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
