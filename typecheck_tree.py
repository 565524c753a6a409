"""Lay out the `ctxspec` namespace for mypy, which cannot follow setup.py's map.

The repository keeps `reference/`, `conformance/`, ... as top-level folders and setup.py
installs each as `ctxspec.<folder>`. mypy resolves a module name from folders alone, so
this script builds `.ctxspec/typecheck/ctxspec/` (git ignores `.ctxspec/`): the core
package's files and one symlink per folder. New files show through the links; run it
again only when a folder is added. `nox -s lint` runs it before mypy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent
FOLDERS = ("reference", "fastengine", "conformance", "corpora", "benchmarks")  # as setup.py


def main() -> None:
    tree = ROOT / ".ctxspec" / "typecheck" / "ctxspec"
    shutil.rmtree(tree.parent, ignore_errors=True)
    tree.mkdir(parents=True)
    for entry in (ROOT / "ctxspec").iterdir():
        if entry.name != "__pycache__":
            (tree / entry.name).symlink_to(entry)
    for folder in FOLDERS:
        (tree / folder).symlink_to(ROOT / folder, target_is_directory=True)


if __name__ == "__main__":
    main()
