"""The outcome of one tool call: the text the model gets, Pi's `details`, or a rejection.

Its own module because every tool renderer returns it: `ctxspec.reference.tools` (read, bash)
and `ctxspec.reference.grep`; so with the byte limit as their notices print it (`LIMIT_SHOWN`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference.truncate import DEFAULT_MAX_BYTES, format_size

__all__ = ["LIMIT_SHOWN", "ToolResult"]

LIMIT_SHOWN: Final = format_size(DEFAULT_MAX_BYTES)  # "50.0KB", as every notice prints it


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """One tool call's outcome: `text` (the single text block), `details`, or a rejection."""

    text: str
    details: dict[str, Any] | None = None
    rejected: bool = False

    def to_pi(self) -> dict[str, Any]:
        result: dict[str, Any] = {"isError": self.rejected, "text": self.text}
        if self.details is not None:
            result["details"] = self.details
        return result
