"""roost's agent client for Python: one file, the standard library only, Python 3.8+.

An agent that roost runs (a profile with ``"protocol": true``) reports its state and takes the
user's replies through it (the protocol: docs/protocol.md)::

    from roost_agent import RoostAgent

    agent = RoostAgent.from_env("my-agent", version="1.0", on_reply=lambda r: work(r.text))
    if agent:
        agent.report("working", summary="reading the code")
        agent.wait()  # or go on with the agent's own work: replies come on a thread of their own

- The job is found in the environment (``ROOST_JOB_ID`` ..., the older ``PI_JOB_ID`` ...);
  ``from_env`` gives None when roost did not start the process.
- The first ``report`` connects. Every connection says ``hello`` and then sends the latest
  report; a lost connection is made again (backoff with jitter) until ``close``.
- Reports are coalesced: a change of state (or of the question, the choices, the status ...) is
  sent at once, the row's text (``summary``, ``tool``) at most every 2 s, the last always.
  Fields over the protocol's limits are cut to them before sending.
- ``on_reply(reply)`` is called on a thread of its own, once per reply, in order, one at a
  time. When it returns, the reply's seq is written to ``$ROOST_JOB_DIR/agent.json`` and then
  acked, so an agent started again after a crash skips (and only acks) what it had finished.
  A handler that raises is reported on stderr and counts as finished.
- Peer items (another session's message, a child's handback, a watch's notice) share the
  replies' seq order and that same path: with ``on_item(item)`` each goes to it instead (the
  reports then say ``agentItems: true``) and is acked exactly; without it they come to
  ``on_reply`` as follow-ups whose text begins with roost's envelope.
- ``request(op, args, timeout)`` sends any other op on the connection (after the first
  report); the peer ops (``peers``, ``send``, ``spawn``, ``handback``, ``watch``) and the task
  board's ``tasks``, ``claim_task``, ``task_done``, ``release_task`` and ``add_task`` are
  wrappers over it. ``RoostAgent.foreground(...)`` and ``register(name)`` make a process roost
  did not start a session of its own.
"""

import json
import os
import random
import socket
import sys
import threading
import time
import traceback
import uuid
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional

__all__ = [
    "RoostAgent",
    "RoostHub",
    "RoostError",
    "Reply",
    "PROTOCOL",
    "LIMITS",
    "ERROR_CODES",
    "DISCONNECTED",
    "fit_report",
    "truncate",
]

PROTOCOL = 1

#: The report's field limits (docs/protocol.md, ``report``; roost's own for model and thinking), in
#: UTF-16 units as the daemon counts them: the same as LIMITS in sdk/ts/protocol/limits.ts.
LIMITS = {
    "summary": 500,
    "question": 2000,
    "choices": 20,
    "choice": 200,
    "tool": 100,
    "error": 1000,
    "name": 200,
    "model": 200,
    "thinking": 100,
    "prLinks": 50,
    "prLink": 2000,
    "remoteAt": 2000,
}

#: Every report field but ``state``: what a report leaves out is sent null (NULL_REPORT_FIELDS in
#: sdk/ts/protocol/limits.ts).
REPORT_FIELDS = (
    "status",
    "waitingFor",
    "summary",
    "question",
    "choices",
    "tool",
    "error",
    "name",
    "model",
    "thinking",
    "context",
    "usage",
    "prLinks",
    "remoteAt",
    "attachSignal",
    "attachRepaint",
    "agentItems",
)

#: The text fields cut to their limit, and the lists cut to theirs (each item to the second).
_CUT_FIELDS = ("summary", "question", "tool", "error", "name", "model", "thinking", "remoteAt")
_CUT_LISTS = (("choices", "choices", "choice"), ("prLinks", "prLinks", "prLink"))

#: The daemon's error codes, as ``RoostError.code`` has them (docs/protocol.md, "Error codes";
#: the same list as ERROR_CODES in sdk/ts/protocol/errors.ts, which a test holds this to).
ERROR_CODES = (
    "bad_request",  # malformed: the message says what to fix
    "unauthorized",  # not this job's token, or the job has ended: stop speaking for it
    "policy",  # not allowed here
    "not_found",  # no such job
    "unsupported",  # not for this kind of job or connection
    "conflict",  # someone else holds it
    "blocked",  # it waits on something not yet done
    "locked",  # it is being changed by another request
    "limit",  # the request is over 4 MiB: not read, and the connection closed
    "full",  # 50 replies wait for the job
    "rate_limited",  # too many in a short time
    "busy",  # try again shortly
)

#: This client's own code, never the daemon's: the connection was lost before the answer came.
DISCONNECTED = "disconnected"

#: The row's text: sent at most this often (seconds). Any other change is sent at once.
TEXT_INTERVAL = 2.0
_TEXT_FIELDS = ("summary", "tool")

_BACKOFF_FIRST = 0.1
_BACKOFF_MAX = 3.0


class RoostError(Exception):
    """A refusal from the daemon (``code``: ``bad_request``, ``unauthorized``, ...), or
    ``disconnected`` when the connection was lost before the answer came."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return "%s: %s" % (self.code, self.message)


class Reply(object):
    """A reply from the user: ``seq`` (per job, from 1), ``text``, ``mode`` (``"steer"``,
    ``"followUp"`` or None). A peer item also has ``kind`` (``message``, ``report``, ``notice``,
    ``digest``), ``sender`` (``{"id", "name"}``, the wire's ``from``) and ``relation`` (``parent``,
    ``child``, ``peer``, ``concierge``; a notice's ``roost``), all None for the user's replies;
    its text begins with roost's envelope line. ``answered_by`` is ``"concierge"`` for an answer the
    concierge gave in the user's place (``why`` its reason), else None: the user's."""

    __slots__ = ("seq", "text", "mode", "kind", "sender", "relation", "answered_by", "why", "raw")

    def __init__(self, seq: int, text: str, mode: Optional[str], kind: Optional[str], raw: Dict[str, Any]):
        self.seq = seq
        self.text = text
        self.mode = mode
        self.kind = kind
        self.sender = raw.get("from")  # type: Optional[Dict[str, str]]
        self.relation = raw.get("relation")  # type: Optional[str]
        self.answered_by = raw.get("answeredBy")  # type: Optional[str]
        self.why = raw.get("why")  # type: Optional[str]
        self.raw = raw

    def __repr__(self) -> str:
        if self.kind is not None:
            return "Reply(seq=%r, kind=%r, sender=%r, text=%r)" % (self.seq, self.kind, self.sender, self.text)
        return "Reply(seq=%r, text=%r, mode=%r)" % (self.seq, self.text, self.mode)


def _env(name: str, old: str) -> Optional[str]:
    value = os.environ.get(name)
    if value:
        return value
    return os.environ.get(old) or None


def _units(text: str) -> int:
    """Its length in UTF-16 units, as the daemon (JavaScript) counts it."""
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def truncate(text: str, limit: int) -> str:
    """At most ``limit`` UTF-16 units, never half a surrogate pair, "…" when cut: ``truncate`` of
    sdk/ts/agent/report-fit.ts, unit for unit (test/fixtures/report-fit.json holds both to it)."""
    if _units(text) <= limit:
        return text
    kept = []
    used = 0
    for ch in text:
        size = 2 if ord(ch) > 0xFFFF else 1
        if used + size > limit - 1:
            break
        kept.append(ch)
        used += size
    cut = "".join(kept)
    if cut and 0xD800 <= ord(cut[-1]) <= 0xDBFF:
        cut = cut[:-1]  # a lone high surrogate, as JavaScript's slice would leave it: dropped
    return cut + "\u2026"


def _js_string(value: Any) -> str:
    """``String(value)`` as JavaScript says it, for a list's items that are not strings."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def fit_report(report: Dict[str, Any]) -> Dict[str, Any]:
    """The full snapshot the wire carries (``fitReport`` of sdk/ts/agent/report-fit.ts, field for
    field): every field present (null when left out), each text within its limit (cut with "…"),
    ``choices`` and ``prLinks`` to their count and each item to its length. A value that is not a
    string is left as it is (the daemon names it); ``state`` and what the protocol bounds otherwise
    (``context``, ``usage``, ...) go as they are."""
    fitted = {key: None for key in REPORT_FIELDS}  # type: Dict[str, Any]
    fitted.update(report)
    for key in _CUT_FIELDS:
        if isinstance(fitted.get(key), str):
            fitted[key] = truncate(fitted[key], LIMITS[key])
    for key, count, each in _CUT_LISTS:
        value = fitted.get(key)
        if isinstance(value, (list, tuple)):
            fitted[key] = [truncate(_js_string(v), LIMITS[each]) for v in list(value)[: LIMITS[count]]]
    return fitted


def _args(args: Dict[str, Any], **optional: Any) -> Dict[str, Any]:
    """An op's args: ``args``, with each of ``optional`` that was given (left out when None)."""
    args.update((key, value) for key, value in optional.items() if value is not None)
    return args


def _log(message: str) -> None:
    try:
        sys.stderr.write("roost_agent: %s\n" % message)
        sys.stderr.flush()
    except Exception:
        pass


class _Waiter(object):
    __slots__ = ("event", "message", "error")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.message = None  # type: Optional[Dict[str, Any]]
        self.error = None  # type: Optional[RoostError]


class _Connection(object):
    """One socket: writes under a lock; answers matched by id."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.write_lock = threading.Lock()
        self.alive = True
        self.ready = False  # hello and the report are out: other requests may follow
        # A foreground session's deliveries that came before peer_register's answer: handed on after it.
        self.held = None  # type: Optional[List[Dict[str, Any]]]
        # id -> a _Waiter, or a callable taking the answer (fire and forget).
        self.waiting = {}  # type: Dict[int, Any]


class RoostAgent(object):
    """The client for one job. Build it with ``from_env`` (a process roost started) or
    ``foreground`` (one it did not: then ``register``)."""

    def __init__(
        self,
        job_id: str,
        token: str,
        socket_path: str,
        job_dir: Optional[str],
        name: str,
        version: str = "0",
        capabilities: Optional[List[str]] = None,
        on_reply: Optional[Callable[[Reply], Any]] = None,
        on_item: Optional[Callable[[Reply], Any]] = None,
    ) -> None:
        if on_item is not None and on_reply is None:
            raise ValueError("on_item needs on_reply too: replies and items come in one order")
        self.job_id = job_id
        self.token = token
        self.socket_path = socket_path
        self.job_dir = job_dir
        self.name = name
        self.version = version
        if capabilities is None:
            capabilities = ["report", "replies"] if on_reply is not None else ["report"]
        self.capabilities = list(capabilities)
        if on_item is not None and "agent-items" not in self.capabilities:
            self.capabilities.append("agent-items")
        self.on_reply = on_reply
        #: Peer items go to it (their reports say ``agentItems: true``); None: they come to on_reply.
        self.on_item = on_item
        #: The daemon's answer to the last hello (None before, or from a daemon without hello).
        self.daemon = None  # type: Optional[Dict[str, Any]]
        #: How many connections were made (each said hello and reported).
        self.connections = 0

        self._lock = threading.Condition()
        self._latest = None  # type: Optional[Dict[str, Any]]
        self._sent = None  # type: Optional[Dict[str, Any]]
        self._dirty = False
        self._urgent = False
        self._sent_at = 0.0
        self._conn = None  # type: Optional[_Connection]
        self._manager = None  # type: Optional[threading.Thread]
        self._closing = False
        self._closed = False
        self._stopped = False  # unauthorized: this job is no longer ours to speak for
        self._next_id = 1
        # A foreground session's peer_register args, said first on every connection (``register``).
        self._registration = None  # type: Optional[Dict[str, Any]]
        self._register_error = None  # type: Optional[RoostError]

        self._saved_seq = self._read_last_seq()  # finished before this process started
        self._done_seq = self._saved_seq  # finished, by this process or before
        self._seen_seq = self._saved_seq  # queued or finished
        self._queue = deque()  # type: Deque[Reply]
        self._handling = None  # type: Optional[Reply]
        self._handler_thread = None  # type: Optional[threading.Thread]

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def from_env(
        cls,
        name: str,
        version: str = "0",
        capabilities: Optional[List[str]] = None,
        on_reply: Optional[Callable[[Reply], Any]] = None,
        on_item: Optional[Callable[[Reply], Any]] = None,
    ) -> "Optional[RoostAgent]":
        """The client for the job roost started this process for; None when roost did not."""
        job_id = _env("ROOST_JOB_ID", "PI_JOB_ID")
        if not job_id:
            return None
        token = _env("ROOST_JOB_TOKEN", "PI_JOB_TOKEN") or ""
        job_dir = _env("ROOST_JOB_DIR", "PI_JOB_DIR")
        return cls(job_id, token, _socket_path(), job_dir, name, version, capabilities, on_reply, on_item)

    @classmethod
    def foreground(
        cls,
        name: str,
        version: str = "0",
        capabilities: Optional[List[str]] = None,
        on_reply: Optional[Callable[[Reply], Any]] = None,
        on_item: Optional[Callable[[Reply], Any]] = None,
        socket_path: Optional[str] = None,
    ) -> "RoostAgent":
        """The client of a session roost did not start: no job until ``register``. Its finished
        seqs are remembered in memory only (it has no job directory)."""
        return cls("", "", socket_path or _socket_path(), None, name, version, capabilities, on_reply, on_item)

    # --- reports ------------------------------------------------------------------------------

    def report(
        self,
        state: str,
        summary: Optional[str] = None,
        question: Optional[str] = None,
        choices: Optional[List[str]] = None,
        status: Optional[str] = None,
        waiting_for: Optional[str] = None,
        tool: Optional[str] = None,
        error: Optional[str] = None,
        name: Optional[str] = None,
        model: Optional[str] = None,
        thinking: Optional[str] = None,
        **extra: Any
    ) -> None:
        """Sets the job's row: a full snapshot (what is left out is null). Returns at once; the
        first report connects. Extra keyword arguments are sent as report fields by their wire
        names (``prLinks``, ``remoteAt``, ``context``, ``usage``, ...). Every field is fitted to its
        limit as the TypeScript client fits it (``fit_report``): one long value is cut, never the
        reason the daemon refuses the whole report."""
        fields = {
            "state": state,
            "status": status,
            "waitingFor": waiting_for,
            "summary": summary,
            "question": question,
            "choices": choices,
            "tool": tool,
            "error": error,
            "name": name,
            "model": model,
            "thinking": thinking,
        }  # type: Dict[str, Any]
        fields.update(extra)
        # The client's to say: items come as such only to an on_item handler.
        fields["agentItems"] = True if self.on_item is not None else None
        snapshot = fit_report(fields)
        with self._lock:
            if self._closed:
                return
            if snapshot == self._latest:
                return
            self._latest = snapshot
            self._dirty = True
            if not self._only_text_changed(snapshot):
                self._urgent = True
            self._start()
            self._lock.notify_all()

    def _only_text_changed(self, snapshot: Dict[str, Any]) -> bool:
        sent = self._sent
        if sent is None:
            return False
        keys = set(sent) | set(snapshot)
        return all(k in _TEXT_FIELDS or sent.get(k) == snapshot.get(k) for k in keys)

    # --- other ops ----------------------------------------------------------------------------

    def request(self, op: str, args: Optional[Dict[str, Any]] = None, timeout: float = 10.0) -> Any:
        """Sends ``op`` on the job's connection and returns its result. Raises ``RoostError``
        (``.code``; ``disconnected`` when the connection was lost meanwhile) or ``TimeoutError``.
        Waits for the connection (within ``timeout``) while it is being made again."""
        deadline = time.monotonic() + timeout
        with self._lock:
            if self._registration is None and not self.job_id:
                raise RoostError("disconnected", "register() first: a session roost did not start has no job until then")
            if self._latest is None and self._registration is None:
                raise RoostError("disconnected", "report() first: the connection starts with a report")
            while True:
                if self._stopped:
                    raise RoostError("unauthorized", "the daemon refused this job's token")
                if self._closing:
                    raise RoostError("disconnected", "the client is closed")
                conn = self._conn
                if conn is not None and conn.alive and conn.ready:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no connection to roost within %ss" % timeout)
                self._lock.wait(left)
        waiter = _Waiter()
        self._send(conn, op, args if args is not None else {}, waiter)
        left = max(0.0, deadline - time.monotonic())
        if not waiter.event.wait(left):
            with self._lock:
                for key, value in list(conn.waiting.items()):
                    if value is waiter:
                        del conn.waiting[key]
            raise TimeoutError("no answer to %s within %ss" % (op, timeout))
        if waiter.error is not None:
            raise waiter.error
        msg = waiter.message or {}
        if not msg.get("ok"):
            raise RoostError(str(msg.get("code") or "bad_request"), str(msg.get("error") or "refused"))
        return msg.get("result")

    # --- the peers (docs/protocol.md, "The peer ops") ------------------------------------------

    def peers(self, timeout: float = 10.0) -> List[Dict[str, Any]]:
        """Every session on the list, this one's own marked ``self: True``."""
        return self.request("peers", {}, timeout).get("peers", [])

    def send(self, to: str, text: str, mode: Optional[str] = None, timeout: float = 10.0) -> Dict[str, Any]:
        """A message to another session (an id, or a name exactly one live session has):
        ``{"outcome": "delivered" | "queued" | "duplicate", "to": {"id", "name"}}``."""
        return self.request("send", _args({"to": to, "text": text}, mode=mode), timeout)

    def spawn(
        self,
        profile: str,
        task: str,
        name: Optional[str] = None,
        cwd: Optional[str] = None,
        request_id: Optional[str] = None,
        timeout: float = 30.0,
        worktree: Optional[bool] = None,
        branch: Optional[str] = None,
    ) -> Dict[str, Any]:
        """A child session (``dispatch`` for a session; its ``parent`` is this one): ``{"job": row}``.
        ``worktree=True`` runs it in a git worktree of its own, on a new branch (``branch``, else
        ``roost/<id>``): docs/worktrees.md."""
        args = _args(
            {"profile": profile, "task": task},
            name=name,
            cwd=cwd,
            requestId=request_id,
            worktree=worktree,
            branch=branch,
        )
        return self.request("spawn", args, timeout)

    def handback(self, text: str, done: Optional[bool] = None, timeout: float = 10.0) -> Dict[str, Any]:
        """This session's result, to its parent. ``done`` (the daemon's default, True) ends it:
        its row says done at once, and roost stops its process once the parent has the item."""
        return self.request("handback", _args({"text": text}, done=done), timeout)

    def watch(self, session: str, when: str, timeout: float = 10.0) -> Dict[str, Any]:
        """A ``notice`` item, once, when that session next stops (``"idle"``) or has ended
        (``"ended"``): ``{"id", "name", "when", "fired"}``."""
        return self.request("watch", {"id": session, "when": when}, timeout)

    def register(
        self,
        name: str,
        session: Optional[str] = None,
        cwd: Optional[str] = None,
        pid: Optional[int] = None,
        timeout: float = 10.0,
    ) -> Dict[str, str]:
        """A session roost did not start (``foreground``) becomes one: ``peer_register`` on the
        connection, said again first on every connection after it, and then this client speaks
        for the id and token it gave (``{"id", "token"}``). ``session`` is the session's own key
        (one is made when none is given): registering again with it gets the same id back, which
        is what a reconnection does. A refusal raises ``RoostError``; register may be tried again."""
        args = _args({"name": name, "session": session or uuid.uuid4().hex}, cwd=cwd, pid=pid)
        deadline = time.monotonic() + timeout
        with self._lock:
            if self._closing:
                raise RoostError("disconnected", "the client is closed")
            if self._registration is not None:
                raise RoostError("bad_request", "registered already (%s)" % (self.job_id or "under way"))
            if self.job_id:
                raise RoostError(
                    "bad_request",
                    "this client speaks for job %s: register is for a session roost did not start" % self.job_id,
                )
            self._registration = args
            self._register_error = None
            self._start()
            while True:
                if self._register_error is not None:
                    raise self._register_error
                conn = self._conn
                if conn is not None and conn.alive and conn.ready and self.job_id:
                    return {"id": self.job_id, "token": self.token}
                left = deadline - time.monotonic()
                if left <= 0:
                    if not self.job_id:
                        self._registration = None  # never registered: nothing to keep trying for
                        self._lock.notify_all()
                    raise TimeoutError("no registration with roost within %ss" % timeout)
                self._lock.wait(left)

    # --- the task board -----------------------------------------------------------------------

    def tasks(self, timeout: float = 10.0) -> List[Dict[str, Any]]:
        """The task board: every task, oldest first."""
        return self.request("task", {"action": "list"}, timeout).get("tasks", [])

    def claim_task(self, task_id: Any, timeout: float = 10.0) -> Dict[str, Any]:
        return self.request("task", {"action": "claim", "id": task_id}, timeout)

    def task_done(self, task_id: Any, result: Optional[str] = None, timeout: float = 10.0) -> Dict[str, Any]:
        return self.request("task", _args({"action": "done", "id": task_id}, result=result), timeout)

    def release_task(self, task_id: Any, timeout: float = 10.0) -> Dict[str, Any]:
        return self.request("task", {"action": "release", "id": task_id}, timeout)

    def add_task(
        self, title: str, detail: Optional[str] = None, after: Optional[List[Any]] = None, timeout: float = 10.0
    ) -> Dict[str, Any]:
        args = _args({"action": "add", "title": title}, detail=detail, after=None if after is None else list(after))
        return self.request("task", args, timeout)

    # --- the end ------------------------------------------------------------------------------

    def close(self, timeout: float = 5.0) -> None:
        """Sends the latest report and ends the connection. A reply whose handler is running is
        acked only if it finishes within ``timeout`` (otherwise it comes again on the next
        start); replies not yet started are left to the next start. Called from the handler
        itself, that reply is not acked."""
        deadline = time.monotonic() + timeout
        with self._lock:
            if self._closing:
                return
            self._closing = True
            self._lock.notify_all()
            if threading.current_thread() is not self._handler_thread:
                while self._handling is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._lock.wait(left)
            # From here on, nothing more is saved or acked.
            self._closed = True
            conn = self._conn
            latest = self._latest
            self._lock.notify_all()
        if conn is not None and conn.alive and latest is not None and not self._stopped:
            waiter = _Waiter()
            self._send(conn, "report", {"id": self.job_id, "token": self.token, "report": latest}, waiter)
            waiter.event.wait(max(0.0, deadline - time.monotonic()))
        with self._lock:
            conn = self._conn
            self._conn = None
            self._lock.notify_all()
        if conn is not None:
            self._drop(conn)

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Blocks until ``close`` (or the daemon refused the job's token); True if it came."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while not (self._closed or self._stopped):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._lock.wait(left)
            return True

    @property
    def connected(self) -> bool:
        conn = self._conn
        return conn is not None and conn.alive

    # --- the connection -----------------------------------------------------------------------

    def _start(self) -> None:
        # Under the lock.
        if self._manager is None:
            self._manager = threading.Thread(target=self._run, name="roost-agent", daemon=True)
            self._manager.start()
        if self._handler_thread is None and self.on_reply is not None:
            self._handler_thread = threading.Thread(target=self._handle_loop, name="roost-replies", daemon=True)
            self._handler_thread.start()

    def _run(self) -> None:
        delay = _BACKOFF_FIRST
        while True:
            with self._lock:
                if self._closing or self._stopped:
                    return
                if not self.job_id and self._registration is None:
                    self._manager = None  # no job to speak for: register() starts another
                    return
            conn = self._connect()
            if conn is None:
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, _BACKOFF_MAX)
                continue
            delay = _BACKOFF_FIRST
            self._serve(conn)
            with self._lock:
                if self._closing:
                    return  # close() sends the last report on it and ends it
                if self._conn is conn:
                    self._conn = None
                self._lock.notify_all()
            if not self._closing and not self._stopped:
                time.sleep(_BACKOFF_FIRST * (0.5 + random.random()))

    def _connect(self) -> "Optional[_Connection]":
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError as err:
            _log("cannot make a socket: %s" % err)
            return None
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            return None
        conn = _Connection(sock)
        with self._lock:
            if self._closing:
                sock.close()
                return None
            self._conn = conn
            self.connections += 1
            registration = self._registration
            if registration is not None:
                conn.held = []
        reader = threading.Thread(target=self._read, args=(conn,), name="roost-agent-reader", daemon=True)
        reader.start()
        if registration is not None and not self._register_on(conn, registration):
            return None
        with self._lock:
            latest = self._latest
            self._sent = latest
            self._dirty = False
            self._urgent = False
            self._sent_at = time.monotonic()
        hello = {
            "protocol": PROTOCOL,
            "agent": {"name": self.name, "version": self.version},
            "capabilities": self.capabilities,
        }
        self._send(conn, "hello", hello, self._on_hello)
        if latest is not None:
            self._send(conn, "report", {"id": self.job_id, "token": self.token, "report": latest}, self._on_report)
        with self._lock:
            conn.ready = True
            # Handed on under the lock, so that none read meanwhile overtakes them (the lock is
            # reentrant: _on_deliver takes it again).
            held, conn.held = conn.held or [], None
            for msg in held:
                self._on_deliver(conn, msg)
            self._lock.notify_all()
        return conn

    def _register_on(self, conn: _Connection, args: Dict[str, Any]) -> bool:
        """A foreground session's connection: ``peer_register`` first (its hello after it, so that
        the row takes the agent's name and capabilities). What the daemon sends before answering
        (the deliveries that waited for the session) is held until the id is known."""
        waiter = _Waiter()
        self._send(conn, "peer_register", dict(args), waiter)
        waiter.event.wait(30.0)
        msg = waiter.message or {}
        if waiter.error is not None or not waiter.event.is_set():
            self._drop(conn)  # lost, or no answer: the next connection registers again
            return False
        if not msg.get("ok"):
            error = RoostError(str(msg.get("code") or "bad_request"), str(msg.get("error") or "refused"))
            _log("peer_register refused: %s" % error)
            with self._lock:
                self._registration = None
                self._register_error = error
                self._lock.notify_all()
            self._drop(conn)
            return False
        result = msg.get("result") or {}
        with self._lock:
            if self.job_id and self.job_id != result.get("id"):
                # The old row was removed: a new session, whose seqs start afresh.
                _log("registered as %s: %s's row is gone, a new one was made" % (result.get("id"), self.job_id))
                self._saved_seq = self._done_seq = self._seen_seq = 0
            self.job_id = str(result.get("id"))
            self.token = str(result.get("token"))
        return True

    def _serve(self, conn: _Connection) -> None:
        """Sends reports on ``conn`` as they come (coalesced) until it is lost or closed."""
        while True:
            with self._lock:
                while True:
                    if not conn.alive or self._closing or self._stopped:
                        return
                    if self._dirty:
                        due = self._sent_at + TEXT_INTERVAL
                        now = time.monotonic()
                        if self._urgent or now >= due:
                            break
                        self._lock.wait(due - now)
                    else:
                        self._lock.wait()
                latest = self._latest
                self._sent = latest
                self._dirty = False
                self._urgent = False
                self._sent_at = time.monotonic()
            self._send(conn, "report", {"id": self.job_id, "token": self.token, "report": latest}, self._on_report)

    def _send(self, conn: _Connection, op: str, args: Dict[str, Any], on_answer: Any) -> None:
        with self._lock:
            rid = self._next_id
            self._next_id += 1
            if not conn.alive:
                if isinstance(on_answer, _Waiter):
                    on_answer.error = RoostError("disconnected", "the connection to roost was lost")
                    on_answer.event.set()
                return
            conn.waiting[rid] = on_answer
        line = (json.dumps({"id": rid, "op": op, "args": args}, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            with conn.write_lock:
                conn.sock.sendall(line)
        except OSError:
            self._drop(conn)

    def _drop(self, conn: _Connection) -> None:
        """The connection is over: every answer still awaited on it is ``disconnected``."""
        with self._lock:
            was_alive = conn.alive
            conn.alive = False
            waiting = list(conn.waiting.values())
            conn.waiting.clear()
            self._lock.notify_all()
        if was_alive:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                conn.sock.close()
            except OSError:
                pass
        for w in waiting:
            if isinstance(w, _Waiter):
                w.error = RoostError("disconnected", "the connection to roost was lost before the answer")
                w.event.set()

    def _read(self, conn: _Connection) -> None:
        buf = b""
        try:
            while True:
                chunk = conn.sock.recv(65536)
                if not chunk:
                    break
                buf += chunk
                while True:
                    nl = buf.find(b"\n")
                    if nl < 0:
                        break
                    line, buf = buf[:nl], buf[nl + 1 :]
                    if line.strip():
                        self._on_line(conn, line)
        except OSError:
            pass
        finally:
            self._drop(conn)

    def _on_line(self, conn: _Connection, line: bytes) -> None:
        try:
            msg = json.loads(line.decode("utf-8"))
        except ValueError:
            _log("not JSON from roost: %r" % line[:200])
            return
        if not isinstance(msg, dict):
            return
        if "event" in msg:
            if msg.get("event") == "deliver":
                self._on_deliver(conn, msg)
            return
        with self._lock:
            target = conn.waiting.pop(msg.get("id"), None) if isinstance(msg.get("id"), int) else None
        if isinstance(target, _Waiter):
            target.message = msg
            target.event.set()
        elif target is not None:
            try:
                target(msg)
            except Exception:
                traceback.print_exc()
        elif msg.get("ok") is False:
            _log("roost: %s: %s" % (msg.get("code"), msg.get("error")))

    def _on_hello(self, msg: Dict[str, Any]) -> None:
        if msg.get("ok"):
            self.daemon = msg.get("result")
        # A daemon from before hello answers bad_request: go on with version 1.

    def _on_report(self, msg: Dict[str, Any]) -> None:
        if msg.get("ok"):
            return
        _log("report refused: %s: %s" % (msg.get("code"), msg.get("error")))
        if msg.get("code") == "unauthorized":
            with self._lock:
                self._stopped = True
                conn = self._conn
                self._lock.notify_all()
            if conn is not None:
                self._drop(conn)

    # --- replies ------------------------------------------------------------------------------

    def _on_deliver(self, conn: _Connection, msg: Dict[str, Any]) -> None:
        seq = msg.get("seq")
        if not isinstance(seq, int):
            return
        kind = msg.get("kind")
        reply = Reply(seq, str(msg.get("text") or ""), msg.get("mode"), kind, msg)
        with self._lock:
            if conn.held is not None:
                conn.held.append(msg)  # before peer_register's answer: handed on after it
                return
            if self._closed:
                return
            if self.on_reply is None:
                return  # nobody takes replies: they stay pending
            if seq <= self._done_seq:
                ack = True  # finished already: only acked
            elif seq <= self._seen_seq:
                return  # queued or under way: acked when its handler returns
            else:
                ack = False
                self._seen_seq = seq
                self._queue.append(reply)
                self._lock.notify_all()
        if ack:
            self._ack(reply, conn)

    def _ack(self, reply: Reply, conn: "Optional[_Connection]" = None) -> None:
        with self._lock:
            if conn is None or not conn.alive:
                conn = self._conn
            if self._closed or conn is None or not conn.alive:
                return  # it is sent again on the next connection, and acked then
        args = {"id": self.job_id, "token": self.token, "seq": reply.seq}  # type: Dict[str, Any]
        if reply.kind is not None:
            args["exact"] = True
        self._send(conn, "ack", args, _log_refusal("ack"))

    def _handle_loop(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closing:
                    self._lock.wait()
                if self._closing:
                    return
                reply = self._queue.popleft()
                self._handling = reply
            try:
                # One path for both: an item's seq is saved and acked (exactly) as a reply's is.
                if reply.kind is not None and self.on_item is not None:
                    self.on_item(reply)
                else:
                    self.on_reply(reply)  # type: ignore[misc]
            except Exception:
                _log("the handler raised on %s %d:" % (reply.kind or "reply", reply.seq))
                traceback.print_exc()
            with self._lock:
                closed = self._closed
            if not closed:
                try:
                    self._save_last_seq(reply.seq)
                except OSError as err:
                    _log("cannot write agent.json: %s" % err)
            with self._lock:
                if not closed:
                    self._done_seq = max(self._done_seq, reply.seq)
            if not closed:
                self._ack(reply)
            with self._lock:
                self._handling = None
                self._lock.notify_all()

    def _read_last_seq(self) -> int:
        if not self.job_dir:
            return 0
        try:
            with open(os.path.join(self.job_dir, "agent.json"), "r", encoding="utf-8") as f:
                value = json.load(f).get("lastSeq", 0)
            return value if isinstance(value, int) else 0
        except (OSError, ValueError, AttributeError):
            return 0

    def _save_last_seq(self, seq: int) -> None:
        """Keeps the last finished seq in agent.json (tmp + replace), before its ack."""
        if not self.job_dir:
            return
        path = os.path.join(self.job_dir, "agent.json")
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"lastSeq": seq}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        # The rename is durable once the directory is synced.
        dir_fd = os.open(self.job_dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


class RoostHub(object):
    """The user's side of the socket (docs/protocol.md, "The hub's ops"): a connection that never
    identifies as a session, for a script that lists the rows and answers them. One request at a
    time; pushes (after ``subscribe``) are not read here."""

    def __init__(self, socket_path: Optional[str] = None, timeout: float = 10.0) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        self._sock.connect(socket_path or _socket_path())
        self._buf = b""
        self._next = 0
        self._lock = threading.Lock()

    def call(self, op: str, args: Optional[Dict[str, Any]] = None) -> Any:
        """Sends ``op`` and returns its result; a refusal raises ``RoostError`` (``.code``)."""
        with self._lock:
            self._next += 1
            rid = "py-hub-%d" % self._next
            line = json.dumps({"id": rid, "op": op, "args": args if args is not None else {}})
            self._sock.sendall(line.encode("utf-8") + b"\n")
            while True:
                msg = self._read()
                if msg.get("id") == rid:
                    break
        if not msg.get("ok"):
            raise RoostError(str(msg.get("code") or "bad_request"), str(msg.get("error") or "refused"))
        return msg.get("result")

    def _read(self) -> Dict[str, Any]:
        while b"\n" not in self._buf:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise RoostError(DISCONNECTED, "roost closed the connection")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line.decode("utf-8"))

    def rows(self) -> List[Dict[str, Any]]:
        """Every row (``list``), each with its ``asked``."""
        return self.call("list", {}).get("rows", [])

    def reply(
        self,
        job_id: str,
        text: str,
        mode: Optional[str] = None,
        request_id: Optional[str] = None,
        if_asked: Optional[int] = None,
    ) -> Dict[str, Any]:
        """The user's answer to a job. ``if_asked``: the row's ``asked`` it was drawn for; if the row
        asks something else since, it is refused with ``conflict`` and nothing is sent."""
        return self.call(
            "reply", _args({"id": job_id, "text": text}, mode=mode, requestId=request_id, ifAsked=if_asked)
        )

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass


def _socket_path() -> str:
    """roost's socket: ROOST_SOCKET, else $ROOST_HOME/roost.sock, else ~/.roost/roost.sock."""
    sock = _env("ROOST_SOCKET", "PI_DAEMON_SOCK")
    if sock:
        return sock
    home = os.environ.get("ROOST_HOME") or os.path.join(os.path.expanduser("~"), ".roost")
    return os.path.join(home, "roost.sock")


def _log_refusal(op: str) -> Callable[[Dict[str, Any]], None]:
    def on_answer(msg: Dict[str, Any]) -> None:
        if not msg.get("ok"):
            _log("%s refused: %s: %s" % (op, msg.get("code"), msg.get("error")))

    return on_answer
