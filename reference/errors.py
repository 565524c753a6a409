"""The engine's one error root: `InvalidInput`, the caller's fault, naming the field.

Anything else escaping the engine is a bug in the engine.
"""

from __future__ import annotations

__all__ = ["InvalidInput"]


class InvalidInput(ValueError):
    """An argument outside the domain the engine (and the protocol) accepts."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
