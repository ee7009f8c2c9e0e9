/**
 * Terminal jobs as their viewers see them, for real: a full-screen program's screen right after a
 * redraw, attach (the screen replayed, output streamed to several viewers, input and resize, the
 * job's end told), the job's size with viewers of all sizes coming and going, and a respawn that
 * types the task again. One daemon for the file (helpers/terminal-jobs.ts): each test its own
 * jobs, clients and directory.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isAlive, until } from "../helpers/daemon.js";
import { api } from "../helpers/http.js";
import { row, untilRow } from "../helpers/jobs.js";
import type { RawClient } from "../helpers/raw-client.js";
import { attachScreen } from "../helpers/screen.js";
import { sharedTerminals } from "../helpers/terminal-jobs.js";

const t = sharedTerminals();

describe("a full-screen program", () => {
  it("its screen as viewers see it is right after a redraw", async () => {
    const { c } = t;
    const file = path.join(t.cwd, "numbers.txt");
    fs.writeFileSync(file, `${Array.from({ length: 500 }, (_, i) => `number ${i + 1}`).join("\n")}\n`);
    const job = await t.dispatch(c, "less", file);
    const first = await attachScreen(c, job.id);
    await until("less drew the top", async () => (await first.catchUp()).lines()[0] === "number 1");
    await c.ok("input", { id: job.id, data: "G" }); // to the end: a full redraw
    await until("the end drawn", async () => (await first.catchUp()).text().includes("number 500"));
    // A viewer that attaches now gets the redrawn screen, not the old one.
    const c2 = await t.client();
    const second = await attachScreen(c2, job.id);
    expect(second.text()).toContain("number 500");
    expect(second.text()).not.toContain("number 1\n");
    expect(second.lines().slice(0, -1)).toEqual((await first.catchUp()).lines().slice(0, -1));
    // The row is read from the same screen: less's status line at the bottom, after the redraw.
    const r = await untilRow(c, job.id, "the row from the redrawn screen", (x) => x.status === "idle");
    expect(r.summary).toBe("(END)");
    expect(r.kind).toBe("terminal");
  });
});

describe("attach", () => {
  it("replays the screen, streams output to several viewers, takes input and resize; detach leaves the job", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash", "echo before-attach");
    await untilRow(c, job.id, "ran", (r) => r.summary === "before-attach");
    const v1 = await attachScreen(c, job.id);
    expect(v1.text()).toContain("before-attach");
    const c2 = await t.client();
    const v2 = await attachScreen(c2, job.id);
    await c.ok("input", { id: job.id, data: "echo typed-$((2+3))\r" });
    for (const v of [v1, v2])
      await until("both see it", async () => /^typed-5$/m.test((await v.catchUp()).text()));
    await c.ok("resize", { id: job.id, cols: 91, rows: 33 });
    await c.ok("input", { id: job.id, data: "echo size-$(tput cols)x$(tput lines)\r" });
    await until("the new size", async () => (await v1.catchUp()).text().includes("size-91x33"));
    await c.ok("detach", { id: job.id });
    c2.close();
    expect((await row(c, job.id)).life).toBe("running");
    expect(isAlive(job.pid)).toBe(true);
    const err = await c.request("attach", { id: "j999" });
    expect(err.code).toBe("not_found");
  });

  it("tells the viewer when the job ends", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash");
    await attachScreen(c, job.id);
    await c.ok("input", { id: job.id, data: "exit 5\r" });
    const detached = await c.event((e) => e.event === "detached" && e.id === job.id);
    expect(detached.why).toBe("exited with code 5");
  });
});

describe("respawn of a terminal job", () => {
  it("types its task again, as a new reply; a job dispatched without one gets none", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash", "echo ran >> runs.txt; echo runs-$(wc -l < runs.txt)");
    await untilRow(c, job.id, "the task ran", (r) => r.summary === "runs-1" && r.pending === 0);
    const { job: again } = await c.ok("respawn", { id: job.id });
    expect(again.pid).not.toBe(job.pid);
    expect(again.lastSeq).toBe(2); // the task, as reply 2
    const r = await untilRow(
      c,
      job.id,
      "the task ran again",
      (x) => x.summary === "runs-2" && x.pending === 0,
    );
    expect(r.pid).toBe(again.pid);
    const feed = (await c.ok("events", { id: job.id })).events.map((e: any) => [e.kind, e.text]);
    // The task typed again is a reply of its own in the feed (the first one was the dispatch's).
    expect(feed.filter(([kind]: string[]) => kind === "reply")).toHaveLength(1);
    expect(fs.readFileSync(path.join(t.cwd, "runs.txt"), "utf8")).toBe("ran\nran\n");

    const bare = await t.dispatch(c, "bash");
    await untilRow(c, bare.id, "idle", (x) => x.status === "idle");
    const { job: bareAgain } = await c.ok("respawn", { id: bare.id });
    expect(bareAgain).toMatchObject({ lastSeq: 0, pending: 0 });
  });
});

describe("the job's size, with viewers of all sizes", () => {
  /** What `stty size` says in the job (rows, then columns), read from its row. */
  async function sttySize(c: RawClient, id: string): Promise<string> {
    await untilRow(c, id, "idle", (r) => r.status === "idle" && r.pending === 0);
    await c.ok("reply", { id, text: "stty size" });
    const r = await untilRow(c, id, "stty's answer", (x) => x.pending === 0 && /^\d+ \d+$/.test(x.summary));
    // Said again with a mark, so that an answer from before cannot pass for this one.
    await c.ok("reply", { id, text: "echo size-$(stty size | tr ' ' x)" });
    const marked = await untilRow(c, id, "the size", (x) => x.pending === 0 && /^size-/.test(x.summary));
    expect(marked.summary).toBe(`size-${r.summary.replace(" ", "x")}`);
    return r.summary;
  }

  it("a phone-sized viewer that leaves (detach, or its connection closed) leaves the job its own size", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash");
    expect(await sttySize(c, job.id)).toBe("40 120");
    const phone = await t.client();
    await attachScreen(phone, job.id);
    await phone.ok("resize", { id: job.id, cols: 44, rows: 20 });
    expect(await sttySize(c, job.id)).toBe("20 44"); // alone, it has its size
    await phone.ok("detach", { id: job.id });
    expect(await sttySize(c, job.id)).toBe("40 120");
    const again = await t.client();
    await again.ok("resize", { id: job.id, cols: 44, rows: 20 }); // before it attaches, as roost attach does
    expect((await again.ok("attach", { id: job.id })).cols).toBe(44);
    again.close();
    expect(await sttySize(c, job.id)).toBe("40 120");
  });

  it("with a large and a small viewer, the job has the large one's size; each leaving gives it back", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash");
    const large = await t.client();
    await attachScreen(large, job.id);
    await large.ok("resize", { id: job.id, cols: 200, rows: 30 });
    const phone = await t.client();
    await phone.ok("resize", { id: job.id, cols: 44, rows: 60 });
    const seen = await phone.ok("attach", { id: job.id });
    expect([seen.cols, seen.rows]).toEqual([200, 60]); // the largest of each
    expect(await sttySize(c, job.id)).toBe("60 200");
    const watcher = await t.client();
    await attachScreen(watcher, job.id); // watching only: it says no size
    large.close();
    expect(await sttySize(c, job.id)).toBe("60 44");
    await phone.ok("detach", { id: job.id });
    expect(await sttySize(c, job.id)).toBe("40 120");
  });

  it("a resize over HTTP (no view) sets the job's own size, which it returns to", async () => {
    const { c } = t;
    const job = await t.dispatch(c, "bash");
    expect((await api(t.d, "resize", { id: job.id, cols: 100, rows: 30 })).status).toBe(200);
    expect(await sttySize(c, job.id)).toBe("30 100");
    const phone = await t.client();
    await attachScreen(phone, job.id);
    await phone.ok("resize", { id: job.id, cols: 44, rows: 20 });
    expect(await sttySize(c, job.id)).toBe("20 44");
    phone.close();
    expect(await sttySize(c, job.id)).toBe("30 100");
  });
});
