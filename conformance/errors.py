"""Errors of the suite, named after who is to blame.

- `AdapterError` and its kinds: the implementation under test broke the protocol
  (it did not start, answered garbage or the wrong id, hung, or died). The runner turns
  each into that case's *error* status and goes on with a fresh process. Messages and
  stderr tails are capped (`MESSAGE_CHARS`, `STDERR_CHARS`: head and tail kept, with
  sizes), so no answer of any size reaches a report whole. An error that broke a request
  carries that request (`pending`), which its text shows as JSON (`REQUEST_CHARS`).
- `StopAfterTimeout`: raised, instead of calling again, by an implementation that timed
  out earlier in the same test. It is a `BaseException` on purpose: hypothesis neither
  retries nor shrinks on it, so a property stops at its first timeout.
- `EnvironmentMissing`: this machine lacks something an implementation needs to answer a
  case (ripgrep for Pi's grep): the case is an *error* naming it, never a failure of
  the implementation.
- `CorpusError`: a case file or expectations file is broken (the suite's fault).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from ctxspec.conformance.judging.compare import shorten

__all__ = [
    "MESSAGE_CHARS",
    "REQUEST_CHARS",
    "STDERR_CHARS",
    "AdapterError",
    "CorpusError",
    "Crashed",
    "EnvironmentMissing",
    "ProtocolViolation",
    "StartupFailed",
    "StopAfterTimeout",
    "Timeout",
]

MESSAGE_CHARS: Final = 4000
STDERR_CHARS: Final = 9000  # the wire keeps 8 KiB of stderr; a margin for its header
REQUEST_CHARS: Final = 2000  # the pending request shown: head and tail, as a rendered value
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class AdapterError(Exception):
    """The implementation under test misbehaved; `stderr_tail` is what it last logged,
    `request` the request it was answering (`{op, args}`, None when none was pending)."""

    kind = "adapter error"
    request: dict[str, Any] | None = None

    def __init__(self, message: str, *, stderr_tail: str = "") -> None:
        message = shorten(message, MESSAGE_CHARS)
        super().__init__(message)
        self.message = message
        self.stderr_tail = shorten(stderr_tail, STDERR_CHARS)

    def pending(self, op: str, args: Mapping[str, Any]) -> AdapterError:
        """This error, naming the request that was pending when it happened (the first
        one named is kept)."""
        if self.request is None:
            self.request = {"op": op, "args": dict(args)}
        return self

    def request_text(self) -> str:
        """The pending request as one JSON line, head and tail within `REQUEST_CHARS`
        (lone surrogates escaped as JSON escapes them), or "" when none is known."""
        if self.request is None:
            return ""
        text = json.dumps(self.request, ensure_ascii=False)
        return shorten(_SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text), REQUEST_CHARS)

    def __str__(self) -> str:
        text = f"{self.kind}: {self.message}"
        if self.request is not None:
            text += f"\n  request: {self.request_text()}"
        if self.stderr_tail:
            text += "\n--- stderr (tail) ---\n" + self.stderr_tail
        return text


class StartupFailed(AdapterError):
    """The command could not be started or failed the `hello` handshake."""

    kind = "startup failed"


class ProtocolViolation(AdapterError):
    """A response that is not protocol v1: not JSON, wrong id, an unknown error type, or a
    result of a top-level type its op does not allow (`protocol.validate_shape`)."""

    kind = "protocol violation"


class Timeout(AdapterError):
    """No response within the time bound; the process was killed."""

    kind = "timeout"


class Crashed(AdapterError):
    """The process exited (or closed stdout) while a request was pending."""

    kind = "crashed"


class StopAfterTimeout(BaseException):
    """A call after a `Timeout` in the same test: fails at once, never retried or shrunk."""

    def __init__(self, timeout: Timeout) -> None:
        super().__init__(str(timeout))
        self.timeout = timeout

    def __str__(self) -> str:
        return f"{self.timeout}\n(the test stopped at this first timeout: no retries, no shrinking)"


class EnvironmentMissing(Exception):
    """This machine lacks what an op needs (a program); no fault of the implementation."""

    kind = "missing from the environment"

    def __init__(self, op: str, message: str) -> None:
        super().__init__(f"{self.kind}: {op} cannot run here: {message}")
        self.op = op
        self.message = message


class CorpusError(Exception):
    """A case or expectations file is malformed; names the file and the problem."""
