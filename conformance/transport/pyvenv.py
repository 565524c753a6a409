"""A private virtual environment in the cache for a port that ships on PyPI.

The port's exact version (and what it pins) goes into its own venv under
`cache/impls/<name>`, never into ctxspec's environment: a port's dependencies cannot
change the suite's, and the suite's cannot mask a port's missing dependency. Every
package the venv holds is pinned by the port's module (its whole `pip freeze`), so a
new release of a dependency cannot change a verdict. The venv's Python is the one
running ctxspec (its version is part of the cache key).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ctxspec.conformance.runner.progress import status
from ctxspec.conformance.transport.cache import ensure, run_logged
from ctxspec.conformance.transport.named import Family, Launch
from ctxspec.conformance.transport.pyrun import PYRUN

__all__ = ["PypiPort", "adapter_launch", "ensure_venv"]


def _python(root: Path) -> Path:
    return root / "venv" / "bin" / "python"


def ensure_venv(name: str, requirements: Sequence[str], *, quiet: bool = False) -> Path:
    """The venv's python, with `requirements` installed on first use (exact pins expected).

    One venv per Python minor version, named by it: CI runs the suite on 3.11 and the
    fast tests on 3.12 and 3.13 over one cache, and a venv keyed by `sys.version` alone
    under one folder was rebuilt by each in turn."""
    key = hashlib.sha256("\n".join([sys.version, *requirements]).encode()).hexdigest()[:16]
    folder = f"{name}-py{sys.version_info.major}.{sys.version_info.minor}"

    def build(work: Path) -> None:
        shown = (
            f"ctxspec: installing {name} into the cache: a private venv, pip install "
            f"{requirements[0]} ({len(requirements)} pinned packages) ..."
        )
        with status(shown, quiet=quiet):
            venv = [sys.executable, "-m", "venv", str(work / "venv")]
            run_logged(venv, cwd=work, quiet=quiet, what="venv")
            pip = [str(_python(work)), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
            run_logged([*pip, *requirements], cwd=work, quiet=quiet, what=f"pip install for {name}")

    def check(root: Path) -> str | None:
        return None if _python(root).exists() else f"{_python(root)} is missing"

    root = ensure(folder, key, build, check=check)
    return _python(root)


def adapter_launch(python: Path, adapter: Path) -> Launch:
    """How to start `adapter` in the venv of `python`: through `pyrun.py`, which gives it
    ctxspec's protocol loop and tree code (standard library only) and nothing else of
    ctxspec. `-I` keeps the caller's PYTHON* variables (PYTHONPATH, PYTHONUTF8, ...) and
    user site-packages out, so the port sees only its venv; `-B` writes no bytecode."""
    return Launch(argv=[str(python), "-I", "-B", str(PYRUN), str(adapter)])


@dataclass(frozen=True, slots=True, kw_only=True)
class PypiPort:
    """A port from PyPI: what its venv installs at a version, and its adapter's launch.

    `packages` are installed at exactly the version asked for (the port and the siblings
    it pins to its own version); `pins/<version>.txt` beside the adapter, where there is
    one, is the rest of that venv's whole `pip freeze` (one `name==version` a line), so
    that a later release of a dependency cannot change a verdict.
    """

    family: str  # the `--impl` name
    default_version: str  # what a bare family name means
    module: str  # the harness package (`__name__`): its adapter and `pins/` lie there
    packages: tuple[str, ...]
    adapter: str = "adapter.py"  # beside the harness's `__init__`

    @property
    def source(self) -> str:
        """Where it comes from, for humans: `PyPI package`."""
        return f"PyPI {self.packages[0]}"

    @property
    def entry(self) -> Family:
        """The family `--impl` resolves (`named.FAMILIES`)."""
        return Family(self.family, self.default_version, self.module, self.source)

    @property
    def adapter_path(self) -> Path:
        return Path(str(resources.files(self.module))) / self.adapter

    def requirements(self, version: str) -> list[str]:
        """What the venv for `version` installs: the packages at `version`, and the pins."""
        exact = [f"{package}=={version}" for package in self.packages]
        pins = self.adapter_path.parent / "pins" / f"{version}.txt"
        pinned = pins.read_text("utf-8").split() if pins.is_file() else []
        return [*exact, *pinned]

    def install(self, version: str, *, quiet: bool = False) -> Launch:
        """The port's venv on first use (cached), and the adapter run by its python."""
        name = f"{self.family}-{version}"
        python = ensure_venv(name, self.requirements(version), quiet=quiet)
        return adapter_launch(python, self.adapter_path)
