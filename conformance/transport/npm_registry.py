"""What the npm registry says about a package: its releases, and a manifest for a release
that has no committed lock.

An npm harness that takes any version (`npm_harness.AnyVersion`, Pi's) installs a
release with no lock from a manifest made here: the package at exactly that version,
its siblings of the same scope pinned to that version too (npm `overrides`), and the
runtime's package. `npm install` resolves the rest; `ctxspec impl lock FAMILY@VERSION`
commits what it resolved. This module asks npm (`npm view`) and nothing else.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any, Final

from ctxspec.conformance.transport.named import InstallError

__all__ = ["RELEASE", "manifest", "npm", "registry_json", "registry_versions", "version_key"]

RELEASE: Final = re.compile(r"\d+\.\d+\.\d+")


def version_key(version: str) -> tuple[int, ...]:
    """`1.10.0` -> (1, 10, 0), so releases sort as numbers."""
    return tuple(int(part) for part in version.split("."))


def npm(needed_for: str) -> str:
    """The `npm` on PATH; refused naming what it is needed for."""
    found = shutil.which("npm")
    if found is None:
        raise InstallError(
            f"npm is not on PATH: it is needed once, to install {needed_for} from the npm "
            "registry (install Node.js with npm)"
        )
    return found


def registry_json(npm: str, spec: str, *fields: str) -> Any:
    """`npm view SPEC FIELDS --json`, parsed; None where the registry has nothing."""
    completed = subprocess.run(
        [npm, "view", spec, *fields, "--json"], capture_output=True, text=True, check=False
    )
    if completed.returncode != 0 or not completed.stdout.strip():
        return None
    return json.loads(completed.stdout)


def registry_versions(package: str) -> list[str]:
    """Every version of `package` the npm registry has (`npm view PACKAGE versions`)."""
    published = registry_json(npm(package), package, "versions")
    if published is None:
        raise InstallError(f"cannot list the releases of {package} from the npm registry")
    return [published] if isinstance(published, str) else list(published)


def manifest(
    package: str,
    version: str,
    npm: str,
    *,
    name: str,
    description: str,
    also: tuple[str, ...] = (),
    optional: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A package.json installing `package@version`, from the registry's metadata for it.

    Its dependencies of its own scope are pinned to `version` (`overrides`); `also` are
    packages of that scope installed beside it where published at `version`; `optional`
    are optional dependencies (the runtime's package).
    """
    scope = package.split("/", maxsplit=1)[0]
    meta = registry_json(npm, f"{package}@{version}", "version", "dependencies")
    if not isinstance(meta, dict) or meta.get("version") != version:
        raise InstallError(f"{package}@{version} is not published on the npm registry")
    siblings = sorted(name for name in meta.get("dependencies") or {} if name.startswith(scope))
    overrides = {sibling: _sibling_version(npm, sibling, package, version) for sibling in siblings}
    dependencies = {package: version}
    for extra in also:
        if registry_json(npm, f"{scope}/{extra}@{version}", "version") == version:
            dependencies[f"{scope}/{extra}"] = version
    return {
        "name": name,
        "private": True,
        "type": "module",
        "description": description,
        "dependencies": dependencies,
        "optionalDependencies": dict(optional or {}),
        "overrides": overrides,
    }


def _sibling_version(npm: str, name: str, package: str, version: str) -> str:
    """`version` itself where `name` was published at it, else its newest release before.

    Some releases declare a sibling at a version that was never published (Pi 1.0.3 asks
    for `chord@^1.0.3`; chord ends at 0.87.1), so the package cannot be installed as
    declared; the newest earlier release stands in for it.
    """
    published = registry_json(npm, name, "versions")
    versions = [published] if isinstance(published, str) else list(published or [])
    if version in versions:
        return version
    key = version_key(version)
    earlier = [v for v in versions if RELEASE.fullmatch(v) and version_key(v) < key]
    if not earlier:
        raise InstallError(
            f"{name}, a dependency of {package}@{version}, has no release at or before it"
        )
    return max(earlier, key=version_key)
