"""`python -m ctxspec.conformance.tools.examples_write`: draw the verdict's property examples.

The verdict runs each property on examples shipped as data
(`conformance/suite/examples/<module>.json`, `ctxspec.conformance.runner.example_data`),
so that no run draws anything and no hypothesis version is needed to reproduce a verdict.
This command draws them, once per seed version or strategy change: for each property of
the suite, hypothesis (at the version pyproject.toml's test group pins, `HYPOTHESIS`)
draws at most `VERDICT_EXAMPLES` examples (fewer where the property's own settings say
so) from `property_seed(name)`, its database off and no constant mined from the modules
this process loaded. The property's test function is called on each, against the
reference in this process, so what a property draws as it runs (`st.data()`) is recorded
with what it was given. Each example is written losslessly (`example_data.encode`),
duplicates once, smallest first (so the first failing example a verdict tells is the
smallest of those that fail).

`--check` says, without drawing and under any hypothesis, whether the shipped files fit
the suite (`stale`): each property has examples, drawn from its current source and
strategies, for the current seed version and hypothesis pin; it names each property that
does not. `--check-draws` draws them again and compares them, value for value.

Exit status: 0 written, or the check found nothing; 1 a check found something (each
named); 2 bad usage, or drawing under a hypothesis other than `HYPOTHESIS` (its draws
would differ); 3 a property broke on an example other than by failing (a bug of the
suite: nothing is written).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final

import hypothesis
import pytest
from hypothesis import settings
from hypothesis import strategies as st

from ctxspec.conformance.engines.reference import in_process
from ctxspec.conformance.judging.check import ResultMismatch
from ctxspec.conformance.runner.example_data import (
    HYPOTHESIS,
    REGENERATE,
    StaleExamples,
    dump,
    encode,
    example_line,
    load,
    module_file,
    source_digest,
    strategies_digest,
)
from ctxspec.conformance.runner.examples import (
    SEED_VERSION,
    VERDICT_EXAMPLES,
    property_seed,
    seed_text,
    without_local_constants,
)
from ctxspec.conformance.runner.fixed_examples import is_property
from ctxspec.conformance.runner.profiles import profile_for
from ctxspec.conformance.transport.base import Implementation

__all__ = ["DrawingBroke", "differing", "draw_all", "expected", "main", "properties", "stale"]

_DRAWING_PROFILE: Final = "verdict"  # examples.py: the verdict's count, database off


class DrawingBroke(Exception):
    """A property's test broke on an example drawn for it (an error, not a failure), or
    the suite could not be collected."""


# --- the suite's properties, as pytest collects them ---------------------------------------------


class _Collected:
    """A pytest plugin keeping the suite's property items."""

    def __init__(self) -> None:
        self.items: list[pytest.Function] = []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.items = [i for i in items if isinstance(i, pytest.Function) and is_property(i)]


def properties() -> list[pytest.Function]:
    """The suite's property items (`test_x[op]` for each op of a parametrized one)."""
    ini = resources.files("ctxspec.conformance").joinpath("suite", "pytest.ini")
    args = [
        "-c", str(ini), "--rootdir", str(Path.cwd()), "--noconftest",
        "-p", "ctxspec.conformance.runner.plugin", "--pyargs", "ctxspec.conformance.suite",
        "--impl", "reference", "--collect-only", "-q",
        # the profile the properties take their settings from as they are imported
        "--hypothesis-profile", _DRAWING_PROFILE,
    ]  # fmt: skip
    collected = _Collected()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = pytest.main(args, plugins=[collected])
    if code != pytest.ExitCode.OK:
        raise DrawingBroke(f"collecting the suite failed ({code}):\n{out.getvalue()[-3000:]}")
    return collected.items


# --- one property's examples ----------------------------------------------------------------------


class _RecordingData:
    """hypothesis's `st.data()` object, each draw kept (encoded) as it is made."""

    def __init__(self, real: st.DataObject, draws: list[dict[str, Any]]) -> None:
        self._real = real
        self._draws = draws

    def draw(self, strategy: st.SearchStrategy[Any], label: Any = None) -> Any:
        value = self._real.draw(strategy, label=label)
        self._draws.append({"label": label, "value": encode(value)})
        return value


class _Drawn:
    """The examples one property was called on, the keyword of its `st.data()`, and how
    many of them the reference fails."""

    def __init__(self) -> None:
        self.examples: list[dict[str, Any]] = []
        self.data_keyword: str | None = None
        self.failed = 0


def _recording(
    test: Callable[..., Any], fixtures: Mapping[str, Any], drawn: _Drawn
) -> Callable[..., Any]:
    """`test` (hypothesis's inner test), keeping each example it is called on: what it was
    given, what it drew. An example hypothesis discards (a filter, an assumption) is not
    kept. The examples do not depend on the reference's answers: a property the reference
    fails (as Pi does, STREAM-4) or that does not apply to it (a skip) goes on drawing as
    if it passed; any other error is a bug, and ends the drawing."""

    def run(*args: Any, **kwargs: Any) -> Any:
        example: dict[str, Any] = {"given": {}}
        for key, value in kwargs.items():
            if key in fixtures:
                continue
            if isinstance(value, st.DataObject):
                drawn.data_keyword = key
                example["draws"] = []
                kwargs[key] = _RecordingData(value, example["draws"])
            else:
                example["given"][key] = encode(value)
        drawn.examples.append(example)
        try:
            return test(*args, **kwargs)
        except pytest.skip.Exception:
            return None
        except (AssertionError, ResultMismatch):
            drawn.failed += 1
            return None
        except BaseException:
            drawn.examples.remove(example)
            raise

    return run


def _fixtures(item: pytest.Function, reference: Implementation) -> dict[str, Any]:
    """The arguments pytest would pass the property (those hypothesis does not draw): the
    reference, its agent profile, the parametrized values."""
    values: dict[str, Any] = {"impl": reference, "agent_profile": profile_for("reference")}
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        values.update(callspec.params)
    return {name: values[name] for name in inspect.signature(item.obj).parameters}


def draw_property(
    item: pytest.Function, reference: Implementation, log: Callable[[str], None]
) -> dict[str, Any]:
    """One property item's entry: its source's digest and its examples, smallest first
    (`DrawingBroke` when its test breaks on one other than by failing)."""
    fixtures = _fixtures(item, reference)
    drawn = _Drawn()
    handle = item.obj.hypothesis
    inner = handle.inner_test
    handle.inner_test = _recording(inner, fixtures, drawn)
    test = hypothesis.seed(property_seed(item.originalname))(item.obj)
    try:
        test(**fixtures)
    except Exception as error:
        raise DrawingBroke(f"{item.name} broke on an example: {error!r}") from error
    finally:
        handle.inner_test = inner
    lines: dict[str, dict[str, Any]] = {}
    for example in drawn.examples:
        lines.setdefault(example_line(example), example)
    entry: dict[str, Any] = {"source": source_digest(item.obj)}
    if drawn.data_keyword is not None:
        entry["data"] = drawn.data_keyword
    entry["examples"] = [lines[line] for line in sorted(lines, key=len)]
    failed = f" (the reference fails {drawn.failed})" if drawn.failed else ""
    log(f"{item.name}: {len(entry['examples'])} examples{failed}")
    return entry


# --- every property's -------------------------------------------------------------------------


@contextlib.contextmanager
def _drawing() -> Iterator[None]:
    """hypothesis set to draw the verdict's examples, and set back after."""
    previous = getattr(settings, "_current_profile", None)
    settings.load_profile(_DRAWING_PROFILE)
    restore = without_local_constants()
    try:
        yield
    finally:
        restore()
        settings.load_profile(previous or "default")


def draw_all(
    items: Sequence[pytest.Function] | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> dict[str, dict[str, Any]]:
    """Every property module's document: module name -> its file's content."""
    items = list(items) if items is not None else properties()
    reference = in_process()
    documents: dict[str, dict[str, Any]] = {}
    with _drawing():
        for item in items:
            module = item.module
            name = module.__name__.rsplit(".", 1)[-1]
            document = documents.setdefault(name, _header(name, module))
            document["properties"][item.name] = draw_property(item, reference, log)
    return documents


def _header(name: str, module: Any) -> dict[str, Any]:
    return {
        "suite": "ctxspec",
        "module": name,
        "seedVersion": SEED_VERSION,
        "seed": seed_text(),
        "maxExamples": VERDICT_EXAMPLES,
        "hypothesis": HYPOTHESIS,
        "strategies": strategies_digest(module),
        "regenerate": REGENERATE,
        "properties": {},
    }


def differing(drawn: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What differs between `drawn` and the shipped files, one line per property or file."""
    lines = []
    for name, document in sorted(drawn.items()):
        try:
            shipped = load(module_file(name))
        except StaleExamples as error:
            lines.append(str(error))
            continue
        for key in sorted(k for k in document if k != "properties"):
            if shipped.get(key) != document[key]:
                lines.append(f"{name}.json: its {key} differs")
        ours, theirs = document["properties"], shipped.get("properties", {})
        lines += [
            f"{prop}: its examples differ"
            for prop in sorted(set(ours) | set(theirs))
            if ours.get(prop) != theirs.get(prop)
        ]
    return lines


# --- whether the shipped examples fit the suite, without drawing ----------------------------


def expected(items: Sequence[pytest.Function]) -> dict[str, dict[str, Any]]:
    """What the shipped files must say, known without drawing: per module, the seed
    version, the hypothesis, the strategies' digest and each property's source digest."""
    documents: dict[str, dict[str, Any]] = {}
    for item in items:
        name = item.module.__name__.rsplit(".", 1)[-1]
        document = documents.setdefault(name, _header(name, item.module))
        document["properties"][item.name] = {"source": source_digest(item.obj)}
    return documents


def _shipped_modules() -> list[str]:
    return sorted(path.stem for path in module_file("x").parent.glob("*.json"))


def stale(
    wanted: Mapping[str, Mapping[str, Any]], shipped: Mapping[str, Mapping[str, Any] | None]
) -> list[str]:
    """Each way the `shipped` documents (module -> document, None when it has no file) do
    not fit the suite (`wanted`, from `expected`), one line each naming the property or
    the file; the examples need drawing again when there is any."""
    lines = []
    for name in sorted(set(wanted) | set(shipped)):
        want, have = wanted.get(name), shipped.get(name)
        if want is None:
            lines.append(f"{name}.json: examples of a module the suite no longer has")
            continue
        if have is None:
            lines.append(f"{name}.json: missing (the properties of {name} have no examples)")
            continue
        for key, what in (("seedVersion", "seed version"), ("hypothesis", "hypothesis")):
            if have.get(key) != want[key]:
                lines.append(
                    f"{name}.json: drawn for {what} {have.get(key)}, the suite's is {want[key]}"
                )
        ours, theirs = want["properties"], have.get("properties", {})
        for prop in sorted(set(ours) | set(theirs)):
            if prop not in theirs:
                lines.append(f"{prop}: no shipped examples (a new property, or renamed)")
            elif prop not in ours:
                lines.append(f"{prop}: shipped examples of no property (removed, or renamed)")
            elif theirs[prop].get("source") != ours[prop]["source"]:
                lines.append(f"{prop}: its source changed since its examples were drawn")
            elif have.get("strategies") != want["strategies"]:
                lines.append(
                    f"{prop}: its strategies changed since its examples were drawn "
                    f"({name} or the strategy modules)"
                )
    return lines


def _stale_now() -> list[str]:
    wanted = expected(properties())
    shipped: dict[str, Mapping[str, Any] | None] = {}
    for name in sorted(set(wanted) | set(_shipped_modules())):
        try:
            shipped[name] = load(module_file(name))
        except StaleExamples:
            shipped[name] = None
    return stale(wanted, shipped)


def _report(lines: Sequence[str], fine: str) -> int:
    for line in lines:
        print(line)
    print(f"{len(lines)} problem(s): draw them again with `{REGENERATE}`" if lines else fine)
    return 1 if lines else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ctxspec.conformance.tools.examples_write",
        description="draw the verdict's property examples and write them as package data",
    )
    checks = parser.add_mutually_exclusive_group()
    checks.add_argument(
        "--check",
        action="store_true",
        help="without drawing: does each property have examples drawn from its current "
        "source, strategies, seed version and hypothesis (any hypothesis installed)",
    )
    checks.add_argument(
        "--check-draws",
        action="store_true",
        help=f"draw them again and compare with the shipped files (hypothesis {HYPOTHESIS})",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no line per property")
    options = parser.parse_args(argv)
    if options.check:
        try:
            return _report(_stale_now(), "the shipped examples fit the suite")
        except DrawingBroke as error:
            print(f"examples_write: {error}", file=sys.stderr)
            return 3
    if hypothesis.__version__ != HYPOTHESIS:
        print(
            f"examples_write: hypothesis {hypothesis.__version__} draws other examples than "
            f"{HYPOTHESIS}, the one they are drawn with: pip install hypothesis=={HYPOTHESIS}",
            file=sys.stderr,
        )
        return 2
    log = (lambda _: None) if options.quiet else print
    try:
        documents = draw_all(log=log)
    except DrawingBroke as error:
        print(f"examples_write: {error}", file=sys.stderr)
        return 3
    if options.check_draws:
        return _report(differing(documents), "the shipped examples are what this draws")
    for name, document in documents.items():
        path = module_file(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(document), "utf-8")
        size = path.stat().st_size
        count = sum(len(p["examples"]) for p in document["properties"].values())
        print(f"wrote {path.name}: {count} examples, {size} bytes")
    for name in sorted(set(_shipped_modules()) - set(documents)):
        module_file(name).unlink()
        print(f"removed {name}.json: the suite has no such module")
    return 0


if __name__ == "__main__":
    sys.exit(main())
