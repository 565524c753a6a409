"""truncate.head, truncate.tail, truncate.line, format.size."""

from __future__ import annotations

from typing import Final

from ctxspec import reference
from ctxspec.conformance.engines.reference.ops import Handler

HANDLERS: Final[dict[str, Handler]] = {
    "truncate.head": lambda a: reference.truncate_head(
        a["content"], max_lines=a.get("maxLines"), max_bytes=a.get("maxBytes")
    ).to_pi(),
    "truncate.tail": lambda a: reference.truncate_tail(
        a["content"], max_lines=a.get("maxLines"), max_bytes=a.get("maxBytes")
    ).to_pi(),
    "truncate.line": lambda a: reference.truncate_line(a["line"], a.get("maxChars")).to_pi(),
    "format.size": lambda a: reference.format_size(a["bytes"]),
}
