// Attaching to a job in the pty host: a snapshot, then exactly the output after it. Build first.
import * as fs from "node:fs";
import * as path from "node:path";
import { SerializeAddon } from "@xterm/addon-serialize";
import { describe, expect, it } from "vitest";
import type { JobOutput, PtyHostClient } from "../../../server/pty/client.js";
import type { Snapshot } from "../../../server/pty/wire.js";
import { sleep, until, useHost, ViewerScreen } from "./harness.js";

/** What one attach saw: its snapshot and every output event of the job after its answer. */
interface Viewing {
  snap: Snapshot;
  after: JobOutput[];
}

/** Attaches, keeping the output events that come after the answer (the client emits none before). */
async function attach(c: PtyHostClient, jobId: string): Promise<Viewing> {
  const after: JobOutput[] = [];
  let answered = false;
  c.on("output", (o) => {
    if (answered && o.jobId === jobId) after.push(o);
  });
  const snap = await c.attach(jobId);
  answered = true;
  return { snap, after };
}

/** Draws a viewing as a viewer would: the snapshot into a fresh terminal, then the output. */
async function draw(v: Viewing): Promise<ViewerScreen> {
  const screen = new ViewerScreen(v.snap.cols, v.snap.rows);
  screen.term.write(v.snap.snapshot);
  for (const o of v.after) screen.term.write(o.data);
  await screen.write("");
  return screen;
}

function seqsFollow(v: Viewing): void {
  expect(v.after.map((o) => o.seq)).toEqual(v.after.map((_, i) => v.snap.seq + 1 + i));
}

describe("pty host attach", { timeout: 30_000 }, () => {
  const h = useHost();

  it("hands a viewer the screen with nothing of a steady stream lost or doubled", async () => {
    const witness = await h.connect(); // attached before the job prints: sees every chunk
    const a = await h.connect();
    const b = await h.connect();
    // Bursts printed as fast as the host takes them, so its screen is often behind when an attach
    // comes; until the test says stop.
    const lines = Array.from(
      { length: 1500 },
      (_, i) => `\x1b[3${i % 7}mline-${i} ${"x".repeat(50)}\x1b[0m\n`,
    );
    fs.writeFileSync(path.join(h.home(), "burst.txt"), lines.join(""));
    const script =
      "read -s go; while [ ! -e stop ]; do cat burst.txt; echo burst; sleep 0.02; done; echo done; sleep 30";
    await h.start(witness, "stream", "bash", ["-c", script]);
    const all = await attach(witness, "stream");
    expect(all.snap.seq).toBe(0);
    await witness.write("stream", "\r");
    await until("the stream", () => all.after.some((o) => o.data.includes("line-")));
    // Again and again while it flows, on two connections; on one of them attached already (a fresh
    // snapshot on the same terms).
    const viewings: Viewing[] = [];
    for (let i = 0; i < 10; i++) {
      viewings.push(await attach(i % 2 ? b : a, "stream"));
      await sleep(20);
    }
    fs.writeFileSync(path.join(h.home(), "stop"), "");
    await until("the end", async () => (await witness.tail("stream")).includes("done"), 20_000);
    const host = await witness.screen("stream");
    seqsFollow(all);
    const last = all.after.at(-1)!.seq;

    // A snapshot holds exactly the chunks up to its seq: scrollback, screen and cursor.
    const reference = new ViewerScreen(80, 24);
    let fed = 0;
    for (const v of [...viewings].sort((x, y) => x.snap.seq - y.snap.seq)) {
      for (; fed < v.snap.seq; fed++) reference.term.write(all.after[fed]!.data);
      await reference.write("");
      const fromSnapshot = new ViewerScreen(v.snap.cols, v.snap.rows);
      await fromSnapshot.write(v.snap.snapshot);
      expect(fromSnapshot.allLines()).toEqual(reference.allLines());
      expect(fromSnapshot.cursor()).toEqual(reference.cursor());
    }
    for (; fed < last; fed++) reference.term.write(all.after[fed]!.data);
    await reference.write("");

    // And the events after it are the rest, each once: the viewer ends where the host does.
    for (const v of viewings) {
      expect(v.snap.snapshot).not.toContain("done");
      seqsFollow(v);
      expect(v.after.at(-1)?.seq ?? v.snap.seq).toBe(last);
      const viewer = await draw(v);
      expect(viewer.lines()).toEqual(host.lines);
      expect(viewer.cursorY()).toBe(host.cursorY);
      expect(viewer.allLines()).toEqual(reference.allLines());
    }
    // Colours and modes too, as a snapshot taken now has them.
    const now = await witness.attach("stream");
    const viewer = await draw(viewings[0]!);
    const serializer = new SerializeAddon();
    viewer.term.loadAddon(serializer);
    expect(serializer.serialize()).toBe(now.snapshot);
  });

  it("reproduces colours, the cursor and the alternate screen", async () => {
    const c = await h.connect();
    const script =
      "printf '\\033[1;31mred\\033[0m plain \\033[42mgreen\\033[0m\\n'; printf 'x\\033[5;10Hhere'; sleep 0.2; " +
      "printf '\\033[?1049h\\033[Hon the alternate screen\\033[3;3H'; sleep 30";
    await h.start(c, "ansi", "bash", ["-c", script], { cols: 60, rows: 12 });
    await until("the alternate screen", async () =>
      (await c.screen("ansi")).lines.includes("on the alternate screen"),
    );
    const v = await attach(c, "ansi");
    expect([v.snap.cols, v.snap.rows]).toEqual([60, 12]);
    const viewer = await draw(v);
    const host = await c.screen("ansi");
    expect(viewer.lines()).toEqual(host.lines);
    expect(viewer.term.buffer.active.type).toBe("alternate");
    expect([viewer.term.buffer.active.cursorX, viewer.cursorY()]).toEqual([2, 2]);
    await c.write("ansi", "\x03"); // leaves the sleep; what is on screen stays
    const normal = viewer.term.buffer.normal;
    expect(normal.getLine(0)?.translateToString(true)).toBe("red plain green");
    const red = normal.getLine(0)?.getCell(0);
    expect(red?.isBold()).toBeTruthy();
    expect(red?.getFgColor()).toBe(1);
    expect(normal.getLine(0)?.getCell(10)?.getBgColor()).toBe(2);
  });

  it("holds an attach answer behind the output sent before it, and the output after behind it", async () => {
    const c = await h.connect();
    await h.start(c, "cat", "cat", []);
    await c.write("cat", "one\r");
    await until("echo", async () => (await c.tail("cat")).includes("one"));
    const order: string[] = [`answer ${(await c.attach("cat")).seq}`];
    c.on("output", (o) => order.push(`output ${o.seq}`));
    const answers = [1, 2, 3].map(async (n) => {
      if (n > 1) await c.write("cat", `two${n}\r`);
      order.push(`answer ${(await c.attach("cat")).seq}`);
    });
    await Promise.all(answers);
    // The tail's answer comes after the output events of what it shows (one connection, in order).
    await until("echo and output", async () => (await c.tail("cat")).split("two3").length === 3);
    // Each answer's seq is the last chunk before it in the order; the chunks after it follow it.
    let last = Number(order[0]!.split(" ")[1]);
    expect(last).toBeGreaterThan(0);
    for (const item of order) {
      const [kind, n] = item.split(" ") as [string, string];
      if (kind === "answer") expect(Number(n)).toBe(last);
      else last = Number(n);
    }
    expect(order.filter((i) => i.startsWith("answer"))).toHaveLength(4);
    expect(order.filter((i) => i.startsWith("output")).length).toBeGreaterThan(0);
  });
});
