"""Properties of the tool result texts (`tool.read`, `tool.bash`, `tool.grep`), for any
implementation.

Each is differential: the implementation's answer compared with the reference's on the
arguments `ctxspec fuzz` draws (`ctxspec.conformance.strategies.ops.OP_ARGS`): trees with ignore
files, binary and non-UTF-8 files and symlinks, grep patterns and globs, offsets and
limits off the integers, output streams cut at every UTF-8 boundary class.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxspec.conformance.strategies.ops import OP_ARGS
from ctxspec.conformance.suite.differential import per_op, same_as_reference
from ctxspec.conformance.transport.base import Implementation

# op -> the rule its answers are judged by
TOOL_RULES: Final = {"tool.read": "READ-3", "tool.bash": "BASH-1", "tool.grep": "GREP-1"}


# a timeout or an abort costs a real adapter most of a second per request (the timeout's own
# wait): the cases pin those endings (BASH-2); the property draws the outputs around them
_SLOW_ENDINGS: Final = ("timedOut", "timeout", "aborted")


def _quick(args: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in args.items() if key not in _SLOW_ENDINGS}


@pytest.mark.parametrize(
    "op", per_op({op: ("tool_results", rule) for op, rule in TOOL_RULES.items()})
)
@given(data=st.data())
def test_tool_matches_reference(impl: Implementation, op: str, data: st.DataObject) -> None:
    """Differential: the tool's result text equals the reference's on drawn arguments."""
    same_as_reference(impl, op, data.draw(OP_ARGS[op].map(_quick), label="args"))
