"""`--impl pi-agents-py@VERSION`: the PyPI port "Python clone of pi-mono" (truncation, the
read/bash/grep tools, token estimates, skills) in a private venv, answered by
`pi_agents_py_adapter.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from conformance.adapters.named import Launch
from conformance.adapters.ports.pyvenv import ensure_venv

__all__ = ["ADAPTER", "install", "requirements"]

ADAPTER: Final = Path(__file__).parent / "pi_agents_py_adapter.py"


def requirements(version: str) -> list[str]:
    """What the venv for `version` installs."""
    return [f"pi-agents-py=={version}"]


def install(version: str, *, quiet: bool = False) -> Launch:
    """The port's venv on first use (cached), and the adapter run by its python."""
    python = ensure_venv(f"pi-agents-py-{version}", requirements(version), quiet=quiet)
    return Launch(argv=[str(python), str(ADAPTER)], env={"PYTHONDONTWRITEBYTECODE": "1"})
