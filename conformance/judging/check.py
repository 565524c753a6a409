"""Judging an implementation's answer: against a golden case, or against the reference.

An answer is judged field by field. Only a broken protocol makes it an *error*: no JSON,
a wrong id, an error of an unknown type (the transport's checks) or a result whose
top-level JSON type its op does not allow (`protocol.validate_shape`). Everything inside
a result of the right type is compared with `equivalence.result_differences` (the rule
fuzz shares: `compare.differences`, with grep's lines in any order), so a missing, extra
or mistyped field is one difference among the others, never a reason to drop the rest.

- `check_case(impl, case, profile)`: raise `CaseMismatch` when the answer is not the
  case's: its expected result or error, or for an `agent.*` case the universal checks it
  names, judged in the profile's terms (`ctxspec.conformance.judging.universal`).
- `answer(impl, op, args)`: `ctxspec.conformance.ask.ask`, an op the hello does not list
  skipped as *unsupported* (the properties).
- `result_of(impl, op, args)`: the result an invariant property reads (an error fails).
- `assert_same(op, args, expected, reply)`: a differential property's comparison.
- `require_op(impl, op)`: skip as *unsupported* an op the hello does not list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ctxspec.conformance.ask import ask
from ctxspec.conformance.corpus.cases import Case, rule_index, same_input
from ctxspec.conformance.judging.compare import Difference, render, render_value, shorten
from ctxspec.conformance.judging.equivalence import result_differences
from ctxspec.conformance.judging.shapes import schema_differences
from ctxspec.conformance.judging.universal import NotDeclared, judge
from ctxspec.conformance.runner.profiles import Profile
from ctxspec.conformance.runner.results import Findings
from ctxspec.conformance.transport.base import Implementation, Reply

__all__ = [
    "CaseMismatch",
    "ReferenceMismatch",
    "ResultMismatch",
    "answer",
    "assert_same",
    "check_case",
    "reference_verdict",
    "require_op",
    "result_of",
]


class ResultMismatch(AssertionError):
    """The implementation answered, within the protocol, something other than expected.

    `findings` holds every difference in short, rendered form (never the answer), for
    the record and its divergence classes (`ctxspec.conformance.runner.results`).
    """

    def __init__(self, message: str, findings: Findings) -> None:
        super().__init__(message)
        self.findings = findings


class CaseMismatch(ResultMismatch):
    """A golden case's answer differs from its expectation."""


class ReferenceMismatch(ResultMismatch):
    """A differential property's answer differs from the reference's."""


def require_op(impl: Implementation, op: str) -> None:
    """Skip as *unsupported* when the implementation's hello does not list `op`."""
    if op not in impl.ops:
        pytest.skip(f"unsupported: {impl.name} does not list {op} in hello")


def answer(impl: Implementation, op: str, args: Mapping[str, Any]) -> Reply:
    """The implementation's reply to one request (`ask`), skipped as *unsupported* when the
    hello does not list its op."""
    require_op(impl, op)
    return ask(impl, op, args)


def result_of(impl: Implementation, op: str, args: Mapping[str, Any]) -> Any:
    """The result of one request, for a property that reads its fields: a failure (not an
    error) when the reply is an error. A field the property reads that the result lacks
    or holds in another type is a difference too: `failing_example.reading_shapes` turns
    the property's `KeyError` or `TypeError` into the answer's differences."""
    reply = answer(impl, op, args)
    if reply.error is not None:
        raise ResultMismatch(f"{op}: {_refusal_text(reply)}", _refused_result(op, reply))
    return reply.result


def reference_verdict(op: str, expected: Reply, reply: Reply) -> tuple[str, Findings] | None:
    """How `reply` departs from the reference's `expected` answer (text and findings), or
    None when it is the same result, or an error (of any type) where the reference refuses.
    The text names no request: the reports show it as JSON (`failing_example`)."""
    if expected.error is not None:
        if reply.error is None:
            text = (
                f"the reference refuses (error {expected.error.type}: "
                f"{shorten(expected.error.message, 200)}); the implementation answered a result"
            )
            refused = Findings.refusal(
                op, f"error {expected.error.type}", f"a result: {render_value(reply.result)}"
            )
            return text, refused
        return None
    if reply.error is not None:
        return f"the reference answers a result; {_refusal_text(reply)}", _refused_result(op, reply)
    found = result_differences(op, expected.result, reply.result)
    if found:
        return f"differs from the reference:\n{render(found)}", Findings.of(op, found)
    return None


def assert_same(op: str, args: Mapping[str, Any], expected: Reply, reply: Reply) -> None:
    """Raise `ResultMismatch` unless `reply` is the reference's `expected` answer: the same
    result, or an error (of any type) where the reference refuses."""
    verdict = reference_verdict(op, expected, reply)
    if verdict is not None:
        text, findings = verdict
        raise ReferenceMismatch(f"{op} {text}", findings)


def _refusal_text(reply: Reply) -> str:
    assert reply.error is not None
    return f"the implementation answered error {reply.error.type}: {reply.error.message[:2000]}"


def _refused_result(op: str, reply: Reply) -> Findings:
    assert reply.error is not None
    got = f"error {reply.error.type}: {reply.error.message[:200]}"
    return Findings.refusal(op, "a result", got)


def check_case(impl: Implementation, case: Case, profile: Profile | None = None) -> None:
    """Send the case's request; raise `CaseMismatch` (or an `AdapterError`) if it fails.

    The reply is judged in `_verdict`, whose frame has ended when the mismatch is raised:
    the failure's traceback holds the case, never the answer, however large.
    """
    verdict = _verdict(impl, case, profile)
    if verdict is not None:
        raise CaseMismatch(*verdict)


def _verdict(
    impl: Implementation, case: Case, profile: Profile | None
) -> tuple[str, Findings] | None:
    """What is wrong with the implementation's reply to `case` (text and findings), or None."""
    reply = answer(impl, case.op, case.args)
    if reply.error is not None and reply.error.type == "unsupported":
        pytest.skip(f"unsupported: {impl.name} answered {reply.error.message!r}")

    if case.expect_error is not None:
        if reply.error is not None and reply.error.type == case.expect_error:
            return None
        got = (
            f"error {reply.error.type}: {reply.error.message}"
            if reply.error
            else f"result {render_value(reply.result)}"
        )
        text = _header(case) + f"\n  expected error {case.expect_error}, got {got}"
        return text, Findings.refusal(case.op, f"error {case.expect_error}", shorten(got, 200))
    if reply.error is not None:
        text = (
            _header(case)
            + f"\n  expected a result, got error {reply.error.type}: "
            + reply.error.message[:2000]
        )
        return text, _refused_result(case.op, reply)
    if case.expect_holds is not None:
        found = _universal(case, profile, reply.result)
    else:
        found = result_differences(case.op, case.expect_result, reply.result)
    if not found:
        return None
    return _header(case) + "\n" + render(found), Findings.of(case.op, found)


def _universal(case: Case, profile: Profile | None, result: Any) -> list[Difference]:
    """The universal checks `case` names, in the profile's terms (skipped as not
    applicable where the profile declares no terms for what the case asks)."""
    if profile is None:
        raise ValueError(f"case {case.id}: an agent.* case is judged against a profile")
    try:
        return judge(profile, case.op, case.args, result, case.expect_holds)
    except NotDeclared as error:
        pytest.skip(f"not applicable: {error}")
    except (KeyError, IndexError, TypeError, AttributeError):
        found = schema_differences(case.op, result)  # an answer the checks cannot read
        if not found:
            raise  # a well-shaped answer: the check's own bug
        return found


def _header(case: Case) -> str:
    statement = rule_index().get(case.rule, "")
    args = ", ".join(f"{key}={render_value(value)}" for key, value in case.args.items())
    text = (
        f"case {case.id} [{case.rule}, {case.level}] ({case.source})\n"
        f"  rule: {case.rule} {statement}\n"
        f"  why:  {case.why}\n"
        f"  call: {case.op}({args})"
    )
    for twin in same_input(case):  # the same request, expected at another level
        level = "compat: what Pi does" if twin.level == "compat" else twin.level
        text += f"\n  same request as {twin.id} [{level}]: expects {_expected(twin)}"
    return text


def _expected(case: Case) -> str:
    if case.expect_error is not None:
        return f"error {case.expect_error}"
    if case.expect_holds is not None:
        return "an answer that holds " + ", ".join(case.expect_holds)
    return shorten(render_value(case.expect_result), 300)
