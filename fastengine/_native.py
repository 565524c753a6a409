"""The optional C passes (`fastengine/_speedups.c`, `fastengine/_sessions.c`), looked up once.

setup.py builds them where it can; everywhere else, and in an older build lacking a
function, the caller gets None and takes its own Python path (same answers, tested).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["native"]


def native(module: str, name: str) -> Any:
    """`fastengine.<module>.<name>`, or None where the extension or the function is missing."""
    try:
        found = importlib.import_module(f"ctxspec.fastengine.{module}")
    except ImportError:  # pragma: no cover - built by every install with a compiler
        return None
    return getattr(found, name, None)
