"""Resolution: the implementation under test, by the name given to `--impl`.

- `reference`: the engine in this process (the default);
- `fastengine`: the fast engine (`fastengine/`) in this process;
- `NAME@VERSION` of a family ctxspec installs (`pi@1.6.0`, `pi-agents-py@0.58.3`,
  ...; see `named.FAMILIES`): installed into the cache on first
  use, then started from it; a bare family name takes its default version;
- anything else: a command line speaking protocol v1 on stdio (split like a shell would).
"""

from __future__ import annotations

import importlib
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from typing import Final

from ctxspec.conformance.transport.base import Implementation, Reply
from ctxspec.conformance.transport.named import (
    ENGINE_NAMES,
    FAMILIES,
    InstallError,
    install,
    parse_named,
)
from ctxspec.conformance.transport.wire import WireImplementation

__all__ = [
    "ENGINES",
    "FAMILIES",
    "PI_NAME",
    "Implementation",
    "InstallError",
    "Reply",
    "canonical_name",
    "engine_command",
    "open_implementation",
    "prepare",
]

PI_NAME: Final = f"pi@{FAMILIES['pi'].default_version}"

# the engines of this package, by `--impl` name, each the harness module that runs it in
# this process (its `in_process()`, for `conform`) and serves it over the wire (`python -m
# <module>`, what `bench` starts); found by name, as `named.FAMILIES` are
ENGINES: Final[Mapping[str, str]] = {
    "reference": "ctxspec.conformance.engines.reference",
    "fastengine": "ctxspec.conformance.engines.fastengine",
}
assert tuple(ENGINES) == ENGINE_NAMES


def engine_command(spec: str) -> list[str] | None:
    """The command serving the engine `spec` over protocol v1 on stdio, or None."""
    module = ENGINES.get(spec)
    return None if module is None else [sys.executable, "-m", module]


def _in_process(spec: str) -> Implementation:
    opened: Callable[[], Implementation] = importlib.import_module(ENGINES[spec]).in_process
    return opened()


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
    if spec in ENGINES:
        return _in_process(spec)
    named = parse_named(spec)
    if named is not None:
        launch = install(named, quiet=True)
        env = dict(launch.env) if launch.confined else dict(os.environ, **launch.env)
        return WireImplementation(
            launch.argv,
            name=launch.name,
            timeout=max(timeout, launch.timeout),
            env=env,
            unavailable=launch.unavailable,
            confined=launch.confined,
        )
    argv = shlex.split(spec)
    if not argv:
        raise ValueError(
            f"--impl needs one of {sorted(ENGINES)}, {sorted(FAMILIES)}@VERSION or a command"
        )
    return WireImplementation(argv, name=spec, timeout=timeout)
