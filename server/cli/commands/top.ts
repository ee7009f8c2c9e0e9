/** `roost top`: the running jobs by what they use (docs/budgets.md, "Resources"), live. */
import type { Row } from "../../../sdk/ts/protocol/index.js";
import { type Command, type Invocation, out, printJson, str, UsageError } from "../command.js";
import { callOnce, connect } from "../connect.js";
import { terminalWidth, wantsColour } from "../format.js";
import { io } from "../io.js";
import { TOP_SORTS, type TopSort, topLines, topRows } from "../top-table.js";

/** How often the live table is drawn again (the pty host reads every 5 s; pushes come between). */
const REDRAW_MS = 1000;

export const top: Command = {
  name: "top",
  arity: [0, 0],
  summary: "A live table of the running jobs by what they use: CPU, memory, processes.",
  details: [
    "Each running job's processes (its session, and sessions its processes started) as the pty",
    "host reads them every 5 s: CPU % over the last read (100 = one core), CPU time, RSS, PSS",
    "(read every 30 s), processes, and how long since its screen or its reports last changed",
    "(QUIET). The header line sums them. Drawn again in place every second; q or Ctrl-C quits.",
    "--once prints the table once (plain text, for pipes); --json prints each running job's",
    "resources once, as {id, name, view, resources}, in the table's order.",
  ].join("\n"),
  options: {
    sort: { type: "string", value: "cpu|mem|name", help: "the order: cpu (the default), mem or name" },
    once: { type: "boolean", help: "print the table once and exit" },
  },
  examples: ["roost top", "roost top --sort mem", "roost top --once", "roost top --json"],
  async run(inv) {
    const raw = str(inv.values, "sort") ?? "cpu";
    if (!(TOP_SORTS as readonly string[]).includes(raw)) {
      throw new UsageError(`--sort takes ${TOP_SORTS.join(", ")} (got ${JSON.stringify(raw)})`);
    }
    const sort = raw as TopSort;
    if (inv.json || inv.values.once === true || !io().stdout.isTTY) {
      const { rows } = await callOnce(inv.env, "list", {});
      if (inv.json) {
        printJson(
          topRows(rows, sort).map((r) => ({ id: r.id, name: r.name, view: r.view, resources: r.resources })),
        );
      } else {
        for (const line of topLines(rows, { sort, width: terminalWidth(io().stdout, inv.env) })) out(line);
      }
      return 0;
    }
    return live(inv, sort);
  },
};

/** The table drawn in the alternate screen until q, Ctrl-C or the daemon goes; the screen restored. */
async function live(inv: Invocation, sort: TopSort): Promise<number> {
  const client = await connect(inv.env);
  const rows = new Map<string, Row>();
  client.onEvent = (e) => {
    if (e.event === "row") rows.set(e.row.id, e.row);
    else if (e.event === "removed") rows.delete(e.id);
  };
  await client.call("subscribe", {});
  for (const r of (await client.call("list", {})).rows) if (!rows.has(r.id)) rows.set(r.id, r);
  const colour = wantsColour(process.stdout, inv.env);
  const draw = () => {
    const width = terminalWidth(process.stdout, inv.env);
    const height = process.stdout.rows ?? 40;
    const lines = topLines([...rows.values()], { sort, width, colour }).slice(0, height - 1);
    // Home, each line cleared to its end, then the rest of the screen.
    process.stdout.write(`\x1b[H${lines.map((l) => `${l}\x1b[K`).join("\r\n")}\x1b[J`);
  };
  process.stdout.write("\x1b[?1049h\x1b[?25l"); // the alternate screen, no cursor
  const stdin = process.stdin;
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.resume();
  draw();
  const timer = setInterval(draw, REDRAW_MS);
  process.stdout.on("resize", draw);
  const reason = await new Promise<"quit" | "closed">((resolve) => {
    stdin.on("data", (d: Buffer) => {
      if (d.includes(0x71) || d.includes(0x03) || d.includes(0x51)) resolve("quit"); // q, Ctrl-C, Q
    });
    process.once("SIGINT", () => resolve("quit"));
    process.once("SIGTERM", () => resolve("quit"));
    client.onClose = () => resolve("closed");
  });
  clearInterval(timer);
  process.stdout.off("resize", draw);
  if (stdin.isTTY) stdin.setRawMode(false);
  stdin.pause();
  process.stdout.write("\x1b[?25h\x1b[?1049l"); // the cursor and the screen as they were
  client.close();
  if (reason === "closed") {
    process.stderr.write("roost: the connection to roost closed (the daemon stopped?)\n");
    return 1;
  }
  return 0;
}
