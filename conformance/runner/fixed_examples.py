"""The verdict's properties, run on their shipped examples: hypothesis draws nothing.

In the verdict (`ctxspec conform` without `--explore`), a property's test function (its
`.hypothesis.inner_test`, with the runner's wrappers) is called once per example shipped
for it (`ctxspec.conformance.runner.example_data`), in the file's order (smallest first),
with the fixtures pytest gave the test (`impl`, `agent_profile`, a parametrized `op`).
The first failing example fails the property; the `Recording` around the implementation
then holds that example's requests, so it is told, saved under `.ctxspec/examples/` and
replayed (`--replay`, `--write-case`) as an explored property's minimal example is. A
property that draws as it runs (`st.data()`) is handed `ReplayedData`, which gives back
the draws its example recorded. Which examples run is the data's alone: the same under
any hypothesis version.

- `missing_examples(items)`: the property items the shipped data hold no examples for.
- `run_examples(item)`: run a property item on its shipped examples.
- `ReplayedData`: the recorded draws of one example, as `st.data()`'s object.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from ctxspec.conformance.runner.example_data import REGENERATE, StaleExamples, decode, shipped

__all__ = ["ReplayedData", "is_property", "missing_examples", "run_examples"]


class ReplayedData:
    """The draws one shipped example recorded, given back in order to a property that
    draws as it runs, in place of hypothesis's `st.data()` object."""

    def __init__(self, prop: str, draws: Sequence[Mapping[str, Any]]) -> None:
        self._prop = prop
        self._draws = draws
        self._next = 0

    def draw(self, strategy: object, label: object = None) -> Any:
        """The next recorded draw (`StaleExamples` when the property draws more, or under
        another label, than its example recorded: the data are older than the property)."""
        if self._next >= len(self._draws):
            raise StaleExamples(
                f"{self._prop} draws more than its shipped example recorded: "
                f"redraw the examples with `{REGENERATE}`"
            )
        recorded = self._draws[self._next]
        self._next += 1
        if recorded.get("label") != label:
            raise StaleExamples(
                f"{self._prop} draws {label!r} where its shipped example recorded "
                f"{recorded.get('label')!r}: redraw the examples with `{REGENERATE}`"
            )
        return decode(recorded["value"])

    def __repr__(self) -> str:
        return f"data(<{len(self._draws)} recorded draws>)"


def is_property(item: pytest.Item) -> bool:
    """Whether `item` is a property of the suite drawn by hypothesis."""
    test = getattr(item, "obj", None)
    return (
        item.get_closest_marker("ctxspec_property") is not None
        and getattr(test, "hypothesis", None) is not None
    )


def _module(item: pytest.Item) -> str:
    module = item.module if isinstance(item, pytest.Function) else None
    return module.__name__.rsplit(".", 1)[-1] if module is not None else ""


def _entry(item: pytest.Item) -> Mapping[str, Any] | None:
    entry: Mapping[str, Any] | None = shipped(_module(item))["properties"].get(item.name)
    return entry


def missing_examples(items: Iterable[pytest.Item]) -> list[str]:
    """The ids of the property items the shipped data hold no examples for (`StaleExamples`
    when a module's file is missing or not JSON)."""
    return [item.name for item in items if is_property(item) and _entry(item) is None]


def run_examples(item: pytest.Function) -> None:
    """Call the property's test function on each of its shipped examples, in order; the
    first that fails ends the run with its error."""
    __tracebackhide__ = True
    entry = _entry(item)
    if entry is None:
        raise StaleExamples(f"no shipped examples of {item.name}: draw them with `{REGENERATE}`")
    test = item.obj.hypothesis.inner_test
    drawn_into = entry.get("data")  # the keyword of a property's `st.data()`, if it has one
    names = inspect.signature(item.obj).parameters  # what hypothesis does not draw
    fixtures = {name: item.funcargs[name] for name in names if name in item.funcargs}
    for example in entry["examples"]:
        given = {key: decode(value) for key, value in example.get("given", {}).items()}
        if drawn_into:
            given[drawn_into] = ReplayedData(item.name, example.get("draws", ()))
        test(**fixtures, **given)
