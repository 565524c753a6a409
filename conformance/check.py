"""Running one golden case against an implementation and judging the reply."""

from __future__ import annotations

import shlex

import pytest

from conformance.adapters.base import Implementation
from conformance.cases import Case, rule_index
from conformance.compare import differences, render, render_value
from conformance.protocol import validate_result

__all__ = ["CaseMismatch", "check_case", "require_op", "rerun_command"]


class CaseMismatch(AssertionError):
    """The implementation answered, within the protocol, something other than expected."""


def rerun_command(impl: str, case_id: str) -> str:
    return f"ctxspec conform --impl {shlex.quote(impl)} --case {case_id}"


def require_op(impl: Implementation, op: str) -> None:
    """Skip as *unsupported* when the implementation's hello does not list `op`."""
    if op not in impl.ops:
        pytest.skip(f"unsupported: {impl.name} does not list {op} in hello")


def check_case(impl: Implementation, case: Case) -> None:
    """Send the case's request; raise `CaseMismatch` (or an `AdapterError`) if it fails.

    The reply is judged in `_verdict`, whose frame has ended when the mismatch is raised:
    the failure's traceback holds the case, never the answer, however large.
    """
    verdict = _verdict(impl, case)
    if verdict is not None:
        raise CaseMismatch(verdict)


def _verdict(impl: Implementation, case: Case) -> str | None:
    """What is wrong with the implementation's reply to `case`, or None."""
    require_op(impl, case.op)
    reply = impl.call(case.op, case.args)
    if reply.error is not None and reply.error.type == "unsupported":
        pytest.skip(f"unsupported: {impl.name} answered {reply.error.message!r}")
    if reply.error is None:
        validate_result(case.op, reply.result)

    if case.expect_error is not None:
        if reply.error is not None and reply.error.type == case.expect_error:
            return None
        got = (
            f"error {reply.error.type}: {reply.error.message}"
            if reply.error
            else f"result {render_value(reply.result)}"
        )
        return _header(case) + f"\n  expected error {case.expect_error}, got {got}"
    if reply.error is not None:
        return (
            _header(case)
            + f"\n  expected a result, got error {reply.error.type}: "
            + reply.error.message[:2000]
        )
    found = differences(case.expect_result, reply.result)
    return _header(case) + "\n" + render(found) if found else None


def _header(case: Case) -> str:
    statement = rule_index().get(case.rule, "")
    args = ", ".join(f"{key}={render_value(value)}" for key, value in case.args.items())
    return (
        f"case {case.id} [{case.rule}, {case.level}] ({case.source})\n"
        f"  rule: {case.rule} {statement}\n"
        f"  why:  {case.why}\n"
        f"  call: {case.op}({args})"
    )
