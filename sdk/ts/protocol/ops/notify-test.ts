/** `notify-test` (docs/notify.md): a test event sent once to each of roost.json's notify hooks. */
import Type from "typebox";

export const notifyTest = {
  args: Type.Object({}),
  /** Each hook, in roost.json's order: its place, format and host (never its url), and how it went. */
  result: Type.Object({
    hooks: Type.Array(
      Type.Object({
        hook: Type.Integer(),
        format: Type.String(),
        host: Type.String(),
        ok: Type.Boolean(),
        status: Type.Union([Type.Integer(), Type.Null()]),
        error: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  }),
} as const;
