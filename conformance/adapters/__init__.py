"""Implementations under test, by the name given to `--impl`.

- `reference`: the engine in this process (the default);
- `NAME@VERSION` of a family ctxspec installs (`pi@1.6.0`, `pi-agents-py@0.58.3`,
  ...; see `named.FAMILIES`): installed into the cache on first
  use, then started from it; a bare family name takes its default version;
- anything else: a command line speaking protocol v1 on stdio (split like a shell would).
"""

from __future__ import annotations

import os
import shlex

from conformance.adapters.base import Implementation, Reply
from conformance.adapters.named import FAMILIES, InstallError, install, parse_named
from conformance.adapters.pi import PI_VERSION
from conformance.adapters.reference import ReferenceImplementation
from conformance.adapters.wire import WireImplementation

__all__ = [
    "FAMILIES",
    "PI_NAME",
    "Implementation",
    "InstallError",
    "Reply",
    "canonical_name",
    "open_implementation",
    "prepare",
]

PI_NAME = f"pi@{PI_VERSION}"


def canonical_name(spec: str) -> str:
    """`pi` -> `pi@0.85.0`; a named implementation's full name, else `spec` itself."""
    named = parse_named(spec)
    return named.name if named is not None else spec


def prepare(spec: str, *, quiet: bool = False) -> None:
    """Install a named implementation now (before pytest starts), so progress and errors show."""
    named = parse_named(spec)
    if named is not None:
        install(named, quiet=quiet)


def open_implementation(spec: str, *, timeout: float = 30.0) -> Implementation:
    """The implementation `spec` names; a command is started lazily, on its first call."""
    if spec == "reference":
        return ReferenceImplementation()
    named = parse_named(spec)
    if named is not None:
        launch = install(named, quiet=True)
        env = dict(os.environ, **launch.env)
        return WireImplementation(
            launch.argv,
            name=launch.name,
            timeout=timeout,
            env=env,
            unavailable=launch.unavailable,
        )
    argv = shlex.split(spec)
    if not argv:
        raise ValueError(
            f"--impl needs `reference`, one of {sorted(FAMILIES)}@VERSION or a command"
        )
    return WireImplementation(argv, name=spec, timeout=timeout)
