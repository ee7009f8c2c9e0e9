/** `roost mcp` driven by the official MCP client (test/agents/acp/mcp.test.ts, test/terminals/mcp-terminal.test.ts). */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** An MCP client of a server started as `command args`, with exactly `env`. */
export async function mcpClient(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<Client> {
  const client = new Client({ name: "roost-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, env, ...(cwd ? { cwd } : {}) }));
  return client;
}

/** A tool call's text, and whether it was an error. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  return { text: r.content.map((c) => c.text).join(""), isError: r.isError ?? false };
}
