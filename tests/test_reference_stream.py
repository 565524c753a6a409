"""The streaming accumulator's fast path over large chunks, against a whole-input oracle.

The conformance properties feed small chunks; these feed chunks larger than the 16 KiB
pieces the accumulator validates in, with characters split across pieces and chunks and
invalid bytes anywhere, and check every counter against one `bytes.decode` of the input.
"""

from __future__ import annotations

import codecs
import itertools
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import stream
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


def _python_scan(data: bytes) -> tuple[int, int, int, int]:
    """What the C scan must answer, from CPython's strict incremental decoder."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    try:
        decoder.decode(data)
    except UnicodeDecodeError:
        return (0, 0, 0, -1)
    pending = len(decoder.getstate()[0])
    return (1, data.count(b"\n"), pending, data.rfind(b"\n"))


_BYTES = st.one_of(
    st.binary(max_size=64),
    st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.lists(_PIECES, max_size=30).map(b"".join),
)


@pytest.mark.skipif(stream._SCAN is None, reason="reference._speedups is not built here")
@settings(max_examples=2000, deadline=None)
@given(head=_BYTES, tail=_BYTES)
def test_c_scan_agrees_with_the_strict_decoder(head: bytes, tail: bytes) -> None:
    data = head + tail
    assert stream._SCAN is not None
    valid, newlines, pending, last = stream._SCAN(data)
    expected = _python_scan(data)
    if expected[0] and expected[2] and not valid:
        # a truncated ED A0..BF (a surrogate's start) at the very end: CPython defers the
        # check, the C scan refuses now; both then decode that chunk the same way
        assert data[-expected[2]] == 0xED
        return
    assert (valid, newlines, pending, last) == expected


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=_large_input())
def test_pure_python_path_gives_the_same_snapshot(
    drawn: tuple[bytes, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With and without the C scan, every counter and the content are the same."""
    data, cuts = drawn
    fast = _feed(data, cuts).snapshot()
    with monkeypatch.context() as patch:
        patch.setattr(stream, "_SCAN", None)
        slow = _feed(data, cuts).snapshot()
    assert fast == slow


def test_speedups_are_built_in_ci() -> None:
    """CI builds the C scan; a silent compile failure would halve the benchmarks."""
    if not os.environ.get("CI"):
        pytest.skip("only CI requires the compiled speedup")
    assert stream._SCAN is not None


_EDGES = [
    b"\xc0\x80",
    b"\xc1\xbf",
    b"\xc2\x80",
    b"\xdf\xbf",
    b"\xe0\x80\x80",
    b"\xe0\x9f\xbf",
    b"\xe0\xa0\x80",
    b"\xed\x9f\xbf",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xee\x80\x80",
    b"\xef\xbf\xbf",
    b"\xf0\x8f\xbf\xbf",
    b"\xf0\x90\x80\x80",
    b"\xf4\x8f\xbf\xbf",
    b"\xf4\x90\x80\x80",
    b"\xf5\x80\x80\x80",
    b"\xff",
    b"\x80",
    b"\xbf",
    b"\xe2\x82",
    b"\xe2\x82\xac",
    b"\xf0\x9f\x99",
    b"\xe2\x28\xa1",
    b"\xf0\x9f\x99\x82\n",
]


@pytest.mark.skipif(stream._SCAN is None, reason="reference._speedups is not built here")
@pytest.mark.parametrize("edge", _EDGES, ids=lambda b: b.hex())
@pytest.mark.parametrize("prefix", [b"", b"a\n" * 9, b"x" * 7])
def test_c_scan_edges(edge: bytes, prefix: bytes) -> None:
    """Overlongs, surrogates, past U+10FFFF, stray and unfinished bytes, after 0-18 ASCII."""
    for data in (prefix + edge, prefix + edge + b"\n", prefix + edge[:-1]):
        assert stream._SCAN is not None
        got, expected = stream._SCAN(data), _python_scan(data)
        if expected[0] and expected[2] and data[-expected[2]] == 0xED and not got[0]:
            continue  # CPython defers the check of an unfinished surrogate (see above)
        assert got == expected, data
