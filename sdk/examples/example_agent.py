#!/usr/bin/env python3
"""An example roost agent in Python: real, visible work, no language model.

Its task is shell steps separated by ``;`` (``echo hello > out.txt; rm out.txt``). It runs them one
by one in the job's directory, each reported (working, tool ``shell``, the step as the row's text)
and its output printed to its terminal. Before a destructive step (``rm``, ``git reset``, a ``>``
over a file that exists) it asks (``blocked``, "Run `...`?", yes / no) and waits for the answer.
A ``steer`` reply of ``stop`` ends the task under way; another ``steer`` reply adds its steps to
it. At the end it reports ``done`` (``failed`` when a step fails) and waits: a follow-up reply is
the next task.

Working with another session: a task beginning ``delegate:`` (``delegate: ls -la; wc -l README.md``)
is handed to a helper: the agent spawns the TypeScript example (or, when that cannot run, one of its
own profile) with the rest as the helper's task, watches it, and waits; the helper's handback (a
``report`` item) is this task's result, reported done. An agent that was spawned (its row has a
parent) hands its result back when its task ends, and roost then stops it. A message from another
session is shown on the terminal, never run: it has no authority.

Working the task board: a task ``tasks`` (or ``work the board``) makes it take the board's open tasks
one at a time until none is left: it claims one it may (open, waiting on none, not sent to another
session), does it and marks it done with what came of it, then looks again; while the rest wait on
tasks others hold, it waits too. Doing a task the user added runs its detail as the steps above (a
destructive one is skipped, not asked: nobody is there to answer); one another session added is
only reported, never run (no authority); one with no detail is reported done. A claim another
session won (``conflict``) or one still ``blocked`` is passed over. A ``steer`` ``stop`` ends it
after giving the task under way back.

A profile for it in roost.json::

    {"agentProfiles": {"example": {"command": ["python3", "/path/to/sdk/examples/example_agent.py"],
                                   "task": "type", "protocol": true}}}

Run outside roost (``python3 example_agent.py "echo hi; rm x"``) it runs its arguments as the task
and asks in the terminal.

The reply handler returns at once and the task runs on a thread of its own, so that an answer or
a ``stop`` can come while it runs (the client hands replies over one at a time): a task is acked
when it is taken, not when it is done.
"""
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from roost_agent import RoostAgent, RoostError  # noqa: E402

_RM = re.compile(r"(^|[\s;&|(`])rm\s")
_GIT_RESET = re.compile(r"(^|[\s;&|(`])git\s+reset\b")
_REDIRECT = re.compile(r"(?<![>])>\|?(?![>&])\s*([^\s;&|<>()]+)")


def destructive(step, cwd):
    """Why ``step`` needs the user's yes, or None."""
    if _RM.search(step):
        return "rm"
    if _GIT_RESET.search(step):
        return "git reset"
    for match in _REDIRECT.finditer(step):
        target = os.path.expanduser(match.group(1).strip("'\""))
        if os.path.exists(os.path.join(cwd, target)):
            return "overwrite"
    return None


#: How often the board is read again while what is left waits on tasks others hold (seconds).
BOARD_POLL = 0.25
#: Waiting that long with the board unchanged, it gives up (a task held by one that never finishes).
BOARD_PATIENCE = 300.0


def waiting_on(task, board):
    """The tasks in ``task["after"]`` it still waits on: neither done nor dropped (nor gone)."""
    states = dict((t["id"], t["state"]) for t in board)
    return [i for i in task.get("after") or [] if states.get(i, "done") not in ("done", "dropped")]


def claimable(board, me):
    """What session ``me`` may claim now, oldest first: open, waiting on none, not sent to another."""
    return [
        t for t in board
        if t["state"] == "open" and (not t.get("assigned") or t["assigned"]["id"] == me) and not waiting_on(t, board)
    ]


def count(n, what):
    return "%d %s%s" % (n, what, "" if n == 1 else "s")


def split_steps(text):
    return [s.strip() for s in text.split(";") if s.strip()]


def last_line(text, limit=200):
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:limit] if lines else ""


class Worker(object):
    """Runs tasks one after another; ``report(state, **fields)`` and ``ask(question)`` are the
    agent's (roost's, or the terminal's outside roost)."""

    def __init__(self, report, ask):
        self.report = report
        self.ask = ask
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.steps = deque()
        self.busy = False
        self.proc = None

    def add_steps(self, text):
        with self.lock:
            self.steps.extend(split_steps(text))

    def stop_now(self):
        self.stop.set()
        with self.lock:
            proc = self.proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except OSError:
                pass

    def run_task(self, task):
        with self.lock:
            self.steps = deque(split_steps(task))
            self.busy = True
        self.stop.clear()
        ran = skipped = 0
        under_way = 0  # 1 while a step is taken and not yet run or skipped: a stop leaves it out
        last = ""
        try:
            while not self.stop.is_set():
                with self.lock:
                    if not self.steps:
                        break
                    step = self.steps.popleft()
                    under_way = 1
                    total = ran + skipped + 1 + len(self.steps)
                cwd = os.getcwd()
                if destructive(step, cwd):
                    answer = self.ask("Run `%s`?" % step)
                    if self.stop.is_set():
                        break
                    if answer.strip().lower() not in ("yes", "y"):
                        print("skipped: %s" % step, flush=True)
                        skipped += 1
                        under_way = 0
                        continue
                self.report("working", status="busy", tool="shell", summary=step)
                print("$ %s" % step, flush=True)
                code, output = self.run_step(step, cwd)
                if output:
                    print(output, end="" if output.endswith("\n") else "\n", flush=True)
                if self.stop.is_set():
                    break
                if code != 0:
                    self.report(
                        "failed",
                        status="idle",
                        summary="`%s` failed (step %d of %d)" % (step, ran + skipped + 1, total),
                        error="`%s` exited with %d: %s" % (step, code, last_line(output) or "no output"),
                    )
                    return
                ran += 1
                under_way = 0
                last = last_line(output) or last
            total = ran + skipped + under_way + len(self.steps)
            if self.stop.is_set():
                # The steps behind it (run or skipped), of all: the one the stop ended did not run.
                self.report("done", status="idle", summary="stopped after %d of %d steps" % (ran + skipped, total))
                return
            if skipped == 0:
                summary = "ran %d step%s" % (ran, "" if ran == 1 else "s")
            else:
                summary = "ran %d of %d steps, skipped %d" % (ran, total, skipped)
            if last:
                summary += ": " + last
            self.report("done", status="idle", summary=summary)
        finally:
            with self.lock:
                self.busy = False
                self.steps.clear()

    def run_board_task(self, task):
        """One task of the board: the user's detail run as steps (a destructive one skipped, not
        asked), another session's only noted (no authority). Its result, or None when a stop came."""
        detail = task.get("detail")
        if not detail:
            return "done (nothing to run)"
        if task["by"].get("whoId"):
            return "noted, not run: added by %s, a session (no authority)" % task["by"]["who"]
        results = []
        cwd = os.getcwd()
        for step in split_steps(detail):
            if self.stop.is_set():
                return None
            if destructive(step, cwd):
                results.append("skipped (it would ask first): %s" % step)
                continue
            self.report("working", status="busy", tool="shell", summary="#%s: %s" % (task["id"], step))
            print("$ %s" % step, flush=True)
            code, output = self.run_step(step, cwd)
            if output:
                print(output, end="" if output.endswith("\n") else "\n", flush=True)
            if self.stop.is_set():
                return None
            line = last_line(output, 80)
            results.append("%s → %s%s" % (step, "ok" if code == 0 else "exit %d" % code, " (%s)" % line if line else ""))
        return "; ".join(results) or "nothing to run"

    def run_step(self, step, cwd):
        with tempfile.TemporaryFile() as out:
            proc = subprocess.Popen(
                step, shell=True, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            with self.lock:
                self.proc = proc
            try:
                while proc.poll() is None:
                    if self.stop.wait(0.1) and proc.poll() is None:
                        try:
                            os.killpg(proc.pid, signal.SIGTERM)
                        except OSError:
                            pass
                        proc.wait()
            finally:
                with self.lock:
                    self.proc = None
            out.seek(0)
            return proc.returncode, out.read().decode("utf-8", "replace")


def run_in_roost(agent_holder):
    tasks = queue.Queue()
    answers = queue.Queue()
    waiting = threading.Event()  # a question is out: the next reply is its answer
    helper = {}  # the helper a delegate: task waits for ("id")
    me = {}  # this session as peers lists it ("row"): its profile, its parent; looked up once
    handed_back = threading.Event()

    def report(state, **fields):
        agent_holder[0].report(state, **fields)
        if state in ("done", "failed"):
            text = fields.get("summary") or ""
            if state == "failed":
                text = "failed: %s%s" % (text, ": " + fields["error"] if fields.get("error") else "")
            hand_back(text)

    def self_row():
        if "row" not in me:
            me["row"] = next((p for p in agent_holder[0].peers() if p.get("self")), {})
        return me["row"]

    def hand_back(result):
        """A helper's result goes to its parent, once: roost then stops this process."""
        try:
            if handed_back.is_set() or not self_row().get("parent"):
                return
            handed_back.set()
            agent_holder[0].handback(result)
        except (RoostError, TimeoutError) as err:
            print("the handback failed: %s" % err, file=sys.stderr, flush=True)

    def delegate(what):
        """A delegate: task: a helper runs it, the TypeScript example first (two languages side by
        side), this agent's own profile when that cannot run (bad_request: node missing, say)."""
        helper.clear()
        if not what:
            report("failed", status="idle", summary="nothing to delegate",
                   error="say what the helper should do: `delegate: ls -la`")
            return
        agent = agent_holder[0]
        try:
            try:
                job = agent.spawn("example-ts", what)["job"]
            except RoostError as err:
                if err.code != "bad_request":
                    raise
                job = agent.spawn(self_row().get("profile") or "example-py", what)["job"]
            helper["id"] = job["id"]
            # Told if it ends without handing back (a crash, a stop): a notice, after any handback.
            agent.watch(job["id"], "ended")
        except (RoostError, TimeoutError) as err:
            report("failed", status="idle", summary="could not start a helper", error=str(err))
            return
        report("working", status="waiting", summary="waiting for helper %s (%s): %s" % (job["id"], job["profile"], what))
        print("helper %s (%s) runs: %s" % (job["id"], job["profile"], what), flush=True)

    def on_item(item):
        """The helper's result or its end; anything else (a message) is shown, not run."""
        text = item.text.partition("\n")[2]
        sender = (item.sender or {}).get("id")
        if helper.get("id") is not None and sender == helper["id"] and item.kind in ("report", "notice"):
            helper.clear()
            if item.kind == "report":
                report("done", status="idle", summary="helper %s handed back: %s" % (sender, text))
            else:
                report("failed", status="idle", summary="helper %s ended without handing back" % sender, error=text)
            return
        print(item.text, flush=True)

    def ask(question):
        waiting.set()
        report("blocked", status="waiting", waiting_for="question", question=question, choices=["yes", "no"])
        answer = answers.get()
        waiting.clear()
        return answer

    worker = Worker(report, ask)

    def on_reply(reply):
        text = reply.text.strip()
        stop = reply.mode == "steer" and text.lower() == "stop"
        if waiting.is_set():
            if stop:
                worker.stop_now()
            answers.put(text)
            return
        with worker.lock:
            busy = worker.busy
        if busy and stop:
            worker.stop_now()
        elif busy and reply.mode == "steer":
            worker.add_steps(text)
        elif stop:
            if helper.get("id") is not None:
                report("done", status="idle", summary="stopped waiting for helper %s" % helper["id"])
                helper.clear()
        else:
            tasks.put(text)

    agent = RoostAgent.from_env(
        "example-agent",
        version="1.0",
        capabilities=["report", "replies", "steer"],
        on_reply=on_reply,
        on_item=on_item,
    )
    if agent is None:
        return False
    agent_holder[0] = agent

    def work_board():
        """``tasks``: the board's open tasks, one at a time, until none is left (or a stop)."""
        agent = agent_holder[0]
        me = agent.job_id
        did = []
        seen, last_change = None, time.monotonic()
        with worker.lock:
            worker.busy = True
        worker.stop.clear()
        try:
            while True:
                if worker.stop.is_set():
                    report("done", status="idle", summary="stopped working the board after %s" % count(len(did), "task"))
                    return
                board = agent.tasks()
                key = [(t["id"], t["state"], (t.get("owner") or {}).get("id")) for t in board]
                if key != seen:
                    seen, last_change = key, time.monotonic()
                still_open = [t for t in board if t["state"] == "open"]
                if not still_open:
                    break
                taken = None
                for t in claimable(board, me):
                    try:
                        taken = agent.claim_task(t["id"]).get("task") or t
                        break
                    except RoostError as err:
                        if err.code not in ("conflict", "blocked", "bad_request"):
                            raise
                if taken is not None:
                    title = "#%s %s" % (taken["id"], taken["title"])
                    report("working", status="busy", summary="board: " + title)
                    print("claimed " + title, flush=True)
                    result = worker.run_board_task(taken)
                    if result is None:
                        agent.release_task(taken["id"])
                        report("done", status="idle", summary="stopped working the board after %s; #%s given back"
                               % (count(len(did), "task"), taken["id"]))
                        return
                    agent.task_done(taken["id"], result[:2000])
                    print("done %s: %s" % (title, result), flush=True)
                    did.append(taken["id"])
                    continue
                if time.monotonic() - last_change > BOARD_PATIENCE:
                    report("failed", status="idle", summary="worked the board: " + did_words(did),
                           error="%s still wait" % count(len(still_open), "task"))
                    return
                report("working", status="waiting",
                       summary="board: %s wait on tasks others hold" % count(len(still_open), "open task"))
                worker.stop.wait(BOARD_POLL)
            report("done", status="idle", summary="worked the board: " + did_words(did))
        except (RoostError, TimeoutError) as err:
            report("failed", status="idle", summary="worked the board: " + did_words(did), error=str(err))
        finally:
            with worker.lock:
                worker.busy = False

    def did_words(ids):
        return "did " + ", ".join("#%s" % i for i in ids) if ids else "did none"

    def work():
        while True:
            task = tasks.get()
            delegated = re.match(r"delegate:\s*", task, re.IGNORECASE)
            try:
                if re.match(r"^(tasks|work the board)$", task.strip(), re.IGNORECASE):
                    work_board()
                elif delegated:
                    delegate(task[delegated.end():])
                else:
                    worker.run_task(task)
            except Exception as err:  # a bug here should not end the agent
                report("failed", status="idle", error="%s: %s" % (type(err).__name__, err))

    threading.Thread(target=work, name="tasks", daemon=True).start()

    def on_term(signum, frame):
        agent.close(timeout=2)
        sys.exit(0)

    signal.signal(signal.SIGTERM, on_term)
    agent.report("working", status="idle", summary="waiting for a task")
    agent.wait()
    return True


def run_alone(task):
    def report(state, **fields):
        print("[%s] %s" % (state, fields.get("summary") or fields.get("error") or ""), flush=True)

    def ask(question):
        try:
            return input("%s [yes/no] " % question)
        except EOFError:
            return "no"

    Worker(report, ask).run_task(task)


def main():
    if run_in_roost([None]):
        return
    if len(sys.argv) < 2:
        sys.exit('usage: example_agent.py "STEP; STEP; ..." (or run it as a roost profile)')
    run_alone(" ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
