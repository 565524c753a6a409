"""The streaming accumulator's fast path over large chunks, against a whole-input oracle.

The conformance properties feed small chunks; these feed chunks larger than the 16 KiB
pieces the accumulator validates in, with characters split across pieces and chunks and
invalid bytes anywhere, and check every counter against one `bytes.decode` of the input.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from reference.stream import OutputAccumulator

_PIECES = st.sampled_from(
    [
        b"a",
        b"\n",
        b"\r\n",
        "é".encode(),
        "中".encode(),
        "🙂".encode(),
        b"\xff",
        b"\xe4\xb8",
        b"\xc3",
    ]
)


@st.composite
def _large_input(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    # runs of one piece, so a draw reaches tens of KiB without thousands of draws
    runs = draw(st.lists(st.tuples(_PIECES, st.integers(1, 9000)), min_size=1, max_size=12))
    data = b"".join(piece * count for piece, count in runs)
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=6)))
    return data, cuts


def _feed(data: bytes, cuts: list[int]) -> OutputAccumulator:
    accumulator = OutputAccumulator(retain_raw=False)
    bounds = [0, *cuts, len(data)]
    for start, end in itertools.pairwise(bounds):
        accumulator.append(data[start:end])
    accumulator.finish()
    return accumulator


@settings(max_examples=150, deadline=None)
@given(drawn=_large_input())
def test_counters_equal_one_decode_of_the_whole_input(drawn: tuple[bytes, list[int]]) -> None:
    data, cuts = drawn
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    decoded = text.encode("utf-8")
    snapshot = _feed(data, cuts).snapshot()
    assert snapshot.total_raw_bytes == len(data)
    assert snapshot.truncation.total_bytes == len(decoded)
    newlines = decoded.count(b"\n")
    lines = newlines + (1 if decoded and not decoded.endswith(b"\n") else 0)
    assert snapshot.truncation.total_lines == lines
    assert snapshot.last_line_bytes == len(decoded) - decoded.rfind(b"\n") - 1
    # the tail shown is a suffix of the text (a final "\n" may be dropped, TRUNC-3)
    assert text.removesuffix("\n").endswith(snapshot.content) or text.endswith(snapshot.content)


def test_character_split_across_a_validation_piece_and_a_chunk() -> None:
    """A 4-byte character across the 16 KiB piece boundary, then one across chunks."""
    emoji = "🙂".encode()
    first = b"a" * (16 * 1024 - 2) + emoji + b"b" * 100 + emoji[:3]
    second = emoji[3:] + b"\n"
    accumulator = OutputAccumulator(retain_raw=False)
    accumulator.append(first)
    accumulator.append(second)
    accumulator.finish()
    snapshot = accumulator.snapshot()
    assert snapshot.truncation.total_bytes == len(first) + len(second)
    assert snapshot.content.endswith("b🙂\n")
