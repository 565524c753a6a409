"""Implementations ctxspec installs itself, by the name given to `--impl NAME@VERSION`.

Each family is a harness package (`ctxspec.conformance.harnesses.<name>`) that declares
itself (`HARNESS`: an `npm_harness.NpmHarness` or a `pyvenv.PypiPort`) and has
`install(version, *, quiet) -> Launch`: it installs that exact version into the cache on
first use (npm, or a private venv for PyPI ports) and says how to start its adapter.
`FAMILIES` is read from the declarations; a declaration is data, and a family's toolchain
(npm, Node, Bun) is asked for only when that family is installed, so a missing one never
breaks the others.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

__all__ = [
    "ENGINE_NAMES",
    "FAMILIES",
    "Family",
    "InstallError",
    "Launch",
    "NamedSpec",
    "install",
    "parse_named",
]


# this package's own engines, which nothing installs: `--impl reference` (the oracle) and
# `--impl fastengine` (ctxspec.conformance.transport.resolve.ENGINES runs and serves them)
ENGINE_NAMES: Final = ("reference", "fastengine")


class InstallError(RuntimeError):
    """An implementation could not be installed or started; the message names the missing piece."""


@dataclass(frozen=True, slots=True)
class Launch:
    """How to start an installed implementation's adapter."""

    argv: list[str]
    env: Mapping[str, str] = field(default_factory=dict)  # added to the runner's environment
    name: str = ""
    # ops this machine cannot serve, each with what is missing (their cases are errors)
    unavailable: Mapping[str, str] = field(default_factory=dict)
    confined: bool = False  # an agent: `env` is its whole environment, run in `confine`
    timeout: float = 0.0  # the least seconds a request may take, whatever `--timeout` says


class _Installer(Protocol):
    def __call__(self, version: str, *, quiet: bool = False) -> Launch: ...


@dataclass(frozen=True, slots=True)
class Family:
    """A named implementation: where it comes from and which module installs it."""

    name: str
    default_version: str
    module: str  # has `install(version, *, quiet) -> Launch`
    source: str  # for humans: the registry package it comes from

    def installer(self) -> _Installer:
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as error:
            raise InstallError(f"{self.name}: its adapter is missing ({error})") from None
        installer: _Installer = module.install
        return installer


class _Families(Mapping[str, Family]):
    """The families by `--impl` name, read from the harness packages' declarations on first
    use (`ctxspec.conformance.harnesses.declarations`), so no list of them can go stale."""

    def __init__(self) -> None:
        self._table: dict[str, Family] | None = None

    def _read(self) -> dict[str, Family]:
        if self._table is None:
            harnesses = importlib.import_module("ctxspec.conformance.harnesses")
            self._table = {d.family: d.entry for d in harnesses.declarations()}
        return self._table

    def __getitem__(self, name: str) -> Family:
        return self._read()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


FAMILIES: Final[Mapping[str, Family]] = _Families()

_SPEC = re.compile(
    r"(?P<family>[a-z][a-z0-9-]*)(?:@(?P<version>\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?))?"
)


@dataclass(frozen=True, slots=True)
class NamedSpec:
    family: Family
    version: str

    @property
    def name(self) -> str:
        return f"{self.family.name}@{self.version}"


def parse_named(spec: str) -> NamedSpec | None:
    """`pi@1.6.0` -> (pi, 1.6.0); a bare family name takes its default version; else None."""
    match = _SPEC.fullmatch(spec.strip())
    if match is None or match["family"] not in FAMILIES:
        return None
    family = FAMILIES[match["family"]]
    return NamedSpec(family, match["version"] or family.default_version)


def install(spec: NamedSpec, *, quiet: bool = False) -> Launch:
    """Install (on first use) and describe the start of a named implementation."""
    launch = spec.family.installer()(spec.version, quiet=quiet)
    return Launch(
        argv=launch.argv,
        env=launch.env,
        name=launch.name or spec.name,
        unavailable=launch.unavailable,
        confined=launch.confined,
        timeout=launch.timeout,
    )
