/** The Host and Origin rules (server/http/guard.ts), case by case: pure functions, no daemon. */
import { describe, expect, it } from "vitest";
import { Guard, hostName, isLoopback } from "../../../server/http/guard.js";

const guard = new Guard({
  allowedHosts: ["roost.example.ts.net", "box:8080"],
  allowedOrigins: ["https://dash.example.com"],
});

describe("hostName and isLoopback", () => {
  it.each([
    ["127.0.0.1:7777", "127.0.0.1", true],
    ["localhost", "localhost", true],
    ["LOCALHOST:80", "localhost", true],
    ["app.localhost:7777", "app.localhost", true],
    ["[::1]:7777", "::1", true],
    ["127.8.9.10", "127.8.9.10", true],
    ["128.0.0.1", "128.0.0.1", false],
    ["192.168.1.5:7777", "192.168.1.5", false],
    ["localhost.evil.test", "localhost.evil.test", false],
    ["127.0.0.1.nip.io", "127.0.0.1.nip.io", false],
    ["[::ffff:127.0.0.1]:1", "::ffff:127.0.0.1", true],
    ["[fe80::1]:7777", "fe80::1", false],
  ])("%s is %s, loopback: %s", (host, name, loopback) => {
    expect(hostName(host)).toBe(name);
    expect(isLoopback(hostName(host))).toBe(loopback);
  });
});

describe("refuseHost", () => {
  it("lets in loopback names and the listed ones, with or without a port where listed so", () => {
    for (const ok of [
      "127.0.0.1:7777",
      "localhost:1234",
      "roost.example.ts.net",
      "ROOST.example.ts.net:443",
      "box:8080",
    ])
      expect(guard.refuseHost(ok), ok).toBeNull();
  });

  it("refuses every other name, a listed name on an unlisted port, and no Host at all", () => {
    for (const bad of [
      "evil.test",
      "evil.test:7777",
      "box:9090",
      "example.ts.net",
      "10.0.0.2:7777",
      undefined,
    ])
      expect(guard.refuseHost(bad), String(bad)).toMatch(/Host|needs a Host/);
  });
});

describe("refuseOrigin", () => {
  const host = "127.0.0.1:7777";
  it("lets in the hub's own origin, a listed one, and a client that is not a browser", () => {
    expect(guard.refuseOrigin("http://127.0.0.1:7777", host, "same-origin")).toBeNull();
    expect(guard.refuseOrigin("https://roost.example.ts.net", "roost.example.ts.net", undefined)).toBeNull();
    expect(
      guard.refuseOrigin("https://roost.example.ts.net", "roost.example.ts.net:443", undefined),
    ).toBeNull();
    expect(guard.refuseOrigin("https://dash.example.com", host, "cross-site")).toBeNull();
    expect(guard.refuseOrigin(undefined, host, undefined)).toBeNull();
  });

  it.each([
    "https://evil.test",
    "http://192.168.1.5",
    "null",
    "http://127.0.0.1:7778",
    "http://localhost:7777", // another name for the same place is another origin
    "file://",
    "chrome-extension://abc",
    "not a url",
  ])("refuses %s", (origin) => {
    expect(guard.refuseOrigin(origin, host, undefined)).toMatch(/not this hub's/);
  });

  it("refuses a browser's cross-site request that sent no Origin", () => {
    expect(guard.refuseOrigin(undefined, host, "cross-site")).toMatch(/cross-site/);
  });
});
