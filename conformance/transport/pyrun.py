"""Run a PyPI port's adapter in the port's own venv, with ctxspec's standard-library modules.

Usage: <the port's venv python> pyrun.py <adapter.py>

The venv holds the port and what it pins, never ctxspec (`pyvenv.py`). The adapter still
needs three of ctxspec's modules, which import the standard library only: the protocol
loop (`harnesses/kit/jsonlines.py`), the tree code with its confinement
(`harnesses/kit/tree.py`) and the error both raise (`reference/errors.py`). This script
makes them importable by their own names without running ctxspec's package `__init__`
files (they import the runner and its dependencies) and without putting ctxspec's
environment on the port's path: `ctxspec` and the packages on the way to those modules
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
# the directory that holds conformance/ and reference/: a checkout, or the installed ctxspec/
ROOT: Final = PYRUN.parents[2]
PACKAGES: Final = {  # a bare package's name, and its folder under ROOT
    "ctxspec": None,
    "ctxspec.reference": "reference",
    "ctxspec.conformance": "conformance",
    "ctxspec.conformance.harnesses": "conformance/harnesses",
    "ctxspec.conformance.harnesses.kit": "conformance/harnesses/kit",
}


def _own_package(adapter: Path) -> dict[str, str | None]:
    """The harness package an adapter lies in (`ctxspec.conformance.harnesses.<family>`), if any:
    bare too, so an adapter can be split into modules of its package."""
    harnesses = ROOT / "conformance" / "harnesses"
    folder = adapter.resolve().parent
    if folder.parent != harnesses:
        return {}
    return {f"ctxspec.conformance.harnesses.{folder.name}": f"conformance/harnesses/{folder.name}"}


def expose_ctxspec(adapter: Path | None = None) -> None:
    """ctxspec's packages as bare packages: their modules import, their `__init__` does not run."""
    own = _own_package(adapter) if adapter is not None else {}
    for name, folder in (PACKAGES | own).items():
        package = types.ModuleType(name)
        package.__path__ = [] if folder is None else [str(ROOT / folder)]
        sys.modules[name] = package
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, package)


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
