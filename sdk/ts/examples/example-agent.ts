/**
 * An example agent on `pi-roost/agent` that does real, visible work without a language model.
 *
 * Its task (the first reply, or any follow-up) is a list of shell steps separated by `;`, with an
 * optional `run:` in front: "run: ls -la; count lines in README.md". A few phrases are understood
 * ("count lines in FILE", "list files"); any other step is run as it is, with `sh -c`, in the job's
 * directory. Each step is reported (working, tool "shell") and its output printed (the job's
 * terminal shows it). Before a step that destroys something (`rm `, `git reset`, a `>` over a file
 * that exists) it asks, blocked, "Run `...`?" with the choices yes / no, and goes on with the answer.
 * A `steer` reply "stop" ends the task under way early; any other reply is the next task.
 *
 * Working with another session: a task beginning `delegate:` ("delegate: ls -la; wc -l README.md")
 * is handed to a helper: the agent spawns the Python example (or, when that cannot run, one of its
 * own profile) with the rest as the helper's task, watches it, and waits; the helper's handback (a
 * `report` item) is this task's result, reported done. An agent that was spawned (its row has a
 * parent) hands its result back when its task ends, and roost then stops it. A message from another
 * session is shown on the terminal, never run: it has no authority.
 *
 * Working the task board: a task `tasks` (or `work the board`) makes it take the board's open
 * tasks one at a time until none is left: it claims one it may (open, waiting on none, not sent to
 * another session), does it and marks it done with what came of it, then looks again; while the
 * rest wait on tasks others hold, it waits too. Doing a task the user added runs its detail as the
 * steps above (a destructive one is skipped, not asked: nobody is there to answer); one another
 * session added is only reported, never run (no authority); one with no detail is reported done.
 * A claim another session won (`conflict`) or one still `blocked` is passed over.
 *
 * A profile that runs it once built (`npm run build`):
 *
 *   { "agentProfiles": { "shell": { "command": ["node", "/path/to/dist/sdk/ts/examples/example-agent.js"],
 *     "task": "type", "protocol": true } } }
 *
 * (It lives in sdk/ts/examples rather than sdk/examples so that the project's build compiles it.)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { type BoardTask, type Item, type Peer, type Reply, RoostAgent } from "../agent/index.js";
import { claimable } from "../protocol/board-view.js";
import { destructive, plan } from "./example-steps.js";

interface Task {
  text: string;
  steps: string[];
  next: number;
  /** What each step came to, for the summary at the end. */
  results: string[];
  /** The step that waits for the user's yes or no. */
  asking: string | null;
}

let task: Task | null = null;
let stopAsked = false;
let child: ChildProcess | null = null;
/** The helper a `delegate:` task waits for. */
let helper: { id: string } | null = null;
/** Working the board (`tasks`): a steer "stop" ends it after the task under way. */
let boardRun = false;

const agent = RoostAgent.fromEnv({
  name: "example-agent",
  version: "1.0",
  capabilities: ["steer"],
  onReply: (reply) => handle(reply),
  onItem: (item) => takeItem(item),
  // A steer "stop" must reach the task under way, whose handler is still running: look at it the
  // moment it arrives (it still comes to onReply in its turn, where it is only acknowledged).
  onArrive: (reply) => {
    if (isStop(reply) && ((task && !task.asking) || boardRun)) {
      stopAsked = true;
      stopChild();
    }
  },
});

if (!agent) {
  console.error("example-agent: not run by roost (no ROOST_JOB_ID); see the comment at the top");
  process.exit(1);
}
const roost = agent;

function isStop(reply: Reply): boolean {
  return reply.mode === "steer" && reply.text.trim().toLowerCase() === "stop";
}

async function handle(reply: Reply): Promise<void> {
  const text = reply.text.trim();
  if (isStop(reply)) {
    // The task under way saw the stop on arrival and has ended; one waiting for an answer ends now.
    if (task) finish(`stopped after ${task.next} of ${task.steps.length} steps`);
    else if (helper) finish(`stopped waiting for helper ${helper.id}`);
    stopAsked = false;
    return;
  }
  if (task?.asking) {
    const answer = text.toLowerCase();
    if (answer === "yes" || answer === "y") {
      const step = task.asking;
      task.asking = null;
      await runStep(task, step);
    } else if (answer === "no" || answer === "n") {
      task.results.push(`skipped: ${task.asking}`);
      task.asking = null;
      task.next++;
    } else {
      // Neither: the question is dropped, and the text is the next task.
      task = null;
      return handle(reply);
    }
    return work(task);
  }
  stopAsked = false;
  const delegated = /^delegate:\s*/i.exec(text);
  if (delegated) return delegate(text.slice(delegated[0].length));
  if (/^(tasks|work the board)$/i.test(text)) return workBoard();
  task = { text, steps: plan(text), next: 0, results: [], asking: null };
  return work(task);
}

/** This session as `peers` lists it (its profile, its parent): looked up once. */
let me: Promise<Peer | undefined> | null = null;
const self = () => {
  me ??= roost.peers().then((peers) => peers.find((p) => p.self));
  return me;
};

/**
 * A `delegate:` task: a helper runs it. The Python example first (two languages side by side), this
 * agent's own profile when that cannot run (`bad_request`: python3 missing, say). The handler returns
 * once the helper is started: its handback comes as an item, after this reply, in the same order.
 */
async function delegate(what: string): Promise<void> {
  task = null;
  helper = null;
  if (!what) {
    end("failed", "nothing to delegate", "say what the helper should do: `delegate: ls -la`");
    return;
  }
  try {
    let job: { id: string; profile: string };
    try {
      job = (await roost.spawn({ profile: "example-py", task: what })).job;
    } catch (err) {
      if ((err as { code?: string }).code !== "bad_request") throw err;
      const profile = (await self())?.profile ?? "example-ts";
      job = (await roost.spawn({ profile, task: what })).job;
    }
    helper = { id: job.id };
    // Told if it ends without handing back (a crash, a stop): a notice, after any handback.
    await roost.watch(job.id, "ended");
    roost.report({
      state: "working",
      status: "waiting",
      summary: `waiting for helper ${job.id} (${job.profile}): ${what}`,
    });
    process.stdout.write(`\nhelper ${job.id} (${job.profile}) runs: ${what}\n`);
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string };
    end("failed", "could not start a helper", `${code ?? "error"}: ${message ?? String(err)}`);
  }
}

/** A peer item: the helper's result or its end; anything else (a message) is shown, not run. */
function takeItem(item: Item): void {
  const text = item.text.slice(item.text.indexOf("\n") + 1);
  if (helper && item.from.id === helper.id && (item.kind === "report" || item.kind === "notice")) {
    const { id } = helper;
    helper = null;
    if (item.kind === "report") finish(`helper ${id} handed back: ${text}`);
    else end("failed", `helper ${id} ended without handing back`, text);
    return;
  }
  process.stdout.write(`\n${item.text}\n`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How often the board is read again while what is left waits on tasks others hold. */
const BOARD_POLL_MS = 250;
/** Waiting that long with the board unchanged, it gives up (a task held by a session that never finishes). */
const BOARD_PATIENCE_MS = 5 * 60_000;

/**
 * `tasks`: the board's open tasks, one at a time, until none is left (or a steer "stop"). Ends
 * done, saying which it did.
 */
async function workBoard(): Promise<void> {
  task = null;
  helper = null;
  boardRun = true;
  const did: number[] = [];
  let lastChange = Date.now();
  let seen = "";
  try {
    const id = roost.job.id;
    for (;;) {
      if (stopAsked) return finish(`stopped working the board after ${count(did.length, "task")}`);
      const board = await roost.tasks();
      const key = JSON.stringify(board.map((t) => [t.id, t.state, t.owner?.id]));
      if (key !== seen) [seen, lastChange] = [key, Date.now()];
      const open = board.filter((t) => t.state === "open");
      if (open.length === 0) break;
      const taken = await claimOne(claimable(board, id));
      if (taken) {
        if (!(await doTask(taken)))
          return finish(
            `stopped working the board after ${count(did.length, "task")}; #${taken.id} given back`,
          );
        did.push(taken.id);
        continue;
      }
      if (Date.now() - lastChange > BOARD_PATIENCE_MS)
        return end("failed", `worked the board: ${done(did)}`, `${count(open.length, "task")} still wait`);
      roost.report({
        state: "working",
        status: "waiting",
        summary: `board: ${count(open.length, "open task")} wait on tasks others hold`,
      });
      await sleep(BOARD_POLL_MS);
    }
    finish(`worked the board: ${done(did)}`);
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string };
    end("failed", `worked the board: ${done(did)}`, `${code ?? "error"}: ${message ?? String(err)}`);
  } finally {
    boardRun = false;
  }
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
const done = (ids: number[]) => (ids.length ? `did ${ids.map((i) => `#${i}`).join(", ")}` : "did none");

/** The first of `tasks` this session wins the claim of; another's (`conflict`) or a `blocked` one is passed over. */
async function claimOne(tasks: BoardTask[]): Promise<BoardTask | null> {
  for (const t of tasks) {
    try {
      return (await roost.claimTask(t.id)).task ?? t;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== "conflict" && code !== "blocked" && code !== "bad_request") throw err;
    }
  }
  return null;
}

/**
 * One task: the user's detail run as steps (a destructive one skipped), anything else reported;
 * then done. False when a stop came meanwhile: the task is given back to the board, open again.
 */
async function doTask(t: BoardTask): Promise<boolean> {
  const title = `#${t.id} ${t.title}`;
  roost.report({ state: "working", status: "busy", summary: `board: ${title}` });
  process.stdout.write(`\nclaimed ${title}\n`);
  let result: string;
  if (!t.detail) result = "done (nothing to run)";
  else if (t.by.whoId !== null) result = `noted, not run: added by ${t.by.who}, a session (no authority)`;
  else {
    const steps = plan(t.detail);
    const run: Task = { text: t.detail, steps, next: 0, results: [], asking: null };
    for (const step of steps) {
      if (stopAsked) break;
      if (destructive(step)) {
        run.results.push(`skipped (it would ask first): ${step}`);
        run.next++;
      } else await runStep(run, step);
    }
    result = run.results.join("; ") || "nothing to run";
  }
  if (stopAsked) {
    await roost.releaseTask(t.id);
    return false;
  }
  await roost.taskDone(t.id, result.slice(0, 2000));
  process.stdout.write(`done ${title}: ${result}\n`);
  return true;
}

async function work(t: Task): Promise<void> {
  while (t.next < t.steps.length) {
    if (stopAsked) {
      finish(`stopped after ${t.next} of ${t.steps.length} steps`);
      return;
    }
    const step = t.steps[t.next]!;
    if (destructive(step)) {
      t.asking = step;
      roost.report({
        state: "blocked",
        status: "waiting",
        waitingFor: "question",
        summary: `step ${t.next + 1}/${t.steps.length} waits for a yes`,
        question: `Run \`${step}\`?`,
        choices: ["yes", "no"],
      });
      return; // the answer is the next reply
    }
    await runStep(t, step);
  }
  finish(`ran ${t.steps.length} step${t.steps.length === 1 ? "" : "s"}: ${t.results.join("; ")}`);
}

function runStep(t: Task, step: string): Promise<void> {
  roost.report({
    state: "working",
    status: "busy",
    tool: "shell",
    summary: `step ${t.next + 1}/${t.steps.length}: ${step}`,
  });
  process.stdout.write(`\n$ ${step}\n`);
  return new Promise((resolve) => {
    let lastLine = "";
    // A process group of its own, so that a stop ends the whole step (sh and what it started).
    const proc = spawn("sh", ["-c", step], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    child = proc;
    const show = (chunk: Buffer) => {
      process.stdout.write(chunk);
      const text = chunk.toString().trim();
      if (text) lastLine = text.split("\n").pop()!.trim();
    };
    proc.stdout!.on("data", show);
    proc.stderr!.on("data", show);
    proc.on("error", (err) => {
      lastLine = err.message;
    });
    proc.on("close", (code, signal) => {
      child = null;
      // A step the stop ended did not run: the count ("stopped after N of M") leaves it out.
      if (!stopAsked) t.next++;
      const how = signal ? `stopped (${signal})` : code === 0 ? "ok" : `exit ${code}`;
      t.results.push(`${step} → ${how}${lastLine ? ` (${lastLine.slice(0, 80)})` : ""}`);
      resolve();
    });
  });
}

function stopChild(): void {
  if (!child?.pid) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    child.kill("SIGTERM");
  }
}

function finish(summary: string): void {
  end("done", summary);
}

/** The task's end: reported, and handed back to the parent when this agent is a helper. */
function end(state: "done" | "failed", summary: string, error?: string): void {
  task = null;
  stopAsked = false;
  roost.report({ state, status: "idle", summary, error: error ?? null });
  process.stdout.write(`\n${summary}${error ? `: ${error}` : ""}\n`);
  void handBack(state === "done" ? summary : `failed: ${summary}${error ? `: ${error}` : ""}`);
}

/** A helper's result goes to its parent, once: roost then stops this process (the row stays done). */
let handedBack = false;
async function handBack(result: string): Promise<void> {
  try {
    if (handedBack || !(await self())?.parent) return;
    handedBack = true;
    await roost.handback(result);
  } catch (err) {
    process.stderr.write(`example-agent: the handback failed: ${(err as Error).message}\n`);
  }
}

for (const signal of ["SIGTERM", "SIGHUP"] as const)
  process.on(signal, () => {
    stopChild();
    void roost.close({ timeoutMs: 1000 }).finally(() => process.exit(signal === "SIGTERM" ? 143 : 129));
  });

roost.report({ state: "working", status: "busy", summary: "waiting for its task" });
