"""What counts as the same answer: one rule for the golden checks, the properties, fuzz
and the benchmark. No I/O: every function here reads answers it is given.

Two results are the same answer when `compare.differences` finds nothing between them
(JSON compared strictly, field by field), with the exceptions of this module, each a
place where Pi itself leaves the answer open:

- `UNORDERED_LINES`: ops whose text lists lines in an order Pi leaves unspecified
  (`tool.grep`: ripgrep searches files in parallel, in readdir order). The same lines in
  another order are the same answer (`same_lines`, `result_differences`). The golden
  checks (`ctxspec.conformance.judging.check`) and fuzz apply it alike.
- `limit_lifted` and `within_whole`: under grep's match limit, which matches arrive
  first depends on thread timing, so an answer is one of the oracle's when it has as
  many lines, the same notices, and each shown line is one the oracle shows with no
  limit. That takes a second answer of the oracle (to `limit_lifted`'s request), so
  only a live comparison (fuzz) applies it.

Errors compare by their type only (`ctxspec.conformance.tools.fuzz.compare`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxspec.conformance.judging.compare import Difference, differences, first_difference
from ctxspec.conformance.transport.base import Reply

__all__ = [
    "MATCH_LINE",
    "UNLIMITED_GREP",
    "UNORDERED_LINES",
    "limit_lifted",
    "result_differences",
    "same_lines",
    "within_whole",
]

MATCH_LINE: Final = re.compile(r"^[^\n]*?[:-]\d+[:-] ")  # grep's `path:12: text`, `path-12- text`


# ops whose text lists files in an order Pi leaves unspecified (ripgrep walks directories in
# parallel and in readdir order): the same lines in another order are no divergence
UNORDERED_LINES: Final = {"tool.grep": "text"}


def same_lines(op: str, want: Any, got: Any) -> bool:
    key = UNORDERED_LINES.get(op)
    if key is None or not isinstance(want, dict) or not isinstance(got, dict):
        return False
    a, b = want.get(key), got.get(key)
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    rest_a = {k: v for k, v in want.items() if k != key}
    rest_b = {k: v for k, v in got.items() if k != key}
    return (
        sorted(a.split("\n")) == sorted(b.split("\n")) and first_difference(rest_a, rest_b) is None
    )


def result_differences(op: str, expected: Any, actual: Any) -> list[Difference]:
    """The differences of `actual` from `expected`, none when they are the same answer to
    `op` (the same lines in another order, for an op of `UNORDERED_LINES`)."""
    found = differences(expected, actual)
    if found and same_lines(op, expected, actual):
        return []
    return found


def _without_text(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key != "text"}


def _notices(lines: Sequence[str]) -> list[str]:
    return sorted(line for line in lines if not MATCH_LINE.match(line))


# a limit far above any fuzzed tree's matches: the whole set of lines ripgrep can show
UNLIMITED_GREP: Final = 10**6


def limit_lifted(
    op: str, args: Mapping[str, Any], want: Reply | None, got: Reply | None
) -> dict[str, Any] | None:
    """The request whose answer tells whether `got` is an answer the oracle's grep may give
    under its match limit (`args` with no limit that binds), or None when it cannot be.

    Pi stops ripgrep at the limit, and ripgrep searches files in parallel, so which `limit`
    matches arrive first depends on thread timing (the same request on a loaded machine
    gave another file than on an idle one). Such an answer is one of many when both
    answers reach the limit with the same notices and as many lines, and each shown line
    is one the oracle shows when nothing limits it (`within_whole`)."""
    if op != "tool.grep" or want is None or got is None:
        return None
    a, b = want.result, got.result
    if not isinstance(a, dict) or not isinstance(b, dict) or a.get("isError") or b.get("isError"):
        return None
    if not (a.get("details") or {}).get("matchLimitReached"):
        return None
    if first_difference(_without_text(a), _without_text(b)) is not None:
        return None
    ours, theirs = str(b.get("text", "")).split("\n"), str(a.get("text", "")).split("\n")
    if len(ours) != len(theirs) or _notices(ours) != _notices(theirs):
        return None
    return {**args, "limit": UNLIMITED_GREP}


def within_whole(got: Reply | None, whole: Reply | None) -> bool:
    """Whether each match line `got` shows is one the oracle's `whole` answer (to
    `limit_lifted`'s request) shows."""
    if got is None or whole is None or not isinstance(whole.result, dict):
        return False
    if not isinstance(got.result, dict):
        return False
    every = set(str(whole.result.get("text", "")).split("\n"))
    shown = [line for line in str(got.result.get("text", "")).split("\n") if MATCH_LINE.match(line)]
    return all(line in every for line in shown)
