"""`--impl copilot-cli@VERSION`: GitHub Copilot CLI (`@github/copilot`), driven as a black box.

The npm package `@github/copilot` is a Node loader (`npm-loader.js`) that starts the
platform package's binary (`@github/copilot-linux-x64/copilot`, a Node single-executable
application, 197 MB). The binary carries its application as an archive it unpacks on
first start into a package cache (`$XDG_CACHE_HOME/copilot/pkg/linux-x64/<version>`,
about 235 MB: `app.js`, `cli-main.js`, the native runtime), once per HOME. Both are
installed into ctxspec's cache on first use from the committed
`copilot_cli/locks/<version>/package.json` + `package-lock.json` (exact versions,
integrity hashes) with `npm ci --ignore-scripts`; then the binary unpacks its archive
once into the install itself (`after`: `COPILOT_SEA_EXTRACT_ONLY=1` with
`COPILOT_PKG_CACHE_HOME=<install>/copilot-cache`, the binary's own switches for this),
and those files are made read-only (not its folders: each run marks its use with
`inuse.<pid>.lock` and `.hold` files there, removed when it exits; a killed run leaves
them). Every run is given that one package cache (`COPILOT_PKG_CACHE_HOME`), so no run
unpacks again. Nothing is fetched afterwards.

The adapter (`adapter.py`, run by ctxspec's own Python through `pyrun.py`) starts the
binary once per request, BYOK and offline (`run.py`).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import Final

from ctxspec.conformance.transport.named import InstallError
from ctxspec.conformance.transport.npm_harness import PYTHON, NpmHarness

__all__ = ["ADAPTER", "BINARY", "HARNESS", "PKG_CACHE", "install", "package_files", "unpacked"]

BINARY: Final = ("node_modules", "@github", "copilot-linux-x64", "copilot")
LOADER: Final = ("node_modules", "@github", "copilot", "npm-loader.js")
PKG_CACHE: Final = ("copilot-cache",)  # COPILOT_PKG_CACHE_HOME: <it>/pkg/linux-x64/<version>
_DONE: Final = ".extraction-complete"  # what the binary writes when an unpack is whole
_UNPACK_TIMEOUT: Final = 300.0


def _version(root: Path) -> str:
    manifest = root.joinpath(*BINARY).parent / "package.json"
    return str(json.loads(manifest.read_text())["version"])


def unpacked(root: Path) -> Path:
    """The package the binary of the install at `root` runs from once unpacked."""
    return root.joinpath(*PKG_CACHE, "pkg", "linux-x64", _version(root))


def _unpack(root: Path) -> None:
    """The binary's archive unpacked into `root/copilot-cache` (the binary's own
    `COPILOT_SEA_EXTRACT_ONLY` mode), its files made read-only."""
    cache = root.joinpath(*PKG_CACHE)
    with tempfile.TemporaryDirectory(prefix="ctxspec-copilot-unpack-") as home:
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": home,
            "TMPDIR": home,
            "LANG": "C.UTF-8",
            "COPILOT_SEA_EXTRACT_ONLY": "1",
            "COPILOT_PKG_CACHE_HOME": str(cache),
            "COPILOT_AUTO_UPDATE": "false",
        }
        done = subprocess.run(
            [str(root.joinpath(*BINARY))],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_UNPACK_TIMEOUT,
            check=False,
        )
    target = unpacked(root)
    if done.returncode != 0 or not (target / _DONE).is_file():
        raise InstallError(
            f"copilot-cli: the binary did not unpack its package (status {done.returncode}): "
            f"{done.stderr.decode('utf-8', 'replace')[-400:]}"
        )
    for folder, _dirs, files in os.walk(cache):
        for name in files:
            path = Path(folder, name)
            if not path.is_symlink():
                mode = path.stat().st_mode
                path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _unpack_missing(root: Path) -> str | None:
    try:
        target = unpacked(root)
    except (OSError, ValueError, KeyError):
        return "the platform package's package.json is missing"
    if not (target / _DONE).is_file():
        return f"the unpacked package ({'/'.join(PKG_CACHE)}/pkg/...) is missing"
    return None


HARNESS: Final = NpmHarness(
    family="copilot-cli",
    default_version="1.0.102",
    module=__name__,
    packages=("@github/copilot",),
    runtime=PYTHON,  # the adapter drives the CLI; nothing of it is imported
    adapter="adapter.py",
    size="about 10 s and 425 MB, its package unpacked once",
    executable=BINARY,
    required=(LOADER,),
    after=_unpack,
    check=_unpack_missing,
    platform=("linux", "x86_64"),
    paths={"CTXSPEC_COPILOT": BINARY, "CTXSPEC_COPILOT_PKG_CACHE": PKG_CACHE},
    timeout=180.0,  # agent.resume runs the CLI once per turn of the history and once more
)
ADAPTER: Final = HARNESS.adapter_path
install: Final = HARNESS.install
package_files: Final = HARNESS.committed
