"""Paths as a report shows them: never where the machine that ran it keeps them.

A report is read on other machines (a CI artefact, the matrix page, a bug report), where
a path of the machine that ran it (its checkout, its home, a temp dir) means nothing and
shows its layout. `shown_path(path)` names a file of the ctxspec package by its path in
the package (`conformance/expectations/pi-0.85.0.yaml`), a file under the run's cwd by its
relative path, and any other file by its name alone. What is not an absolute path (a
relative path, `(none)`, a profile's name) is shown as it is.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path, PurePosixPath

__all__ = ["shown_path"]

_PACKAGES = ("conformance/", "corpora/")  # ctxspec's own data lives in these


def _package_root() -> Path:
    """The folder holding the `conformance` package (a checkout, or site-packages)."""
    return Path(str(resources.files("ctxspec.conformance"))).resolve().parent


def _under(path: Path, root: Path) -> str | None:
    try:
        return PurePosixPath(*path.relative_to(root).parts).as_posix()
    except ValueError:
        return None


def shown_path(path: str | os.PathLike[str] | None) -> str | None:
    """`path` as a report shows it (None stays None).

    >>> shown_path("(none)"), shown_path("my-port.yaml")
    ('(none)', 'my-port.yaml')
    >>> shown_path("/somewhere/else/my-port.yaml")
    'my-port.yaml'
    """
    if path is None:
        return None
    text = os.fspath(path)
    if not os.path.isabs(text):
        return text
    absolute = Path(os.path.normpath(text))
    resolved = absolute.resolve()
    package = _package_root()
    for candidate in (absolute, resolved):
        inside = _under(candidate, package)
        if inside is not None and inside.startswith(_PACKAGES):
            return inside
    cwd = Path.cwd()
    for candidate, root in ((absolute, cwd), (resolved, cwd.resolve())):
        inside = _under(candidate, root)
        if inside is not None:
            return inside or "."
    return absolute.name
