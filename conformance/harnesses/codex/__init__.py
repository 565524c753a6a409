"""`--impl codex@VERSION`: OpenAI's Codex CLI (`@openai/codex`), driven as a black box.

The npm package is a Node launcher (`bin/codex.js`) and a Rust binary in a platform
package (`@openai/codex-linux-x64` ...). It is installed into the cache on first use
from the committed `codex/package.json` + `package-lock.json` (exact versions, integrity
hashes) with `npm ci --ignore-scripts`, and runs offline afterwards. Nothing of it is
imported: the adapter (`adapter.py`, run by ctxspec's own Python through `pyrun.py`,
over `kit/jsonlines.py` + `kit/tree.py`) starts the CLI once per request, the way a
user does (`node bin/codex.js ...`), with HOME and CODEX_HOME in that request's temp
directory, every telemetry switch off and a hard timeout (`run.py`).

How each op is driven is in `adapter.py`.
"""

from __future__ import annotations

import platform
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

from ctxspec.conformance.transport import npm_lock
from ctxspec.conformance.transport.named import InstallError, Launch
from ctxspec.conformance.transport.pyrun import PYRUN

__all__ = ["ADAPTER", "PACKAGE", "SUPPORTED", "install", "package_files"]

PACKAGE: Final = "@openai/codex"
SUPPORTED: Final = ("0.171.0",)
LAUNCHER: Final = ("node_modules", "@openai", "codex", "bin", "codex.js")
_BINARY: Final = (
    "node_modules",
    "@openai",
    "codex-linux-x64",
    "vendor",
    "x86_64-unknown-linux-musl",
    "bin",
    "codex",
)


ADAPTER: Final = npm_lock.folder(__name__) / "adapter.py"


def package_files() -> dict[str, bytes]:
    """The committed manifest and lock, by file name."""
    return npm_lock.committed(__name__)


def _check(version: str) -> Callable[[Path], str | None]:
    def check(root: Path) -> str | None:
        """What is missing in an install: the launcher at `version`, or the Linux binary."""
        if problem := npm_lock.missing(root, _BINARY, PACKAGE, version):
            return problem
        if not root.joinpath(*LAUNCHER).is_file():
            return "the launcher (@openai/codex/bin/codex.js) is missing"
        return None

    return check


def install(version: str, *, quiet: bool = False) -> Launch:
    """The cached install of Codex (made on first use) and the adapter that drives it."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        raise InstallError("codex: the harness runs the linux-x64 binary only (the one locked)")
    node = shutil.which("node")
    if node is None:
        raise InstallError("codex: node is not on PATH (the package's launcher is a Node script)")
    root = npm_lock.install_locked(
        __name__, "codex", version, SUPPORTED, check=_check(version),
        needed_for=f"{PACKAGE}@{version}", size="about 10 s and 430 MB", quiet=quiet,
    )  # fmt: skip
    env = {"CTXSPEC_CODEX": str(root.joinpath(*LAUNCHER)), "CTXSPEC_NODE": node}
    return Launch(
        argv=[sys.executable, "-I", "-B", str(PYRUN), str(ADAPTER)],
        env=env,
        name=f"codex@{version}",
    )
