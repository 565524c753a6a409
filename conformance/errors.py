"""Errors of the suite, named after who is to blame.

- `AdapterError` and its kinds: the implementation under test broke the protocol
  (it did not start, answered garbage or the wrong id, hung, or died). The runner turns
  each into that case's *error* status and goes on with a fresh process.
- `CorpusError`: a case file or expectations file is broken (the suite's fault).
"""

from __future__ import annotations

__all__ = [
    "AdapterError",
    "CorpusError",
    "Crashed",
    "ProtocolViolation",
    "StartupFailed",
    "Timeout",
]


class AdapterError(Exception):
    """The implementation under test misbehaved; `stderr_tail` is what it last logged."""

    kind = "adapter error"

    def __init__(self, message: str, *, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr_tail = stderr_tail

    def __str__(self) -> str:
        text = f"{self.kind}: {self.message}"
        if self.stderr_tail:
            text += "\n--- stderr (tail) ---\n" + self.stderr_tail
        return text


class StartupFailed(AdapterError):
    """The command could not be started or failed the `hello` handshake."""

    kind = "startup failed"


class ProtocolViolation(AdapterError):
    """A response that is not protocol v1: not JSON, wrong id, wrong shape."""

    kind = "protocol violation"


class Timeout(AdapterError):
    """No response within the time bound; the process was killed."""

    kind = "timeout"


class Crashed(AdapterError):
    """The process exited (or closed stdout) while a request was pending."""

    kind = "crashed"


class CorpusError(Exception):
    """A case or expectations file is malformed; names the file and the problem."""
