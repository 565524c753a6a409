"""Implementations under test, by the name given to `--impl`.

- `reference`: the engine in this process (the default);
- `pi@0.85.0`: the real Pi through `pi/adapter.mjs` (installed into the cache on first use);
- anything else: a command line speaking protocol v1 on stdio (split like a shell would).
"""

from __future__ import annotations

import os
import shlex

from conformance.adapters.base import Implementation, Reply
from conformance.adapters.pi import PI_VERSION, ensure_installed
from conformance.adapters.reference import ReferenceImplementation
from conformance.adapters.wire import WireImplementation

__all__ = ["NAMED", "Implementation", "Reply", "open_implementation"]

PI_NAME = f"pi@{PI_VERSION}"
NAMED = ("reference", PI_NAME)


def open_implementation(spec: str, *, timeout: float = 30.0) -> Implementation:
    """The implementation `spec` names; a command is started lazily, on its first call."""
    if spec == "reference":
        return ReferenceImplementation()
    if spec in (PI_NAME, "pi"):
        install = ensure_installed()
        env = dict(os.environ, PI_OFFLINE="1", NODE_NO_WARNINGS="1")
        return WireImplementation(install.argv, name=PI_NAME, timeout=timeout, env=env)
    argv = shlex.split(spec)
    if not argv:
        raise ValueError("--impl needs `reference`, `pi@0.85.0` or a command")
    return WireImplementation(argv, name=spec, timeout=timeout)
