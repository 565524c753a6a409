"""An implementation under test as a child process speaking protocol v1 on stdio.

With `processes` (the process tree, the run's temp dir), this is the one module of the
suite that starts an implementation's process. Whatever the child does,
each request ends within its bound (PROTOCOL.md, "The runner's bounds"):

- **Time.** Requests are written and answers read without threads, by polling the
  child's pipes (non-blocking) until the request's deadline; a child that exits while a
  request is pending is `Crashed` within `_POLL` s, even when a stray descendant keeps
  its stdout open.
- **Memory.** An answer line may hold at most `max_answer_bytes` bytes; the runner never
  buffers more of one (`ProtocolViolation` naming the cap). Of stderr only the last
  `STDERR_TAIL_BYTES` bytes are kept.
- **Processes.** After a timeout, a crash, a broken answer or at the end of the run, the
  whole process tree is killed (`processes.kill_tree`: the group, every descendant,
  what carries the child's token or holds its pipes; the runner is a subreaper).
- **Confinement.** An agent (`confined=True`) gets only the environment it is given, a
  private HOME, and where the kernel allows only loopback, a private /tmp and the
  caller's HOME read-only (`confine`); what it left outside is reported.

The handshake's answer must be the first line on stdout (a log line there is refused,
saying logs belong on stderr) and list only ops the suite knows (a typo is named with
its nearest op); either failure is `StartupFailed`. A log line where a later answer is
due is that case's `ProtocolViolation`, quoting the line with the same rule.

It restarts the child after it crashed, hung, or broke the protocol, so one broken case
never breaks the run; after a timeout, later calls fail at once (`StopAfterTimeout`)
until `new_test()`, so a property is neither retried nor shrunk on a hang. An op the
launch marks `unavailable` (this machine lacks what it needs, e.g. ripgrep) raises
`EnvironmentMissing` without a request: the case is an error naming what is missing.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import selectors
import subprocess
import tempfile
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxspec.conformance.errors import (
    AdapterError,
    Crashed,
    EnvironmentMissing,
    ProtocolViolation,
    StartupFailed,
    StopAfterTimeout,
    Timeout,
)
from ctxspec.conformance.protocol import (
    PROTOCOL_VERSION,
    OpError,
    decode_answer_line,
    decode_hello_line,
    encode_line,
    validate_hello,
    validate_response,
)
from ctxspec.conformance.transport.base import Implementation, Reply
from ctxspec.conformance.transport.confine import Confinement
from ctxspec.conformance.transport.processes import (
    KILL_BOUND,
    RUN_VARIABLE,
    TMP_VARIABLES,
    TOKEN_VARIABLE,
    become_subreaper,
    kill_tree,
    remove_tree,
    run_dir,
)

__all__ = [
    "DEFAULT_MAX_ANSWER_BYTES",
    "STDERR_TAIL_BYTES",
    "WireImplementation",
]

DEFAULT_MAX_ANSWER_BYTES: Final = 64 * 1024 * 1024
STDERR_TAIL_BYTES: Final = 8 * 1024
_GIVE_UP_AFTER_STARTUP_FAILURES: Final = 3
_CHUNK: Final = 64 * 1024
_POLL: Final = 0.05  # seconds between checks that a silent child still lives
_SETTLE: Final = 0.2  # seconds a dead child's last stderr words may take to arrive


_LIVE: weakref.WeakSet[_Child] = weakref.WeakSet()


@atexit.register
def _kill_the_living() -> None:
    """At interpreter exit, no implementation outlives the runner."""
    for child in list(_LIVE):
        child.kill()


# --- one running child ------------------------------------------------------------------


class _Child:
    """One running process: a request at a time over non-blocking pipes, its stderr tail."""

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str] | None,
        cwd: str | None,
        max_answer_bytes: int,
        confined: str | None = None,
    ) -> None:
        become_subreaper()
        self.token = secrets.token_hex(16)
        # a private temp dir (random name, mode 0700), removed with the tree: whatever the
        # implementation leaves in its TMPDIR, killed mid-request or not, goes with it
        self.tmpdir = tempfile.mkdtemp(prefix="impl-", dir=run_dir())
        scratch = dict.fromkeys(TMP_VARIABLES, self.tmpdir)
        marks = {TOKEN_VARIABLE: self.token, RUN_VARIABLE: run_dir()}
        # an agent (`confined`: its name) gets only its declared environment, a private
        # HOME, and the namespaces where the kernel has them (`confine`)
        self.confinement = None if confined is None else Confinement(confined, self.tmpdir)
        if self.confinement is not None:
            child_env = dict(self.confinement.env(env or {}), **marks)
            argv = self.confinement.argv(list(argv), child_env)
        else:
            child_env = dict(os.environ if env is None else env, **scratch, **marks)
        self.left: list[str] = []  # what a confined child left outside its folders
        try:
            self.process = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=child_env,
                cwd=cwd,
                bufsize=0,
                start_new_session=True,  # its own group and session, so both can be killed
            )
        except OSError:
            remove_tree(self.tmpdir)
            raise
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self._in = self.process.stdin.fileno()
        self._out = self.process.stdout.fileno()
        self._err = self.process.stderr.fileno()
        self._pipes = frozenset(f"pipe:[{os.fstat(fd).st_ino}]" for fd in self._fds())
        for fd in self._fds():
            os.set_blocking(fd, False)
        self.max_answer_bytes = max_answer_bytes
        self.next_id = 1
        self._answer = bytearray()  # stdout read but not yet taken as answer lines
        self._scanned = 0  # bytes of `_answer` known to hold no newline
        self._out_open = self._err_open = True
        self._stderr = bytearray()
        self._stderr_bytes = 0  # all stderr ever read, of which `_stderr` is the tail
        self._selector = selectors.DefaultSelector()
        self._watched: set[int] = set()
        self._killed = False
        _LIVE.add(self)

    def _fds(self) -> tuple[int, int, int]:
        return self._in, self._out, self._err

    # reading and writing, each call bounded in time

    def _read(self, fd: int) -> None:
        want = _CHUNK
        if fd == self._out:  # never buffer more than the cap (and one byte to see it broken)
            want = max(1, min(_CHUNK, self.max_answer_bytes + 1 - len(self._answer)))
        try:
            data = os.read(fd, want)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if fd == self._out:
            self._out_open = bool(data)
            self._answer += data
        else:
            self._err_open = bool(data)
            self._stderr += data
            self._stderr_bytes += len(data)
            del self._stderr[:-STDERR_TAIL_BYTES]

    def _pump(self, wait: float, pending: bytearray | None = None) -> None:
        """Wait up to `wait` s for the pipes; read what is there, write what fits."""
        if self._selector.get_map() is None:  # closed by `kill`
            return
        wanted = {
            self._out: self._out_open and len(self._answer) <= self.max_answer_bytes,
            self._err: self._err_open,
            self._in: bool(pending),
        }
        for fd, want in wanted.items():  # one selector per child, kept in step
            if want and fd not in self._watched:
                events = selectors.EVENT_WRITE if fd == self._in else selectors.EVENT_READ
                self._selector.register(fd, events)
                self._watched.add(fd)
            elif not want and fd in self._watched:
                self._selector.unregister(fd)
                self._watched.discard(fd)
        if not self._watched:
            time.sleep(wait)
            return
        for key, _ in self._selector.select(wait):
            if key.fd == self._in and pending:
                pending[: self._write(pending)] = b""
            else:
                self._read(key.fd)

    def _write(self, pending: bytearray) -> int:
        try:
            return os.write(self._in, pending[:_CHUNK])
        except BlockingIOError:
            return 0

    def _take_line(self, op: str) -> bytes | None:
        """The next non-blank answer line, or None; `ProtocolViolation` past the cap."""
        while True:
            end = self._answer.find(b"\n", self._scanned)
            if end < 0:
                self._scanned = len(self._answer)
                if len(self._answer) > self.max_answer_bytes:
                    raise ProtocolViolation(self._too_long(op))
                return None
            line = bytes(self._answer[: end + 1])
            del self._answer[: end + 1]
            self._scanned = 0
            if end > self.max_answer_bytes:
                raise ProtocolViolation(self._too_long(op))
            if line.strip():
                return line  # blank lines are tolerated, anything else must be the response

    def _too_long(self, op: str) -> str:
        return (
            f"the answer to {op!r} exceeds the cap of {self.max_answer_bytes} bytes per answer "
            f"line (--max-answer-bytes)"
        )

    def request(self, op: str, args: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """One request's response, its envelope and id checked."""
        request_id, line = self._exchange(op, args, timeout)
        message = decode_answer_line(line)
        validate_response(message, request_id)
        return message

    def handshake(self, timeout: float) -> dict[str, Any]:
        """The `hello` exchange: its answer must be the first line on stdout, and a valid
        v1 hello listing only ops the suite knows (`protocol.validate_hello`)."""
        request_id, line = self._exchange("hello", {"protocol": PROTOCOL_VERSION}, timeout)
        message = decode_hello_line(line)
        validate_response(message, request_id)
        if "error" in message:
            raise ProtocolViolation(f"hello was refused: {message['error'].get('message')}")
        validate_hello(message["result"])
        return message

    def stray_output(self, wait: float) -> bytes:
        """What the child wrote to stdout past its last answer, waiting up to `wait` s for
        it (taken, so the next answer is read clean); blank lines are no stray output."""
        deadline = time.monotonic() + wait
        while not self._answer.strip() and self._out_open and not self._killed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._pump(min(remaining, _POLL))
        stray = bytes(self._answer)
        self._answer.clear()
        self._scanned = 0
        return stray if stray.strip() else b""

    def _exchange(self, op: str, args: Mapping[str, Any], timeout: float) -> tuple[int, bytes]:
        """Write one request and read its answer line: the request's id and the line."""
        request_id = self.next_id
        self.next_id += 1
        pending = bytearray(encode_line({"id": request_id, "op": op, "args": dict(args)}))
        deadline = time.monotonic() + timeout
        unread = False  # the child closed its stdin before taking the whole request
        while True:
            try:
                answer = self._take_line(op)
            except ProtocolViolation:
                self.kill()
                raise
            if answer is not None:
                break
            if not self._out_open or self.dead():
                answer = self._last_words(op)
                if answer is not None:
                    break
                when = "before reading the request" if pending or unread else "while answering"
                dead = self._dies_within(1.0)  # a closed stdout is often an exit under way
                self.kill()
                status = f"exited with status {self.process.returncode}" if dead else ""
                raise Crashed(
                    f"{status or 'closed its stdout'} {when} {op!r}",
                    stderr_tail=self.stderr_tail(),
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise Timeout(
                    f"no response to {op!r} within {timeout:g} s", stderr_tail=self.stderr_tail()
                )
            try:
                self._pump(min(remaining, _POLL), pending)
            except OSError:  # it closed its stdin: it is dying, or may still answer in time
                unread = bool(pending)
                pending.clear()
        return request_id, answer

    def _last_words(self, op: str) -> bytes | None:
        """An answer the child wrote just before it died, if any (bounded reading)."""
        for _ in range(64):
            if not self._out_open:
                break
            before = len(self._answer)
            self._pump(0)
            if len(self._answer) == before:
                break
        with contextlib.suppress(ProtocolViolation):
            return self._take_line(op)
        return None

    def dead(self) -> bool:
        """Whether the child exited, without reaping it (its pid stays ours until `kill`)."""
        if self.process.returncode is not None:
            return True
        if hasattr(os, "waitid"):
            with contextlib.suppress(ChildProcessError):
                flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
                return os.waitid(os.P_PID, self.process.pid, flags) is not None
        return self.process.poll() is not None

    def _dies_within(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while not self.dead():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def stderr_tail(self) -> str:
        """The last `STDERR_TAIL_BYTES` bytes the child wrote to stderr, as text."""
        deadline = time.monotonic() + _SETTLE
        while self._err_open and not self._killed:  # let the last words of a dying child arrive
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.dead():
                break
            self._pump(min(remaining, _POLL))
        tail = bytes(self._stderr)
        if self._stderr_bytes <= len(tail):
            return tail.decode("utf-8", "replace").rstrip("\n")
        start = next((i for i, b in enumerate(tail[:4]) if b & 0xC0 != 0x80), 0)
        return f"[the last {len(tail) - start} of {self._stderr_bytes} bytes]\n" + tail[
            start:
        ].decode("utf-8", "replace").rstrip("\n")

    def kill(self) -> None:
        """Kill the whole tree, keep the stderr that was in flight, close every pipe."""
        if self._killed:
            return
        self._killed = True
        kill_tree(self.process.pid, self.token.encode(), self._pipes)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=KILL_BOUND)
        deadline = time.monotonic() + _SETTLE
        while self._err_open and time.monotonic() < deadline:
            self._pump(_POLL)  # every writer is dead: this ends at EOF at once
        self._selector.close()
        self._watched.clear()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        self._out_open = self._err_open = False
        if self.confinement is not None:
            self.left = self.confinement.finish()
        remove_tree(self.tmpdir)
        _LIVE.discard(self)


class WireImplementation(Implementation):
    """A command speaking protocol v1; started lazily, restarted after any breakage."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str | None = None,
        timeout: float = 30.0,
        startup_timeout: float = 60.0,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        unavailable: Mapping[str, str] | None = None,
        confined: bool = False,
    ) -> None:
        if not argv:
            raise ValueError("an implementation command cannot be empty")
        if max_answer_bytes < 1:
            raise ValueError("max_answer_bytes must be at least 1")
        self.argv = tuple(argv)
        self.name = name or " ".join(self.argv)
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.env = env
        self.cwd = cwd
        self.max_answer_bytes = max_answer_bytes
        self.unavailable = dict(unavailable or {})  # op -> what this machine lacks for it
        self.confined = confined  # an agent: `env` is all it gets, in `confine`'s jail
        self._child: _Child | None = None
        self._hello: Mapping[str, Any] = {}
        self._startup_failures: list[StartupFailed] = []
        self._timed_out: Timeout | None = None
        self.restarts = 0
        self.last_request_id: int | None = None  # the id of the request `call` sent last

    @property
    def hello(self) -> Mapping[str, Any]:  # type: ignore[override]
        return self._ensure_started()[1]

    @property
    def pid(self) -> int | None:
        """The running child's process id (what `ctxspec bench` reads VmHWM of), or None."""
        if self._child is None or self._child.dead():
            return None
        return self._child.process.pid

    def new_test(self) -> None:
        """A new test begins: a timeout of an earlier test no longer stops calls."""
        self._timed_out = None

    def _ensure_started(self) -> tuple[_Child, Mapping[str, Any]]:
        if self._child is not None and not self._child.dead():
            return self._child, self._hello
        if self._child is not None:
            self._child.kill()
            self._child = None
            self.restarts += 1
        if len(self._startup_failures) >= _GIVE_UP_AFTER_STARTUP_FAILURES:
            last = self._startup_failures[-1]
            raise StartupFailed(
                f"gave up after {len(self._startup_failures)} failed starts; last: {last.message}",
                stderr_tail=last.stderr_tail,
            )
        try:
            confined = self.name if self.confined else None
            child = _Child(self.argv, self.env, self.cwd, self.max_answer_bytes, confined)
        except OSError as error:
            failure = StartupFailed(f"cannot run {self.argv[0]!r}: {error.strerror or error}")
            self._startup_failures.append(failure)
            raise failure from None
        try:
            message = child.handshake(self.startup_timeout)
        except AdapterError as error:
            child.kill()
            failure = StartupFailed(
                f"handshake failed: {error.kind}: {error.message}",
                stderr_tail=error.stderr_tail or child.stderr_tail(),
            )
            self._startup_failures.append(failure)
            raise failure from None
        self._startup_failures.clear()
        self._child, self._hello = child, message["result"]
        return child, self._hello

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        if self._timed_out is not None:
            raise StopAfterTimeout(self._timed_out)
        if op in self.unavailable:
            raise EnvironmentMissing(op, self.unavailable[op])
        child, _ = self._ensure_started()
        self.last_request_id = child.next_id
        try:
            message = child.request(op, args, self.timeout)
        except Timeout as timeout:
            child.kill()
            timeout.pending(op, args)
            self._timed_out = timeout
            raise
        except AdapterError as broken:
            child.kill()  # its state is unknown now: the next call starts afresh
            broken.pending(op, args)
            raise
        if "error" in message:
            error = message["error"]
            return Reply(error=OpError(error["type"], error["message"], error.get("field")))
        return Reply(result=message["result"])

    def stray_output(self, wait: float = 0.0) -> bytes:
        """Bytes on stdout past the last answer (a second answer line, a log line), waiting
        up to `wait` s for them: what `ctxspec smoke` checks framing with."""
        return b"" if self._child is None else self._child.stray_output(wait)

    def close(self) -> None:
        """End the child: stdin closed, a grace period to exit, then the tree is killed."""
        if self._child is not None:
            child, self._child = self._child, None
            with contextlib.suppress(OSError):
                if child.process.stdin is not None:
                    child.process.stdin.close()
            deadline = time.monotonic() + 5
            while not child.dead() and time.monotonic() < deadline:
                time.sleep(_POLL)  # not `wait()`: the pid must stay ours for the tree kill
            child.kill()
