// Reading a request's fields: each one checked, so a bad request is an answer, never a crash.

export type Msg = Record<string, unknown>;

export function str(m: Msg, key: string): string {
  const v = m[key];
  if (typeof v !== "string") throw new Error(`${key} must be a string`);
  return v;
}

/** An integer in [min, max]; `fallback` when the field is absent. */
export function int(m: Msg, key: string, min: number, max: number, fallback?: number): number {
  const v = m[key];
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new Error(`${key} must be an integer from ${min} to ${max}`);
  }
  return v;
}

/** A terminal's width or height. */
export function dim(m: Msg, key: string): number {
  return int(m, key, 1, 10_000);
}

export function jobIdOf(m: Msg): string {
  const id = str(m, "jobId");
  // It names a directory under jobs/, so keep it to a safe file name.
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(id)) throw new Error(`bad jobId: ${id}`);
  return id;
}

export function strings(m: Msg, key: string): string[] {
  const v = m[key];
  if (!Array.isArray(v) || !v.every((a) => typeof a === "string")) throw new Error(`${key} must be strings`);
  return v;
}

export function stringMap(m: Msg, key: string): Record<string, string> {
  const v = m[key];
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new Error(`${key} must map names to strings`);
  if (!Object.values(v).every((s) => typeof s === "string"))
    throw new Error(`${key} must map names to strings`);
  return v as Record<string, string>;
}
