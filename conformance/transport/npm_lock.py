"""Installs made with npm from a harness's committed manifest and lock.

A Node harness package (`harnesses/<family>/`) commits `package.json` and
`package-lock.json` with exact versions and integrity hashes. `package_files` reads them,
`files_key` is the key its install's cache stamp holds (a changed manifest or lock
installs afresh), and `npm_install` runs npm over them in the install's build directory
(`transport.cache.ensure` hands it over), with install scripts off.
"""

from __future__ import annotations

import hashlib
import shutil
from importlib import resources
from pathlib import Path
from typing import Final

from conformance.progress import status
from conformance.transport.cache import run_logged
from conformance.transport.named import InstallError

__all__ = ["LOCK_FILES", "files_key", "harness_folder", "npm_install", "package_files"]

LOCK_FILES: Final = ("package.json", "package-lock.json")


def harness_folder(package: str) -> Path:
    """The folder of the harness package named `package` (its `__name__`)."""
    return Path(str(resources.files(package)))


def package_files(package: str) -> dict[str, bytes]:
    """The committed manifest and lock of the harness package `package`, by file name."""
    folder = harness_folder(package)
    return {name: (folder / name).read_bytes() for name in LOCK_FILES}


def files_key(files: dict[str, bytes]) -> str:
    """A short hash of the manifest and the lock, for the install's stamp."""
    digest = hashlib.sha256()
    for name in LOCK_FILES:
        digest.update(name.encode() + b"\0" + files[name])
    return digest.hexdigest()[:16]


def npm_install(
    work: Path, files: dict[str, bytes], *, command: str, what: str, shown: str, quiet: bool
) -> None:
    """`npm COMMAND --ignore-scripts` (ci or install) over `files` written into `work`;
    `what` names the install in errors, `shown` is the line shown while it runs."""
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError(
            f"npm is not on PATH: it is needed once, for the {what} from the npm registry "
            "(install Node.js with npm)"
        )
    for name, data in files.items():
        (work / name).write_bytes(data)
    argv = [npm, command, "--no-audit", "--no-fund", "--ignore-scripts"]
    with status(shown, quiet=quiet):
        run_logged(argv, cwd=work, quiet=quiet, what=f"npm {command} of the {what}")
