"""The install cache: where implementations ctxspec installs live, made safely once.

Every install is built in a fresh sibling directory and renamed into place only when it
is complete, under a lock per install: an interrupted install is never used half-made
(its directory has no stamp, so it is removed and redone; side directories left by a
process killed outright are removed by the next install), and two processes installing
the same thing at once wait for each other instead of writing into one tree. The stamp
holds a key (a hash of what was asked for), so a changed request installs afresh.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final

from ctxspec.conformance.runner.progress import is_terminal
from ctxspec.conformance.transport.named import InstallError

__all__ = ["STAMP", "cache_root", "ensure", "run_logged"]

STAMP: Final = ".ctxspec-installed"


def cache_root() -> Path:
    """`$CTXSPEC_CACHE`, else `$XDG_CACHE_HOME/ctxspec`, else `~/.cache/ctxspec`."""
    if explicit := os.environ.get("CTXSPEC_CACHE"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ctxspec"


def _stamped(root: Path, key: str) -> bool:
    stamp = root / STAMP
    try:
        return stamp.read_text().strip() == key
    except OSError:
        return False


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _sweep(parent: Path, name: str) -> None:
    """Side directories of installs that were killed (SIGKILL, power loss) before cleanup.

    Called under the install's lock, so no other process is building into them.
    """
    for pattern in (f".{name}.building-*", f".{name}.stale-*"):
        for leftover in parent.glob(pattern):
            shutil.rmtree(leftover, ignore_errors=True)


def ensure(
    name: str,
    key: str,
    build: Callable[[Path], None],
    *,
    check: Callable[[Path], str | None] | None = None,
) -> Path:
    """`cache/impls/<name>`, built by `build(tmpdir)` first if missing, stale or damaged.

    `check(root)` says what is wrong with a stamped install (a file deleted under it),
    or None; a damaged install is rebuilt like a missing one.
    """
    root = cache_root() / "impls" / name
    if _stamped(root, key) and (check is None or check(root) is None):
        return root
    with _locked(root.parent / f".{name}.lock"):
        if _stamped(root, key) and (check is None or check(root) is None):
            return root  # another process finished it while we waited
        _sweep(root.parent, name)
        work = Path(tempfile.mkdtemp(prefix=f".{name}.building-", dir=root.parent))
        try:
            build(work)
            problem = check(work) if check is not None else None
            if problem is not None:
                raise InstallError(f"{name}: the fresh install is incomplete: {problem}")
            (work / STAMP).write_text(key + "\n")
            if root.exists():
                stale = Path(tempfile.mkdtemp(prefix=f".{name}.stale-", dir=root.parent))
                root.rename(stale / "old")
                shutil.rmtree(stale, ignore_errors=True)
            work.rename(root)
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)
    return root


def run_logged(command: Sequence[str], *, cwd: Path, quiet: bool, what: str) -> None:
    """Run an install step; its output goes to stderr (a log), or into the error when
    `quiet` or when stderr is a terminal (where `progress.status` shows a spinner)."""
    kept = quiet or is_terminal(sys.stderr)
    completed = subprocess.run(
        list(command),
        cwd=cwd,
        stdout=subprocess.PIPE if kept else sys.stderr,
        stderr=subprocess.STDOUT if kept else None,
        check=False,
    )
    if completed.returncode != 0:
        detail = (completed.stdout or b"").decode("utf-8", "replace")[-2000:] if kept else ""
        raise InstallError(
            f"{what} failed with status {completed.returncode} "
            f"(`{' '.join(command)}`): is the registry reachable? {detail}".rstrip()
        )
