/** What the hub's pages and the CLI ask of the daemon itself: profiles, who am I, HTTP tokens. */
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { ROOST_VERSION } from "../version.js";
import { defineOp } from "./define.js";

const loginLink = (url: string, secret: string) => `${url}login?token=${encodeURIComponent(secret)}`;

export const hubOps = [
  defineOp({
    name: "profiles",
    allow: ["hub"],
    acts: false,
    handler: (core) => ({
      profiles: [...core.config.profiles].map(([name, p]) => ({
        name,
        description: p.description ?? null,
        command: p.command,
        task: p.task ?? "type",
        protocol: p.protocol ?? false,
      })),
    }),
  }),
  defineOp({
    name: "whoami",
    allow: ["hub"],
    acts: false,
    handler: (_core, _args, caller) => ({
      token: caller.tokenName ?? null,
      readOnly: caller.readOnly,
      daemon: { name: "roost", version: ROOST_VERSION },
    }),
  }),
  defineOp({
    name: "token",
    allow: ["hub"],
    acts: true,
    socketOnly: true,
    handler: async (core, args) => {
      const name = () => {
        if (!args.name) throw new RoostError("bad_request", `token ${args.action} needs a name`);
        return args.name;
      };
      switch (args.action) {
        case "link": {
          const url = await core.hubUrl();
          return { url, link: loginLink(url, core.tokens.ownerSecret()) };
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
    },
  }),
];

const publicInfo = (t: { name: string; readOnly: boolean; createdAt: string }) => ({
  name: t.name,
  readOnly: t.readOnly,
  createdAt: t.createdAt,
});
