"""Harnesses: the third-party implementations ctxspec installs, one package per family.

Each family's package declares itself in its `__init__` as `HARNESS`, data that says what
to install and how its adapter runs:

- an npm family (the real Pi, its forks, other agents from npm): an
  `npm_harness.NpmHarness`, its locks in `locks/<version>/` and its adapter
  (`adapter.mjs`, run by the lock's Node or Bun, or `adapter.py`, a black-box driver run
  by ctxspec's Python); Pi's declaration takes any published version (`AnyVersion`);
- a PyPI port: a `pyvenv.PypiPort`, its pins in `pins/<version>.txt` and its `adapter.py`,
  run in the port's private venv.

`declarations()` reads them, and `--impl` resolves from it (`transport.named.FAMILIES`),
as do `ctxspec impl list` and the docs' family table (`tools/families_table.py`): no list
of the families is typed anywhere. `kit/` is what every harness of a language shares
(one protocol loop and one tree layout per language), not a family. This package's own
engines (`reference`, `fastengine`) are in `ctxspec.conformance.engines`.

Adapters convert shapes between protocol v1 and the implementation's API and never fix
behaviour: what an implementation does differently is a finding for its expectations
file (`conformance/expectations/`).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Final, Protocol

from ctxspec.conformance.transport.named import Family, Launch

__all__ = ["SHARED", "Declaration", "declarations"]

SHARED: Final = ("kit",)  # packages here that are no family


class Declaration(Protocol):
    """What a harness package's `HARNESS` is (`NpmHarness`, `PypiPort`)."""

    @property
    def family(self) -> str: ...

    @property
    def entry(self) -> Family: ...

    def install(self, version: str, *, quiet: bool = False) -> Launch: ...


def declarations() -> list[Declaration]:
    """Every family's declaration, by package name; a package without one is an error."""
    found = []
    for package in pkgutil.iter_modules(__path__):
        if not package.ispkg or package.name in SHARED:
            continue
        module = importlib.import_module(f"{__name__}.{package.name}")
        declared: Declaration | None = getattr(module, "HARNESS", None)
        if declared is None:
            raise TypeError(f"{module.__name__} declares no HARNESS (NpmHarness or PypiPort)")
        found.append(declared)
    return found
