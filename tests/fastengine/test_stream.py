"""The fast engine's streaming tail (`ctxspec.fastengine.stream`) against the reference's.

The accumulator decoding in C gives the reference's snapshot, after every append and
after `finish()`, on large inputs cut anywhere and on ill-formed chunks with windows of a
few bytes; the C decoder gives `ctxspec.reference.stream.decode_chunk`'s answer, and the WHATWG
decoder's output, on every boundary class and edge; its appending variant writes that
output onto the window. CI builds the extension, so there the C paths are always tested.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stream_inputs import BYTES, ILL_FORMED, chunked_classes, large_input, oracle, output

from ctxspec.fastengine import compaction, session, tree, walks
from ctxspec.fastengine import stream as fast
from ctxspec.reference import stream as plain
from ctxspec.reference.edge.persist import persist_stream

needs_c = pytest.mark.skipif(
    fast.DECODE is None, reason="ctxspec.fastengine._speedups is not built here"
)


def _snapshots(accumulator: plain.OutputAccumulator, chunks: list[bytes]) -> list[object]:
    seen: list[object] = []
    for chunk in chunks:
        accumulator.append(chunk)
        seen.append(accumulator.snapshot())
    accumulator.finish()
    return [*seen, accumulator.snapshot(), accumulator.take_raw()]


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(min(cut, len(data)) for cut in cuts), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


@settings(max_examples=100, deadline=None)
@given(drawn=large_input())
def test_large_inputs_give_the_references_snapshots(drawn: tuple[bytes, list[int]]) -> None:
    """Every counter and the content are the reference's, whatever the chunking."""
    data, cuts = drawn
    chunks = _chunks(data, cuts)
    expected = _snapshots(plain.OutputAccumulator(retain_raw=False), chunks)
    assert _snapshots(fast.OutputAccumulator(retain_raw=False), chunks) == expected


@settings(max_examples=500, deadline=None)
@given(chunks=chunked_classes(), max_bytes=st.integers(0, 8))
def test_chunks_of_every_boundary_class(chunks: list[bytes], max_bytes: int) -> None:
    """Every UTF-8 boundary class in small chunks: the reference's snapshots."""
    expected = _snapshots(plain.OutputAccumulator(max_bytes=max_bytes), chunks)
    assert _snapshots(fast.OutputAccumulator(max_bytes=max_bytes), chunks) == expected


@settings(max_examples=300, deadline=None)
@given(
    data=ILL_FORMED, cuts=st.lists(st.integers(0, 400), max_size=12), max_bytes=st.integers(0, 64)
)
def test_ill_formed_chunks_give_the_references_snapshot_after_each_append(
    data: bytes, cuts: list[int], max_bytes: int
) -> None:
    """Invalid UTF-8 cut anywhere, windows of a few bytes: the C scan writing each chunk's
    output onto the window and trimming it there gives the snapshot the reference gives,
    after every append and after `finish()`."""
    chunks = _chunks(data, cuts)
    expected = _snapshots(plain.OutputAccumulator(max_bytes=max_bytes), chunks)
    assert _snapshots(fast.OutputAccumulator(max_bytes=max_bytes), chunks) == expected


def test_persist_stream_takes_the_fast_accumulator(tmp_path: Path) -> None:
    """`fastengine.persist_stream` persists what the edge persists, with the same snapshot."""
    chunks = [b"x" * 40_000 + b"\n", b"\xff" * 30_000, b"y\n" * 5]
    (tmp_path / "fast").mkdir()
    done = fast.persist_stream(chunks, directory=tmp_path / "fast", persist_if_truncated=True)
    expected = persist_stream(chunks, directory=tmp_path, persist_if_truncated=True)
    assert done.snapshot == expected.snapshot
    assert done.path is not None and expected.path is not None
    assert done.path.read_bytes() == expected.path.read_bytes() == b"".join(chunks)


def test_speedups_are_built_in_ci() -> None:
    """CI builds the C passes; a silent compile failure would halve the benchmarks."""
    if not os.environ.get("CI"):
        pytest.skip("only CI requires the compiled speedups")
    assert fast.DECODE is not None and fast.APPEND is not None
    assert tree._C_SCAN is not None and session._C_ARRAY is not None
    assert session._C_LINES is not None and session._C_UNTRACK is not None
    assert compaction.C_SCAN_WITH_CALLS is not None and walks.C_BUDGET_REACHED_AT is not None


@settings(max_examples=2000, deadline=None)
@given(head=BYTES, tail=BYTES, start=st.integers(0, 8))
@needs_c
def test_c_decoder_is_decode_chunk(head: bytes, tail: bytes, start: int) -> None:
    """The C decoder gives `ctxspec.reference.stream.decode_chunk`'s answer."""
    data = head + tail
    start = min(start, len(data))
    start = next(i for i in range(start, len(data) + 1) if i == len(data) or data[i] < 0x80)
    assert fast.DECODE is not None
    assert fast.DECODE(data, start) == plain.decode_chunk(data, start)


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


@needs_c
@pytest.mark.parametrize("edge", _EDGES, ids=lambda b: b.hex())
@pytest.mark.parametrize("prefix", [b"", b"a\n" * 9, b"x" * 7])
def test_c_decoder_edges(edge: bytes, prefix: bytes) -> None:
    """Overlongs, surrogates, past U+10FFFF, stray and unfinished bytes, after 0-18 ASCII."""
    for data in (prefix + edge, prefix + edge + b"\n", prefix + edge[:-1], edge * 3):
        assert fast.DECODE is not None
        got = fast.DECODE(data, 0)
        assert got == plain.decode_chunk(data), data
        assert (output(data, 0, got), got[2]) == oracle(data, 0), data


@needs_c
@settings(max_examples=1000, deadline=None)
@given(window=st.binary(max_size=12), data=BYTES, start=st.integers(0, 8))
def test_append_decoded_writes_decode_utf8s_output_onto_the_window(
    window: bytes, data: bytes, start: int
) -> None:
    """`append_decoded` answers as `decode_utf8` does; an ill-formed input's output is
    appended to the window (its size in place of the bytes), a well-formed one leaves the
    window as it was (-1)."""
    start = next(
        i for i in range(min(start, len(data)), len(data) + 1) if i == len(data) or data[i] < 0x80
    )
    assert fast.APPEND is not None and fast.DECODE is not None
    decoded, *counts = fast.DECODE(data, start)
    held = bytearray(window)
    appended, *appended_counts = fast.APPEND(held, data, start)
    assert appended_counts == counts
    if decoded is None:
        assert (appended, held) == (-1, window)
    else:
        assert (appended, held) == (len(decoded), window + decoded)
