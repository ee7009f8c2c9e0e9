/**
 * The concierge's tools (docs/protocol.md, "The concierge") as pi tools: given to the pi that roost runs
 * as its concierge (`ROOST_CONCIERGE=1`, the concierge's built-in profile), besides the `roost_*`
 * tools every pi has. What each does is sdk/ts/agent/concierge-calls.ts's, shared with `roost mcp`.
 */
import { CONCIERGE_CALLS, type RoostAgent } from "../agent/index.js";
import type { PiTool } from "./pi-api.js";
import { schema, tool } from "./tools.js";

export function conciergeTools(agent: RoostAgent): PiTool[] {
  return CONCIERGE_CALLS.map((call) =>
    tool(
      {
        name: call.name,
        label: call.label,
        description: call.description,
        promptSnippet: call.snippet,
        parameters: schema(
          Object.fromEntries(
            Object.entries(call.params).map(([key, p]) => [
              key,
              { type: p.type, description: p.description, ...(p.choices ? { enum: p.choices } : {}) },
            ]),
          ),
          [...call.required],
        ),
      },
      (p) => call.run(agent, p),
    ),
  );
}
