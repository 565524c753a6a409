"""A private virtual environment in the cache for a port that ships on PyPI.

The port's exact version (and what it pins) goes into its own venv under
`cache/impls/<name>`, never into ctxspec's environment: a port's dependencies cannot
change the suite's, and the suite's cannot mask a port's missing dependency.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance.adapters.cache import ensure, run_logged

__all__ = ["ensure_venv"]


def _python(root: Path) -> Path:
    return root / "venv" / "bin" / "python"


def ensure_venv(name: str, requirements: Sequence[str], *, quiet: bool = False) -> Path:
    """The venv's python, with `requirements` installed on first use (exact pins expected)."""
    key = hashlib.sha256("\n".join([sys.version, *requirements]).encode()).hexdigest()[:16]

    def build(work: Path) -> None:
        if not quiet:
            print(
                f"ctxspec: installing {' '.join(requirements)} into a private venv...",
                file=sys.stderr,
            )
        run_logged(
            [sys.executable, "-m", "venv", str(work / "venv")], cwd=work, quiet=quiet, what="venv"
        )
        pip = [str(_python(work)), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        run_logged([*pip, *requirements], cwd=work, quiet=quiet, what=f"pip install for {name}")

    def check(root: Path) -> str | None:
        return None if _python(root).exists() else f"{_python(root)} is missing"

    root = ensure(name, key, build, check=check)
    return _python(root)
