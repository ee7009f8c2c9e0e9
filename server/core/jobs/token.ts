/**
 * `token` (http.md, "Tokens"): the owner's login link (or one good once), and the named tokens
 * made, revoked and listed (tokens.ts keeps them). A named token's secret is shown once, inside its login link.
 */
import { type OpArgs, type OpResult, RoostError } from "../../../sdk/ts/protocol/index.js";
import type { Core } from "../core.js";

const loginLink = (url: string, secret: string) => `${url}login?token=${encodeURIComponent(secret)}`;
const onceLink = (url: string, code: string) => `${url}login?once=${encodeURIComponent(code)}`;

export async function token(core: Core, args: OpArgs<"token">): Promise<OpResult<"token">> {
  const name = () => {
    if (!args.name) throw new RoostError("bad_request", `token ${args.action} needs a name`);
    return args.name;
  };
  switch (args.action) {
    case "link": {
      const url = await core.hubUrl();
      return { url, link: loginLink(url, core.tokens.ownerSecret()) };
    }
    case "once": {
      const url = await core.hubUrl();
      return { url, link: onceLink(url, core.tokens.once()) };
    }
    case "create": {
      const url = await core.hubUrl();
      const { secret, record } = core.tokens.create(name(), args.readOnly ?? false);
      return { url, link: loginLink(url, secret), token: publicInfo(record) };
    }
    case "revoke":
      core.tokens.revoke(name());
      return {};
    case "list":
      return { tokens: core.tokens.list().map(publicInfo) };
  }
}

/** What may be shown of a token: never its hash. */
const publicInfo = (t: { name: string; readOnly: boolean; createdAt: string }) => ({
  name: t.name,
  readOnly: t.readOnly,
  createdAt: t.createdAt,
});
