"""The shipped implementations: every one with an expectations file in the package.

One rule, read by `ctxspec impl list --json` (the matrix workflow's jobs), by noxfile.py
(one `conform` session each) and by CI: an implementation ships when
`conformance/expectations/` holds a file for it, named by that file's `implementation:`
line. The module uses the standard library alone, so that noxfile.py can load it by its
path under nox's own interpreter, where ctxspec need not be installed.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Final

__all__ = ["shipped_implementations"]

_NAME: Final = re.compile(r"^implementation: (\S+)$", re.MULTILINE)
_RANK: Final = {"reference": 0, "fastengine": 1, "pi": 2}  # the rest (3): by name


def _order(name: str) -> tuple[int, tuple[int, ...], str]:
    """The engines, the Pi releases oldest first, then the forks, ports and agents by name."""
    family, _, version = name.partition("@")
    rank = _RANK.get(family, 3)
    numbers = tuple(int(x) for x in re.findall(r"\d+", version)) if rank == 2 else ()
    return rank, numbers, name


def shipped_implementations(folder: Path | None = None) -> list[str]:
    """The name in each expectations file of `folder` (default: the package's), in order."""
    root = folder or Path(str(resources.files("ctxspec.conformance").joinpath("expectations")))
    found = (_NAME.search(path.read_text("utf-8")) for path in root.glob("*.yaml"))
    return sorted((match.group(1) for match in found if match is not None), key=_order)
