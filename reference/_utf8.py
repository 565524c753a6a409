"""UTF-8 as Node's `Buffer` sees a JavaScript string.

`Buffer.byteLength(s)` and `Buffer.from(s)` encode a lone surrogate as U+FFFD (3 bytes,
`EF BF BD`); `buf.toString()` decodes invalid sequences to U+FFFD. These helpers give the
same bytes and counts for a canonical string (see `_utf16.canonical`).
"""

from __future__ import annotations

import codecs

from ctxspec.reference._utf16 import has_surrogates

__all__ = ["byte_length", "decode", "encode", "is_continuation"]

_REPLACEMENT_BYTES = "\ufffd".encode()


def encode(text: str) -> bytes:
    """`Buffer.from(text, "utf8")`: lone surrogates become `EF BF BD`."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace_lone_surrogate")


def byte_length(text: str) -> int:
    """`Buffer.byteLength(text, "utf8")`.

    >>> byte_length("A\\u00e9\\U0001f642\\ud83d")
    10
    """
    if text.isascii():
        return len(text)
    if not has_surrogates(text):
        return len(text.encode("utf-8"))
    # a lone surrogate is 3 bytes either way: surrogatepass keeps the count and skips a copy
    return len(text.encode("utf-8", "surrogatepass"))


def decode(data: bytes) -> str:
    """`buf.toString("utf8")`: each maximal invalid subpart becomes one U+FFFD."""
    return data.decode("utf-8", "replace")


def is_continuation(byte: int) -> bool:
    """A `10xxxxxx` byte, which cannot start a character."""
    return byte & 0xC0 == 0x80


def _replace_lone_surrogate(error: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    # the UTF-8 encoder takes only ASCII text from a handler, so hand it the bytes
    return _REPLACEMENT_BYTES * (error.end - error.start), error.end


codecs.register_error("replace_lone_surrogate", _replace_lone_surrogate)
