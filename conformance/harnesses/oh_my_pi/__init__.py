"""`--impl oh-my-pi@VERSION`: the fork `@oh-my-pi/pi-coding-agent`, run on Bun.

The fork ships TypeScript sources that only Bun runs (`engines.bun >= 1.3.14`). Its
package, its `@oh-my-pi` siblings and Bun itself (the npm package `bun`, whose binary
comes in the platform package `@oven/bun-linux-x64`; the `bun` package's postinstall only
links it, so the binary is used directly) are installed into the cache on first use, from
the committed `oh_my_pi/locks/<version>/package.json` + `package-lock.json` (exact
versions, integrity hashes) with `npm install --ignore-scripts`, and the lock must come
out unchanged: `npm ci` refuses this lock, because pi-natives 18.2.10 names optional
platform packages the registry never had (darwin, win32, linux-arm64 at 18.2.10), which no
lock can hold. The adapter (`oh_my_pi/adapter.mjs`) runs from where ctxspec is installed,
with HOME (and the XDG directories) inside the install, so no user's omp settings reach
it.

Two pieces of 18.3.4 are not on the registry, and the committed manifest says what
stands in for them:

- its siblings at 18.3.4 (`pi-agent-core`, `pi-tui`, `pi-utils`, ...): the newest earlier
  release of each (npm `overrides`);
- a native addon for the newest `pi-natives` loader (18.2.10; the addon package has
  18.2.3 and 18.2.11): the 18.2.11 addon. The loader refuses an addon of another release
  when it is loaded from `node_modules`, and accepts it, as the fork's own workspace
  builds do, from a directory outside `node_modules`: the install moves `pi-natives` to
  `workspace/pi-natives` (with the addon beside its loader) and links it back.

Modules of the fork that still do not load against these siblings leave their ops out
of `hello` (reported unsupported).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Final

from ctxspec.conformance.transport.named import InstallError
from ctxspec.conformance.transport.npm_harness import BUN, Home, NpmHarness

__all__ = ["ADAPTER", "HARNESS", "install", "package_files"]

_NATIVES: Final = ("node_modules", "@oh-my-pi", "pi-natives")
_ADDON: Final = ("node_modules", "@oh-my-pi", "pi-natives-linux-x64")
_WORKSPACE: Final = ("workspace", "pi-natives")


def _natives_missing(root: Path) -> str | None:
    """What is missing of the natives loader moved beside its addon."""
    natives = root.joinpath(*_WORKSPACE)
    if not natives.joinpath("package.json").is_file():
        return "workspace/pi-natives/package.json is missing"
    if not any(natives.joinpath("native").glob("*.node")):
        return "the pi-natives addon (workspace/pi-natives/native/*.node) is missing"
    return None


def _place_natives(root: Path) -> None:
    """Move pi-natives out of node_modules (linked back), the addon beside its loader."""
    natives = root.joinpath(*_NATIVES)
    addon = root.joinpath(*_ADDON)
    if not natives.is_dir() or natives.is_symlink():
        raise InstallError("oh-my-pi: npm did not install @oh-my-pi/pi-natives")
    if not addon.is_dir():
        raise InstallError(
            "oh-my-pi: no pi-natives addon for this platform (@oh-my-pi/pi-natives-linux-x64 "
            "is the only one locked)"
        )
    workspace = root.joinpath(*_WORKSPACE)
    workspace.parent.mkdir(parents=True, exist_ok=True)
    natives.rename(workspace)
    natives.symlink_to(os.path.relpath(workspace, natives.parent))
    for binary in addon.glob("*.node"):
        shutil.copy2(binary, workspace / "native" / binary.name)


HARNESS: Final = NpmHarness(
    family="oh-my-pi",
    default_version="18.3.4",
    module=__name__,
    packages=("@oh-my-pi/pi-coding-agent",),
    runtime=BUN,
    size="about 1 min and 1.4 GB",
    command="install",  # `npm ci` refuses this lock (above); the lock must come out unchanged
    after=_place_natives,
    check=_natives_missing,
    env={"PI_OFFLINE": "1", "NO_COLOR": "1"},
    home=Home.XDG,
)
ADAPTER: Final = HARNESS.adapter_path
install: Final = HARNESS.install
package_files: Final = HARNESS.committed
