/**
 * The ACP bridge's pure parts (sdk/ts/acp): which option a reply names, a plan's current step, the
 * model among a session's config options, an ACP error as the row says it. The bridge itself is
 * tested end to end in bridge.test.ts.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { errorText, modelOf, planStep } from "../../../sdk/ts/acp/acp-row.js";
import { optionNamed, questionOf } from "../../../sdk/ts/acp/permissions.js";

const options: acp.PermissionOption[] = [
  { optionId: "allow", name: "Allow once", kind: "allow_once" },
  { optionId: "always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

describe("the ACP bridge's parts", () => {
  it("a reply names an option by its name (any case), its id, or its number; nothing else does", () => {
    expect(optionNamed(options, "  always ALLOW ")?.optionId).toBe("always");
    expect(optionNamed(options, "reject")?.optionId).toBe("reject");
    expect(optionNamed(options, "allow")?.optionId).toBe("allow");
    expect(optionNamed(options, "2")?.optionId).toBe("always");
    for (const text of ["0", "4", "", "yes please"]) expect(optionNamed(options, text)).toBeNull();
  });

  it("a permission's question is its tool call's title", () => {
    const ask = (title: string | null) =>
      questionOf({ sessionId: "s", toolCall: { toolCallId: "t", title }, options });
    expect(ask("Run `rm -rf build`\n(in /w)")).toBe("Allow: Run `rm -rf build` (in /w)?");
    expect(ask(null)).toBe("The agent asks for permission to go on: allow?");
  });

  it("a plan's step is the first in progress, else the first pending; none once all are done", () => {
    const entry = (content: string, status: acp.PlanEntry["status"]): acp.PlanEntry => ({
      content,
      status,
      priority: "medium",
    });
    expect(planStep([entry("a", "completed"), entry("b", "pending"), entry("c", "in_progress")])).toBe(
      "plan 3/3: c",
    );
    expect(planStep([entry("a", "completed"), entry("b", "pending")])).toBe("plan 2/2: b");
    expect(planStep([entry("a", "completed")])).toBeNull();
  });

  it("the model is the current value of a config option of category model, by its name", () => {
    const select = (category: string, options: unknown): acp.SessionConfigOption =>
      ({
        id: category,
        name: category,
        category,
        type: "select",
        currentValue: "m2",
        options,
      }) as acp.SessionConfigOption;
    const flat = [
      { value: "m1", name: "One" },
      { value: "m2", name: "Two" },
    ];
    expect(modelOf([select("mode", flat), select("model", flat)])).toBe("Two");
    expect(modelOf([select("model", [{ group: "g", name: "G", options: flat }])])).toBe("Two");
    expect(modelOf([select("model", [])])).toBe("m2");
    expect(modelOf([select("mode", flat)])).toBeNull();
    expect(modelOf(undefined)).toBeNull();
  });

  it("an ACP error says its message, and the details a generic one carries", () => {
    expect(errorText({ message: "Internal error", data: { details: "disk full" } })).toBe(
      "Internal error: disk full",
    );
    expect(errorText({ message: "Authentication required: log in" })).toBe("Authentication required: log in");
    expect(errorText("gone")).toBe("gone");
  });
});
