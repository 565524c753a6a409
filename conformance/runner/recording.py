"""The requests of a property's failing example and their answers, kept to be told.

`conform` wraps the implementation under test in `Recording`, which keeps the requests
of the example being run and the implementation's answers (cleared at each test's and
each example's start); when a property fails, what is kept is its failing example (in a
verdict the first shipped one that fails; exploring, the minimal one hypothesis has just
rerun), which `ctxspec.conformance.runner.failing_example` tells as protocol data. With
`conform --record-requests FILE`, one JSON line `{property, seed, requests: [{op, args}]}` is also
appended to FILE; `ctxspec sweep` reads those lines, asks each request of the oracle and
of the implementation, and writes the ones they answer differently as golden cases.
`conform --replay` reads the same lines.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ctxspec.conformance.ask import Outcome, failed
from ctxspec.conformance.errors import AdapterError, StopAfterTimeout
from ctxspec.conformance.transport.base import Implementation, Reply

__all__ = ["Recording", "append_failure", "read_failures", "restarting_each_example"]


class Recording(Implementation):
    """An implementation that remembers the requests of the current example, and what
    the implementation answered to each (`answers[i]` for `requests[i]`; the last request
    has no answer when its call raised)."""

    def __init__(self, inner: Implementation) -> None:
        self.inner = inner
        self.name = inner.name
        self.hello: Mapping[str, Any] = inner.hello
        self.requests: list[dict[str, Any]] = []
        self.answers: list[Outcome] = []

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        self.requests.append({"op": op, "args": json.loads(json.dumps(args))})
        try:
            reply = self.inner.call(op, args)
        except (AdapterError, StopAfterTimeout) as error:
            self.answers.append(failed(error))
            raise
        self.answers.append(Outcome(reply=reply))
        return reply

    def clear(self) -> None:
        """Forget the example kept (and with it its answers, whatever their size)."""
        self.requests.clear()
        self.answers.clear()

    def new_test(self) -> None:
        self.clear()
        new_test = getattr(self.inner, "new_test", None)
        if new_test is not None:
            new_test()

    def close(self) -> None:
        self.inner.close()


def restarting_each_example(inner_test: Callable[..., Any]) -> Callable[..., Any]:
    """`inner_test`, clearing its `Recording` (passed as `impl`) before each example."""

    @functools.wraps(inner_test)
    def run(*args: Any, **kwargs: Any) -> Any:
        impl = kwargs.get("impl")
        if isinstance(impl, Recording):
            impl.clear()
        return inner_test(*args, **kwargs)

    return run


def append_failure(path: str, prop: str, seed: object, requests: list[dict[str, Any]]) -> None:
    line = json.dumps({"property": prop, "seed": seed, "requests": requests}, ensure_ascii=True)
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(line + "\n")


def read_failures(path: Path) -> list[dict[str, Any]]:
    """The recorded failures of a file (a missing file: none)."""
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
