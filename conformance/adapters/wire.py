"""An implementation under test as a child process speaking protocol v1 on stdio.

This is the one module of the suite that owns `subprocess`. It bounds every request in
time, keeps the tail of the child's stderr for error reports, and restarts the child
after it crashed, hung, or broke the protocol, so one broken case never breaks the run.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from typing import IO, Any

from conformance.adapters.base import Implementation, Reply
from conformance.errors import AdapterError, Crashed, ProtocolViolation, StartupFailed, Timeout
from conformance.protocol import (
    PROTOCOL_VERSION,
    OpError,
    decode_line,
    encode_line,
    validate_hello,
    validate_response,
)

__all__ = ["WireImplementation"]

_STDERR_TAIL_LINES = 40
_GIVE_UP_AFTER_STARTUP_FAILURES = 3


class _Child:
    """One running process with reader threads for stdout lines and the stderr tail."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None, cwd: str | None) -> None:
        self.process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,  # so a timeout can kill the whole process group
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL_LINES)
        self.next_id = 1
        assert self.process.stdout is not None and self.process.stderr is not None
        threading.Thread(target=self._pump_stdout, args=(self.process.stdout,), daemon=True).start()
        self._stderr_thread = threading.Thread(
            target=self._pump_stderr, args=(self.process.stderr,), daemon=True
        )
        self._stderr_thread.start()

    def _pump_stdout(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)

    def _pump_stderr(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.stderr.append(line.decode("utf-8", "replace").rstrip("\n"))

    def stderr_tail(self) -> str:
        self._stderr_thread.join(timeout=0.2)  # let the last words of a dying child arrive
        return "\n".join(self.stderr)

    def request(self, op: str, args: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        request_id = self.next_id
        self.next_id += 1
        line = encode_line({"id": request_id, "op": op, "args": dict(args)})
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise Crashed(
                self._exit_text("before reading the request"), stderr_tail=self.stderr_tail()
            ) from None
        while True:
            try:
                answer = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise Timeout(
                    f"no response to {op!r} within {timeout:g} s", stderr_tail=self.stderr_tail()
                ) from None
            if answer is None:
                raise Crashed(
                    self._exit_text(f"while answering {op!r}"), stderr_tail=self.stderr_tail()
                )
            if answer.strip():
                break  # blank lines are tolerated, anything else must be the response
        message = decode_line(answer)
        validate_response(message, request_id)
        return message

    def _exit_text(self, when: str) -> str:
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return f"closed its stdout {when}"
        return f"exited with status {code} {when}"

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.wait(timeout=5)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.close()


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
    ) -> None:
        if not argv:
            raise ValueError("an implementation command cannot be empty")
        self.argv = tuple(argv)
        self.name = name or " ".join(self.argv)
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.env = env
        self.cwd = cwd
        self._child: _Child | None = None
        self._hello: Mapping[str, Any] = {}
        self._startup_failures: list[StartupFailed] = []
        self.restarts = 0

    @property
    def hello(self) -> Mapping[str, Any]:  # type: ignore[override]
        return self._ensure_started()[1]

    def _ensure_started(self) -> tuple[_Child, Mapping[str, Any]]:
        if self._child is not None and self._child.process.poll() is None:
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
            child = _Child(self.argv, self.env, self.cwd)
        except OSError as error:
            failure = StartupFailed(f"cannot run {self.argv[0]!r}: {error.strerror or error}")
            self._startup_failures.append(failure)
            raise failure from None
        try:
            message = child.request("hello", {"protocol": PROTOCOL_VERSION}, self.startup_timeout)
            if "error" in message:
                raise ProtocolViolation(f"hello was refused: {message['error'].get('message')}")
            validate_hello(message["result"])
        except AdapterError as error:
            failure = StartupFailed(f"handshake failed: {error}", stderr_tail=child.stderr_tail())
            child.kill()
            self._startup_failures.append(failure)
            raise failure from None
        self._startup_failures.clear()
        self._child, self._hello = child, message["result"]
        return child, self._hello

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        child, _ = self._ensure_started()
        try:
            message = child.request(op, args, self.timeout)
        except AdapterError:
            child.kill()  # its state is unknown now: the next call starts afresh
            raise
        if "error" in message:
            error = message["error"]
            return Reply(error=OpError(error["type"], error["message"], error.get("field")))
        return Reply(result=message["result"])

    def close(self) -> None:
        if self._child is not None:
            child, self._child = self._child, None
            assert child.process.stdin is not None
            with contextlib.suppress(Exception):
                child.process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.process.wait(timeout=5)
            child.kill()
