"""Hypothesis strategies for byte streams: command output as raw chunks.

Bytes chosen for what they do to a streaming decoder and a rolling window: ASCII,
newlines, CR/CRLF, a BOM, whole and *split* multibyte characters, invalid bytes and
truncated sequences; then a way to cut the same bytes into chunks.
"""

from __future__ import annotations

import base64
import itertools

from hypothesis import strategies as st

__all__ = ["byte_streams", "chunked", "cut_points", "encode_chunks", "stream_limits"]

HARD_PIECES = (
    b"a",
    b"xxxxxxxx",
    b"\n",
    b"\r",
    b"\r\n",
    b"\xef\xbb\xbf",  # BOM
    b"\xc3\xa9",  # é
    b"\xe2\x82\xac",  # €
    b"\xf0\x9f\x99\x82",  # 🙂
    b"\xc3",
    b"\xe2\x82",
    b"\xf0\x9f",  # truncated sequences
    b"\xff",
    b"\x80",
    b"\xed\xa0\x80",  # invalid: a lone byte, a stray continuation, an encoded surrogate
)

byte_streams = st.lists(st.sampled_from(HARD_PIECES), max_size=50).map(b"".join)


# where to cut a stream into chunks (positions past its end are clamped)
cut_points = st.lists(st.integers(0, 512), max_size=6)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    """`data` cut at `cuts` (possibly none, possibly empty chunks)."""
    bounds = [0, *sorted(min(c, len(data)) for c in cuts), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


# small limits make the window (4 x maxBytes) cut often on short inputs
stream_limits = st.fixed_dictionaries(
    {"maxLines": st.one_of(st.none(), st.integers(0, 6)), "maxBytes": st.integers(0, 24)}
)


def encode_chunks(chunks: list[bytes]) -> list[str]:
    return [base64.b64encode(c).decode("ascii") for c in chunks]
