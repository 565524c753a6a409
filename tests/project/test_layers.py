"""Nothing imports upward: the core (`ctxspec/`) knows its subpackages only through the
command registry, the oracle, the fast engine and the corpora know nothing of the suite,
and only `benchmarks` imports `benchmarks`, with no exception.

    ctxspec (core: cli, exits)  <-  conformance, benchmarks register their commands
    benchmarks  ->  conformance  ->  reference, fastengine, corpora
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import ROOT

from ctxspec.cli import COMMAND_MODULES


def imported(path: Path) -> Iterator[str]:
    """Every module `path` imports (absolute names; `from x import y` gives x and x.y)."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def offenders(folders: tuple[str, ...], forbidden: str) -> list[str]:
    return [
        f"{path.relative_to(ROOT)} imports {name}"
        for folder in folders
        for path in modules(folder)
        for name in imported(path)
        if name == forbidden or name.startswith(forbidden + ".")
    ]


@pytest.mark.parametrize(
    ("folders", "forbidden"),
    [
        (("conformance", "reference", "fastengine", "corpora"), "ctxspec.benchmarks"),
        (("reference", "fastengine", "corpora"), "ctxspec.conformance"),
        (("reference", "fastengine", "corpora"), "ctxspec.cli"),
    ],
)
def test_no_upward_import(folders: tuple[str, ...], forbidden: str) -> None:
    assert offenders(folders, forbidden) == []


def test_the_core_imports_no_subpackage() -> None:
    """`ctxspec/*.py` imports only itself and the standard library; the subpackages are
    reached through `COMMAND_MODULES`, by name."""
    subpackages = ("reference", "fastengine", "conformance", "corpora", "benchmarks")
    assert [f for name in subpackages for f in offenders(("ctxspec",), f"ctxspec.{name}")] == []
    assert all(name.split(".")[1] in subpackages for name in COMMAND_MODULES)
