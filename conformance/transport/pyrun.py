"""Run a PyPI port's adapter in the port's own venv, with ctxspec's standard-library modules.

Usage: <the port's venv python> pyrun.py <adapter.py>

The venv holds the port and what it pins, never ctxspec (`pyvenv.py`). The adapter still
needs three of ctxspec's modules, which import the standard library only: the protocol
loop (`conformance.harnesses.kit.jsonlines`), the tree code with its confinement
(`conformance.harnesses.kit.tree`) and the error both raise (`reference.errors`). This script
makes them importable by their own names without running ctxspec's package `__init__`
files (they import the runner and its dependencies) and without putting ctxspec's
environment on the port's path: `reference`, `conformance`, `conformance.harnesses` and
`conformance.harnesses.kit`
are registered as bare packages over ctxspec's own directories, this directory is taken
off `sys.path`, and the adapter runs as `__main__`. A module that is not standard library
only would fail to import here, and the port's adapter tests would show it.
"""

from __future__ import annotations

import runpy
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Final

__all__ = ["PYRUN", "expose_ctxspec", "main"]

PYRUN: Final = Path(__file__).resolve()
ROOT: Final = PYRUN.parents[2]  # the directory that holds conformance/ and reference/
PACKAGES: Final = ("reference", "conformance", "conformance.harnesses", "conformance.harnesses.kit")


def _own_package(adapter: Path) -> tuple[str, ...]:
    """The harness package an adapter lies in (`conformance.harnesses.<family>`), if any:
    bare too, so an adapter can be split into modules of its package."""
    harnesses = ROOT / "conformance" / "harnesses"
    folder = adapter.resolve().parent
    if folder.parent != harnesses:
        return ()
    return (f"conformance.harnesses.{folder.name}",)


def expose_ctxspec(adapter: Path | None = None) -> None:
    """ctxspec's packages as bare packages: their modules import, their `__init__` does not run."""
    for name in PACKAGES + (_own_package(adapter) if adapter is not None else ()):
        package = types.ModuleType(name)
        package.__path__ = [str(ROOT.joinpath(*name.split(".")))]
        sys.modules[name] = package


def main(argv: Sequence[str]) -> None:
    if len(argv) != 2:
        print("usage: python pyrun.py <adapter.py>", file=sys.stderr)
        raise SystemExit(2)
    here = str(PYRUN.parent)
    sys.path[:] = [entry for entry in sys.path if entry != here]
    expose_ctxspec(Path(argv[1]))
    sys.argv = list(argv[1:])
    runpy.run_path(argv[1], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv)
