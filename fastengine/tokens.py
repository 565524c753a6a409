"""`ctxspec.reference.tokens.estimate_context_tokens`, fast: the newest counted usage and the
estimates after it found in one C pass (`_tokens.c`'s `context_tokens`) for plain parsed
JSON messages, the reference's function for anything else (same answers and errors,
tests/fastengine/test_tokens.py).

The work is a few messages at any size (from the newest back to the last reply with a
usage), so what it costs is per call: the reference's Python loop and calls took about
3.5 us against Pi's 2-3 us, the C pass and the answer's dataclass about 1 us.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ctxspec.fastengine._native import native
from ctxspec.reference import tokens
from ctxspec.reference.tokens import ContextUsageEstimate

__all__ = ["estimate_context_tokens"]

C_CONTEXT_TOKENS: Final[Callable[[Sequence[Any]], tuple[Any, ...] | None] | None] = native(
    "_tokens", "context_tokens"
)


def estimate_context_tokens(messages: Sequence[Mapping[str, Any]]) -> ContextUsageEstimate:
    """The last valid usage (CP-1) plus the estimates of all messages after it."""
    found = C_CONTEXT_TOKENS(messages) if C_CONTEXT_TOKENS is not None else None
    if found is None:
        return tokens.estimate_context_tokens(messages)
    total, usage, trailing, last = found
    return ContextUsageEstimate(
        tokens=total, usage_tokens=usage, trailing_tokens=trailing, last_usage_index=last
    )
