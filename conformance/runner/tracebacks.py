"""Failures that keep no answer alive once they are judged.

A failure's traceback holds the frames it passed through, and with them their locals:
the answer the test judged, which may be tens of megabytes. pytest keeps each failure in
a reference cycle (its call info's frame refers to the exception that refers to the
frame), and hypothesis keeps every failing example's exception while it shrinks; only
the garbage collector frees them, and it hardly runs, since a few huge answers allocate
few objects. So the runner clears the frames' locals as soon as a failure has been
rendered: `forget_locals(error)` for one failure, `forgetting(test)` for each example of
a property. Code and line numbers stay, so tracebacks still print (without locals).

- `forget_locals(error)`: clear the locals of every finished frame of `error`, its
  causes and contexts.
- `forgetting(test)`: `test`, whose failures forget their locals on the way out.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

__all__ = ["forget_locals", "forgetting"]

_Test = TypeVar("_Test", bound=Callable[..., Any])


def forget_locals(error: BaseException | None) -> None:
    """Clear the locals of the frames in `error`'s traceback and in those of its chain.

    Frames still running (the caller's) are left alone. Nothing is raised.
    """
    seen: set[int] = set()
    pending = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        _clear_frames(current.__traceback__)
        pending += [current.__cause__, current.__context__]
        if isinstance(current, BaseExceptionGroup):
            pending += current.exceptions


def _clear_frames(tb: TracebackType | None) -> None:
    """`traceback.clear_frames`, and the snapshot of the locals that reading one made.

    Up to Python 3.12, reading a frame's `f_locals` (pytest's and hypothesis's traceback
    filters do) stores a dict of its locals on the frame that `frame.clear()` leaves
    alone; reading it again after the clear removes the cleared names from it.
    """
    while tb is not None:
        frame = tb.tb_frame
        try:
            frame.clear()
        except RuntimeError:
            pass  # still running: the caller's own frame
        else:
            _ = frame.f_locals
        tb = tb.tb_next


def forgetting(test: _Test) -> _Test:
    """`test` wrapped so that whatever it raises has forgotten its frames' locals.

    For hypothesis's `inner_test`: the shrinker keeps the exception of each failing
    example it tries, and without this each would keep its example's answer.
    """

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        try:
            return test(*args, **kwargs)
        except BaseException as error:
            forget_locals(error)
            raise

    return run  # type: ignore[return-value]
