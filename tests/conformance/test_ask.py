"""ask: one request asked, in its raising form (`ask`) and its outcome form (`outcome`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ctxspec.conformance.ask import Outcome, ask, failed, outcome
from ctxspec.conformance.engines.reference import ReferenceImplementation
from ctxspec.conformance.errors import (
    Crashed,
    ProtocolViolation,
    StartupFailed,
    StopAfterTimeout,
    Timeout,
)
from ctxspec.conformance.protocol import OpError
from ctxspec.conformance.transport.base import Implementation, Reply

ARGS = {"content": "a\nb", "maxLines": 1, "maxBytes": 100}


class Scripted(Implementation):
    """An implementation whose every call answers `reply` or raises `error`."""

    name = "scripted"

    def __init__(self, reply: Reply | None = None, error: BaseException | None = None) -> None:
        self.hello = ReferenceImplementation().hello
        self.reply, self.error = reply, error
        self.new_tests = 0

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        if self.error is not None:
            raise self.error
        assert self.reply is not None
        return self.reply

    def new_test(self) -> None:
        self.new_tests += 1


def test_a_result_and_a_typed_error_are_answers_in_both_forms() -> None:
    reply = ask(ReferenceImplementation(), "truncate.tail", ARGS)
    assert reply.error is None and reply.result["truncated"] is True
    assert outcome(ReferenceImplementation(), "truncate.tail", ARGS) == Outcome(reply=reply)
    refusal = Reply(error=OpError("invalid_input", "no"))
    assert ask(Scripted(refusal), "truncate.tail", ARGS) == refusal
    assert outcome(Scripted(refusal), "truncate.tail", ARGS).describe() == "error invalid_input: no"


def test_a_result_of_the_wrong_top_level_type_breaks_the_protocol() -> None:
    """`ask` raises it naming the request; `outcome` records it."""
    listed = Scripted(Reply(result=[1]))
    with pytest.raises(ProtocolViolation) as raised:
        ask(listed, "truncate.tail", ARGS)
    assert raised.value.request == {"op": "truncate.tail", "args": ARGS}
    got = outcome(listed, "truncate.tail", ARGS)
    assert got.reply is None and got.failure is not None
    assert got.failure.startswith("protocol violation: truncate.tail result must be object")


def test_breakage_raises_in_one_form_and_is_a_record_in_the_other() -> None:
    for error, failure in [
        (Crashed("gone"), "crashed: gone"),
        (StopAfterTimeout(Timeout("slow")), "timeout: slow"),
    ]:
        broken = Scripted(error=error)
        with pytest.raises(type(error)):
            ask(broken, "truncate.tail", ARGS)
        assert outcome(broken, "truncate.tail", ARGS) == Outcome(failure=failure)
        assert failed(error) == Outcome(failure=failure)
        assert broken.new_tests == 1  # the outcome form starts each request afresh


def test_a_failed_start_up_ends_the_run_in_both_forms() -> None:
    for form in (ask, outcome):
        with pytest.raises(StartupFailed):
            form(Scripted(error=StartupFailed("no such command")), "truncate.tail", ARGS)


def test_an_in_process_engines_exception_is_its_internal_error_as_an_outcome() -> None:
    buggy = Scripted(error=KeyError("x"))
    with pytest.raises(KeyError):
        ask(buggy, "truncate.tail", ARGS)
    got = outcome(buggy, "truncate.tail", ARGS)
    assert got.reply == Reply(error=OpError("internal", "KeyError: 'x'"))
