"""What the differential properties share: the comparison with the reference, and one
property per op, each marked with its own boundary and rule (`name[op]` in a report and
in an expectations file)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ctxspec.conformance.engines.reference import handle
from ctxspec.conformance.judging.check import answer, assert_same
from ctxspec.conformance.transport.base import Implementation

__all__ = ["per_op", "same_as_reference"]


def same_as_reference(impl: Implementation, op: str, args: dict[str, Any]) -> None:
    """Fail (`ResultMismatch`) unless the implementation answers `args` as the reference."""
    reply = answer(impl, op, args)
    assert_same(op, args, handle(op, args), reply)


def per_op(ops: Mapping[str, tuple[str, str]]) -> list[Any]:
    """The `op` parameters of a property over `ops` (op -> (boundary, rule)), each marked
    as a compat property of its op."""
    return [
        pytest.param(
            op, marks=pytest.mark.ctxspec_property(boundary=b, op=op, rule=r, level="compat")
        )
        for op, (b, r) in ops.items()
    ]
