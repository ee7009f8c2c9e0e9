/** Budgets' arithmetic (server/core/budgets/count.ts): usage read, the rise counted, the share spent. */
import { describe, expect, it } from "vitest";
import { localDay, risen, share, spentWords, stateOf, usageTotals } from "../../server/core/budgets/count.js";

describe("budget arithmetic", () => {
  it("reads cost and tokens from what pi, the hooks and the ACP bridge report", () => {
    expect(
      usageTotals({ input: 10, output: 5, totalTokens: 20, cost: { total: 0.5, currency: "USD" } }),
    ).toEqual({
      cost: 0.5,
      tokens: 20,
    });
    expect(usageTotals({ input: 10, output: 5 })).toEqual({ cost: null, tokens: 15 });
    expect(usageTotals({ cost: -1, totalTokens: "x" })).toEqual({ cost: null, tokens: null });
    expect(usageTotals(null)).toEqual({ cost: null, tokens: null });
  });

  it("counts the rise since the last report; a total that went down is a new session, counted whole", () => {
    const first = risen(null, { cost: 1, tokens: 100 });
    expect(first).toEqual({ cost: 1, tokens: 100, seen: { cost: 1, tokens: 100 } });
    expect(risen(first.seen, { cost: 1.5, tokens: 150 })).toMatchObject({ cost: 0.5, tokens: 50 });
    expect(risen(first.seen, { cost: 0.2, tokens: 20 })).toMatchObject({ cost: 0.2, tokens: 20 });
    expect(risen(first.seen, { cost: null, tokens: 120 })).toEqual({
      cost: 0,
      tokens: 20,
      seen: { cost: 1, tokens: 120 },
    });
  });

  it("a budget's share is its most spent dimension", () => {
    const spent = { cost: 4, tokens: 100, minutes: 9 };
    expect(share(spent, { cost: 5, minutes: 10 })).toBeCloseTo(0.9);
    expect(stateOf(share(spent, { cost: 5 }))).toBe("near");
    expect(stateOf(share(spent, { tokens: 100 }))).toBe("spent");
    expect(stateOf(share(spent, { cost: 100 }))).toBe("ok");
    expect(spentWords(spent, { cost: 5, minutes: 10 })).toBe("minutes 9.0 min of 10 min");
  });

  it("a day is the local date", () => {
    const d = new Date(2026, 0, 2, 23, 59);
    expect(localDay(d.getTime())).toBe("2026-01-02");
  });
});
