"""ctxspec's reference engine: Pi 0.85.0's context rules as pure Python functions.

Every function takes `str`/`bytes`/plain data and returns frozen values whose `to_pi()`
gives Pi's JSON shape. Names are Pi's, in snake_case.
"""

from __future__ import annotations

from reference.errors import InvalidInput
from reference.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    LINE_TRUNCATION_SUFFIX,
    LineTruncation,
    TruncatedBy,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "GREP_MAX_LINE_LENGTH",
    "LINE_TRUNCATION_SUFFIX",
    "InvalidInput",
    "LineTruncation",
    "TruncatedBy",
    "TruncationResult",
    "format_size",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]
