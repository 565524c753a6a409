"""The whole-number arguments the Codex harness passes on as Codex's own settings.

Codex reads `project_doc_max_bytes` and `tool_output_token_limit` as unsigned integers
and `model_context_window` as a signed one, and refuses any other value when it starts;
a request's `budget`, `limit`, `window` and `usage` are checked here first, so a bad one
is an `InvalidInput` naming the argument rather than a failed run.
"""

from __future__ import annotations

from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput

__all__ = ["whole"]


def whole(
    args: Args, name: str, what: str, *, least: int = 0, required: bool = False
) -> int | None:
    """`args[name]` as a whole number >= `least` (`what` says what it becomes), or None
    when absent or null and not `required`."""
    value = args.get(name)
    if value is None:
        if required:
            raise InvalidInput(name, f"is required ({what})")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise InvalidInput(name, f"must be a whole number ({what})")
    if value < least:
        raise InvalidInput(name, f"must be >= {least} ({what})")
    return int(value)
