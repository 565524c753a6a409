"""Message validation: the compiled validators are built once, and still reject.

`ctxspec.conformance.protocol` keeps one compiled jsonschema validator per schema (a request used
to compile one per message, a third of a millisecond each). These tests fail if that cut
changed what is checked: every malformed message a fresh validator rejects is rejected,
with the same message, after the cached one has accepted good ones.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from ctxspec.conformance.errors import ProtocolViolation
from ctxspec.conformance.protocol import (
    op_schema,
    schema_problem,
    validate_args,
    validate_hello,
    validate_response,
    validate_result,
)

GOOD_TRUNCATE = {"content": "a\nb", "maxBytes": 2}
BAD_TRUNCATE: list[Any] = [
    {},
    {"content": 3},
    {"content": "a", "maxBytes": "2"},
    {"content": "a", "x": 1},
]


def _fresh_problem(op: str, part: str, instance: object) -> str | None:
    """What a validator built for this one call (the code before the cut) reports."""
    schema = op_schema(op, part)
    assert schema is not None
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(instance)
    )
    return None if error is None else error.message


class TestCachedValidators:
    def test_a_malformed_response_is_rejected_after_good_ones(self) -> None:
        for request_id in (1, 2):
            validate_response({"id": request_id, "result": None}, request_id)
        for broken in ({"id": 3}, {"id": 3, "result": 1, "error": {}}, {"id": "3", "result": 1},
                       {"id": 3, "error": {"type": "bad", "message": "m"}}):  # fmt: skip
            with pytest.raises(ProtocolViolation, match="does not match the protocol"):
                validate_response(broken, 3)

    def test_args_problems_match_a_fresh_validator(self) -> None:
        assert validate_args("truncate.head", GOOD_TRUNCATE) is None
        for bad in BAD_TRUNCATE:
            problem = validate_args("truncate.head", bad)
            fresh = _fresh_problem("truncate.head", "args", bad)
            assert problem is not None and fresh is not None
            assert problem.endswith(fresh)
        assert validate_args("truncate.head", GOOD_TRUNCATE) is None  # and accepts again

    def test_result_problems_match_a_fresh_validator(self) -> None:
        good = 12
        assert schema_problem("tokens.estimate", good) is None
        validate_result("tokens.estimate", good)
        for bad in ("12", None, [12]):
            problem = schema_problem("tokens.estimate", bad)
            fresh = _fresh_problem("tokens.estimate", "result", bad)
            assert problem is not None and fresh is not None and problem.endswith(fresh)
            with pytest.raises(ProtocolViolation, match=r"tokens\.estimate result"):
                validate_result("tokens.estimate", bad)

    def test_a_broken_hello_is_rejected(self) -> None:
        with pytest.raises(ProtocolViolation, match="hello result"):
            validate_hello({"protocol": "1"})

    def test_an_unknown_op_is_still_named(self) -> None:
        assert validate_args("no.such_op", {}) == "unknown op 'no.such_op'"
        assert schema_problem("no.such_op", {}) is None
