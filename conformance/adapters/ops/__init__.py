"""The reference's answer to each op, one module per concern (each exports `HANDLERS`).

A handler takes the op's wire arguments (already JSON) and returns the wire result,
calling `reference/`; `InvalidInput` from the engine becomes an `invalid_input` error.
Modules are found by name, so adding a concern means adding a module here.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Handler", "all_handlers"]

Handler = Callable[[Mapping[str, Any]], Any]


def all_handlers() -> dict[str, Handler]:
    handlers: dict[str, Handler] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        table: dict[str, Handler] = getattr(module, "HANDLERS", {})
        clash = set(table) & set(handlers)
        if clash:
            raise ValueError(f"{module_info.name} handles ops already handled: {sorted(clash)}")
        handlers.update(table)
    return handlers
