/**
 * roost.json: optional, checked whole at start (a bad one stops the daemon before anything starts:
 * test/daemon/daemon.test.ts, "a bad roost.json").
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";

let home: string;
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function writeConfig(content: string): string {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-config-"));
  const file = path.join(home, "roost.json");
  fs.writeFileSync(file, content);
  return file;
}

describe("roost.json", () => {
  it("is optional: the built-in shell profile is there", () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "roost-config-"));
    const config = loadConfig(path.join(home, "roost.json"), { SHELL: "/bin/zsh" });
    expect(config.profiles.get("shell")?.command).toEqual(["/bin/zsh"]);
  });

  it("adds the user's profiles and lets them replace a built-in one", () => {
    const file = writeConfig(
      JSON.stringify({
        agentProfiles: {
          mine: {
            command: ["python3", "a.py"],
            task: "type",
            protocol: true,
            cwd: "~/src",
            env: { FOO: "1" },
          },
          shell: { command: ["/bin/sh"] },
        },
        http: { port: 7777, allowedHosts: ["roost.example.ts.net"] },
        somethingNew: true,
      }),
    );
    const config = loadConfig(file, {});
    expect(config.profiles.get("mine")?.env).toEqual({ FOO: "1" });
    expect(config.profiles.get("shell")?.command).toEqual(["/bin/sh"]);
  });

  const bad: [string, string, RegExp][] = [
    ["not JSON", "{ agentProfiles: ", /not valid JSON/],
    [
      "a command that is not a list",
      '{"agentProfiles": {"mine": {"command": "python3 a.py"}}}',
      /agentProfiles\.mine\.command must be array/,
    ],
    ["an empty command", '{"agentProfiles": {"mine": {"command": []}}}', /agentProfiles\.mine\.command/],
    [
      "a task mode that does not exist",
      '{"agentProfiles": {"mine": {"command": ["x"], "task": "paste"}}}',
      /agentProfiles\.mine\.task must be one of "type", "argv"/,
    ],
    [
      "a missing command",
      '{"agentProfiles": {"mine": {"task": "type"}}}',
      /agentProfiles\.mine\.command is required/,
    ],
    ["a port out of range", '{"http": {"port": 70000}}', /http\.port/],
    [
      "an env value that is not a string",
      '{"agentProfiles": {"m": {"command": ["x"], "env": {"A": 1}}}}',
      /agentProfiles\.m\.env\.A must be string/,
    ],
    ["a list instead of an object", "[]", /the file must be object/],
    [
      "an approval that is not a tool's name",
      '{"agentProfiles": {"m": {"command": ["x"], "approve": ["rm -rf"]}}}',
      /agentProfiles\.m\.approve\[0\]: "rm -rf" is not a tool's name/,
    ],
    // docs/fleet.md: remotes and the shared board
    ["a board that is not PostgreSQL", '{"board": {"url": "mysql://db/roost"}}', /board\.url/],
    ["a board name with a colon", '{"board": {"url": "postgres://db/r", "name": "a:b"}}', /board\.name/],
    ["a lease under a second", '{"board": {"url": "postgres://db/r", "leaseMs": 10}}', /board\.leaseMs/],
    [
      "a remote without a token",
      '{"remotes": [{"name": "b", "url": "http://x/"}]}',
      /remotes\[0\]\.token is required/,
    ],
    [
      "a remote's url that is not http",
      '{"remotes": [{"name": "b", "url": "ftp://x/", "token": "t"}]}',
      /remotes\[0\]\.url must match/,
    ],
    [
      "two remotes of one name",
      '{"remotes": [{"name": "b", "url": "http://x/", "token": "t"}, {"name": "b", "url": "http://y/", "token": "u"}]}',
      /remotes\[1\]\.name: "b" is named twice/,
    ],
    [
      "a remote named as this daemon",
      '{"remotes": [{"name": "local", "url": "http://x/", "token": "t"}]}',
      /remotes\[0\]\.name: "local" is this daemon's/,
    ],
  ];
  for (const [what, content, message] of bad) {
    it(`refuses ${what}, naming the file and the path inside it`, () => {
      const file = writeConfig(content);
      expect(() => loadConfig(file, {})).toThrow(ConfigError);
      expect(() => loadConfig(file, {})).toThrow(message);
      expect(() => loadConfig(file, {})).toThrow(file);
    });
  }

  it("refuses one that holds remotes' tokens or the board's password and others may read, saying chmod 600", () => {
    const remotes = '{"remotes": [{"name": "b", "url": "http://x/", "token": "t"}]}';
    const board = '{"board": {"url": "postgres://roost:secret@db/roost"}}';
    for (const content of [remotes, board]) {
      const file = writeConfig(content);
      fs.chmodSync(file, 0o644);
      expect(() => loadConfig(file, {})).toThrow(`others may read it (mode 0644): chmod 600 ${file}`);
      fs.chmodSync(file, 0o600);
      expect(() => loadConfig(file, {})).not.toThrow();
    }
    const file = writeConfig('{"board": {"url": "postgres://db/roost"}}'); // no password in it
    fs.chmodSync(file, 0o644);
    expect(() => loadConfig(file, {})).not.toThrow();
  });
});
