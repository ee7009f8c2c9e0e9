/** `pi-roost/client`: DaemonClient against a real daemon, through a restart. */
import { afterEach, describe, expect, it } from "vitest";
import { DaemonClient, type Subscribed } from "../../sdk/ts/client/index.js";
import { RoostError } from "../../sdk/ts/protocol/index.js";
import { startDaemon, type TestDaemon, until } from "../helpers/daemon.js";

let d: TestDaemon;
let client: DaemonClient | undefined;
afterEach(async () => {
  client?.close();
  await d?.cleanup();
});

describe("DaemonClient", () => {
  it("speaks every hub op, typed; errors carry the wire's code", async () => {
    d = await startDaemon({ env: { SHELL: "/bin/bash" } });
    client = new DaemonClient({ socket: d.socket });
    const { job } = await client.dispatch({
      profile: "shell",
      task: "echo from-the-client",
      cwd: d.env.HOME!,
    });
    expect(job.id).toBe("j1");
    await client.rename(job.id, "named");
    await client.pin(job.id);
    const { rows } = await client.list();
    expect(rows[0]).toMatchObject({ id: "j1", name: "named", pinned: true });
    const err = await client.stop("j404").catch((e) => e);
    expect(err).toBeInstanceOf(RoostError);
    expect(err.code).toBe("not_found");
    const { events } = await client.events({ id: job.id });
    expect(events.map((e) => e.kind)).toContain("dispatch");
    expect((await client.profiles()).profiles.map((p) => p.name)).toContain("shell");
    expect(await client.whoami()).toMatchObject({ token: null, readOnly: false });
    const made = await client.token({ action: "create", name: "dash", readOnly: true });
    expect(made.link).toMatch(new RegExp(`^${d.url}login\\?token=`));
    expect((await client.token({ action: "list" })).tokens).toEqual([made.token]);
  });

  it("subscribes as an async iterator, and carries on across a daemon restart", async () => {
    d = await startDaemon({ env: { SHELL: "/bin/bash" } });
    client = new DaemonClient({ socket: d.socket });
    const seen: Subscribed[] = [];
    const sub = client.subscribe();
    const reading = (async () => {
      for await (const e of sub) seen.push(e);
    })();
    await until("the first rows", () => seen.some((e) => e.event === "rows"));
    const { job } = await client.dispatch({ profile: "shell", cwd: d.env.HOME! });
    await until("a row push", () => seen.some((e) => e.event === "row" && e.row.id === job.id));
    const firstRows = seen.filter((e) => e.event === "rows").length;
    await d.restart("SIGKILL");
    await until(
      "the rows again after the restart",
      () => seen.filter((e) => e.event === "rows").length > firstRows,
    );
    // A call after the restart connects again by itself.
    expect((await client.list(job.id)).rows[0]?.life).toBe("running");
    await client.rename(job.id, "after");
    await until("a push on the new connection", () =>
      seen.some((e) => e.event === "row" && e.row.name === "after"),
    );
    await sub.return?.();
    await reading;
  });
});
