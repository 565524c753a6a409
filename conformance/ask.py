"""Asking an implementation one request: the one place a request is sent and its answer
taken in, in the two forms its callers need.

- `ask(impl, op, args) -> Reply`: the raising form, for the suite (a property, a golden
  case): the answer, a result or a typed error the implementation chose to give; its
  breakage raises (`AdapterError`: a crash, a timeout, a line that is not protocol v1,
  or a result whose top-level JSON type the op does not allow, naming the request).
- `outcome(impl, op, args) -> Outcome`: the outcome form, for the tools that ask many
  requests and compare the answers (fuzz, the sweep, a replay, a failing example's
  reference answers): the implementation's breakage is a record, not an exception, so
  one broken request does not end the run (a failed start-up still does).
- `failed(error) -> Outcome`: the record of a breakage caught elsewhere (a `Recording`).

What counts as the same answer is not decided here: `ctxspec.conformance.judging`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxspec.conformance.errors import (
    AdapterError,
    ProtocolViolation,
    StartupFailed,
    StopAfterTimeout,
)
from ctxspec.conformance.protocol import OpError, validate_shape
from ctxspec.conformance.transport.base import Implementation, Reply

__all__ = ["Outcome", "ask", "failed", "outcome"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One implementation's answer to one request: a reply, or why there is none."""

    reply: Reply | None = None
    failure: str | None = None  # crashed / timeout / protocol violation, with its message

    @property
    def unsupported(self) -> bool:
        return (
            self.reply is not None
            and self.reply.error is not None
            and (self.reply.error.type == "unsupported")
        )

    def expectation(self) -> dict[str, Any]:
        """The case file's `expect` for this answer."""
        assert self.reply is not None
        if self.reply.error is not None:
            return {"error": self.reply.error.type}
        return {"result": self.reply.result}

    def describe(self) -> str:
        if self.reply is None:
            return f"no answer ({self.failure})"
        if self.reply.error is not None:
            return f"error {self.reply.error.type}: {self.reply.error.message[:300]}"
        return "a result"


def ask(impl: Implementation, op: str, args: Mapping[str, Any]) -> Reply:
    """The implementation's reply to one request; `ProtocolViolation` (naming the request)
    for a result of a top-level type its op does not allow (`protocol.validate_shape`)."""
    reply = impl.call(op, args)
    if reply.error is None:
        try:
            validate_shape(op, reply.result)
        except ProtocolViolation as violation:
            violation.pending(op, args)
            raise
    return reply


def failed(error: AdapterError | StopAfterTimeout) -> Outcome:
    """The record of a request the implementation broke: its kind and message."""
    if isinstance(error, StopAfterTimeout):
        return Outcome(failure=f"{error.timeout.kind}: {error.timeout.message}")
    return Outcome(failure=f"{error.kind}: {error.message}")


def outcome(impl: Implementation, op: str, args: Mapping[str, Any]) -> Outcome:
    """`ask`, with the implementation's breakage as an `Outcome`, not an exception (except
    a failed start-up, which ends the run). An exception of an in-process engine is its
    bug: the `internal` error its wire server would answer."""
    new_test = getattr(impl, "new_test", None)
    if new_test is not None:
        new_test()  # an earlier request's timeout does not stop this one
    try:
        return Outcome(reply=ask(impl, op, args))
    except StartupFailed:
        raise
    except (AdapterError, StopAfterTimeout) as error:
        return failed(error)
    except Exception as error:
        return Outcome(reply=Reply(error=OpError("internal", f"{type(error).__name__}: {error}")))
