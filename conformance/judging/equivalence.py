"""What counts as the same answer: one rule for the golden checks, the properties and fuzz.

Two results are the same answer when `compare.differences` finds nothing between them
(JSON compared strictly, field by field), with the exceptions of this module, each a
place where Pi itself leaves the answer open:

- `UNORDERED_LINES`: ops whose text lists lines in an order Pi leaves unspecified
  (`tool.grep`: ripgrep searches files in parallel, in readdir order). The same lines in
  another order are the same answer (`same_lines`, `result_differences`). The golden
  checks (`ctxspec.conformance.judging.check`) and fuzz apply it alike.
- `one_of_the_limited_answers`: under grep's match limit, which matches arrive first
  depends on thread timing, so an answer is one of the oracle's when it has as many
  lines, the same notices, and each shown line is one the oracle shows with no limit.
  This one asks the oracle again, so only a live comparison (fuzz, the sweep) uses it.

Errors compare by their type only. `Outcome` is one implementation's answer to one
request, or why there is none (a crash, a timeout, a protocol violation), and `ask`
gets one without raising for the implementation's breakage.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.conformance.errors import AdapterError, StartupFailed, StopAfterTimeout
from ctxspec.conformance.judging.compare import Difference, differences
from ctxspec.conformance.protocol import OpError, validate_shape
from ctxspec.conformance.transport.base import Implementation, Reply

__all__ = [
    "MATCH_LINE",
    "UNORDERED_LINES",
    "Outcome",
    "ask",
    "one_of_the_limited_answers",
    "result_differences",
    "same_lines",
]

MATCH_LINE: Final = re.compile(r"^[^\n]*?[:-]\d+[:-] ")  # grep's `path:12: text`, `path-12- text`


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


def ask(impl: Implementation, op: str, args: Mapping[str, Any]) -> Outcome:
    """Ask one request; breakage of the implementation is an `Outcome`, not an exception
    (except a failed start-up, which ends the run)."""
    new_test = getattr(impl, "new_test", None)
    if new_test is not None:
        new_test()  # an earlier request's timeout does not stop this one
    try:
        reply = impl.call(op, args)
        if reply.error is None:
            validate_shape(op, reply.result)
    except StartupFailed:
        raise
    except AdapterError as error:
        return Outcome(failure=f"{error.kind}: {error.message}")
    except StopAfterTimeout as stop:
        return Outcome(failure=f"{stop.timeout.kind}: {stop.timeout.message}")
    except Exception as error:  # an in-process engine's bug: what its wire server answers
        return Outcome(reply=Reply(error=OpError("internal", f"{type(error).__name__}: {error}")))
    return Outcome(reply=reply)


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
    return sorted(a.split("\n")) == sorted(b.split("\n")) and not differences(rest_a, rest_b)


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


def one_of_the_limited_answers(
    against: Implementation, op: str, args: Mapping[str, Any], want: Outcome, got: Outcome
) -> bool:
    """Whether `got` is an answer the oracle's grep may give under its match limit.

    Pi stops ripgrep at the limit, and ripgrep searches files in parallel, so which `limit`
    matches arrive first depends on thread timing (the same request on a loaded machine
    gave another file than on an idle one). Such an answer is one of many when both
    answers reach the limit with the same notices and as many lines, and each shown line is
    one the oracle shows when nothing limits it."""
    if op != "tool.grep" or want.reply is None or got.reply is None:
        return False
    a, b = want.reply.result, got.reply.result
    if not isinstance(a, dict) or not isinstance(b, dict) or a.get("isError") or b.get("isError"):
        return False
    if not (a.get("details") or {}).get("matchLimitReached"):
        return False
    if differences(_without_text(a), _without_text(b)):
        return False
    ours, theirs = str(b.get("text", "")).split("\n"), str(a.get("text", "")).split("\n")
    shown = [line for line in ours if MATCH_LINE.match(line)]
    if len(ours) != len(theirs) or _notices(ours) != _notices(theirs):
        return False
    whole = ask(against, op, {**args, "limit": UNLIMITED_GREP})
    if whole.reply is None or not isinstance(whole.reply.result, dict):
        return False
    every = set(str(whole.reply.result.get("text", "")).split("\n"))
    return all(line in every for line in shown)
