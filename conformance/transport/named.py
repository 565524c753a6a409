"""Implementations ctxspec installs itself, by the name given to `--impl NAME@VERSION`.

Each family is a module with `install(version, *, quiet) -> Launch`: it installs that
exact version into the cache on first use (npm, or a private venv for PyPI ports) and
says how to start its adapter. Modules are imported only when their family is asked
for, so a family's missing toolchain never breaks the others.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
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


FAMILIES: Final[Mapping[str, Family]] = {
    family.name: family
    for family in (
        Family(
            "pi",
            "0.85.0",
            "ctxspec.conformance.harnesses.pi",
            "npm @earendil-works/pi-coding-agent",
        ),
        Family(
            "oh-my-pi",
            "18.3.4",
            "ctxspec.conformance.harnesses.oh_my_pi",
            "npm @oh-my-pi/pi-coding-agent",
        ),
        Family("cline", "0.0.86", "ctxspec.conformance.harnesses.cline", "npm @cline/core"),
        Family(
            "gemini-cli",
            "0.61.0",
            "ctxspec.conformance.harnesses.gemini_cli",
            "npm @google/gemini-cli-core",
        ),
        Family("codex", "0.171.0", "ctxspec.conformance.harnesses.codex", "npm @openai/codex"),
        Family(
            "pi-agents-py",
            "0.58.3",
            "ctxspec.conformance.harnesses.pi_agents_py",
            "PyPI pi-agents-py",
        ),
        Family(
            "pi-agent-harness-lc",
            "0.6.0",
            "ctxspec.conformance.harnesses.pi_agent_harness_lc",
            "PyPI pi-agent-harness-lc",
        ),
    )
}

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
    )
