"""The streaming accumulator's decoding, its C and pure-Python paths, against oracles.

The conformance properties feed small chunks; these also feed chunks larger than the
16 KiB pieces the pure path validates in, with characters split across pieces and chunks
and invalid bytes anywhere, and check every counter against one `bytes.decode` of the
input. Small chunks of every UTF-8 boundary class are checked against the WHATWG
decoder as its standard writes it (`_Whatwg`, byte by byte), and the C decoder against
the pure-Python one, answer for answer and snapshot for snapshot.
"""

from __future__ import annotations

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


class _Whatwg:
    """The UTF-8 decoder of the WHATWG Encoding standard, byte by byte as the standard
    writes it (replacement mode, `stream: true`): the independent oracle of both paths."""

    def __init__(self) -> None:
        self.needed = self.seen = 0
        self.lower, self.upper = 0x80, 0xBF
        self.held = bytearray()

    def decode(self, data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            self._byte(byte, out)
        return bytes(out)

    def _byte(self, byte: int, out: bytearray) -> None:
        if self.needed == 0:
            if byte < 0x80:
                out.append(byte)
            elif 0xC2 <= byte <= 0xDF:
                self.needed = 1
            elif 0xE0 <= byte <= 0xEF:
                self.lower = 0xA0 if byte == 0xE0 else 0x80
                self.upper = 0x9F if byte == 0xED else 0xBF
                self.needed = 2
            elif 0xF0 <= byte <= 0xF4:
                self.lower = 0x90 if byte == 0xF0 else 0x80
                self.upper = 0x8F if byte == 0xF4 else 0xBF
                self.needed = 3
            else:
                out += REPLACEMENT
                return
            if self.needed:
                self.held = bytearray([byte])
            return
        if not self.lower <= byte <= self.upper:
            self.needed = self.seen = 0
            self.lower, self.upper = 0x80, 0xBF
            self.held.clear()
            out += REPLACEMENT
            self._byte(byte, out)  # the byte is read again
            return
        self.lower, self.upper = 0x80, 0xBF
        self.held.append(byte)
        self.seen += 1
        if self.seen == self.needed:
            out += self.held
            self.needed = self.seen = 0
            self.held.clear()


REPLACEMENT = "\ufffd".encode()

# every class of byte a UTF-8 decoder tells apart, at the edges of each range
BOUNDARY_PIECES = [
    b"a",
    b"\n",
    b"\xef\xbb\xbf",  # BOM
    *(b"\xc2\x80", b"\xdf\xbf", b"\xe0\xa0\x80", b"\xe0\xbf\xbf", b"\xe1\x80\x80"),
    *(b"\xec\xbf\xbf", b"\xed\x80\x80", b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xef\xbf\xbf"),
    *(b"\xf0\x90\x80\x80", b"\xf0\xbf\xbf\xbf", b"\xf1\x80\x80\x80", b"\xf3\xbf\xbf\xbf"),
    *(b"\xf4\x80\x80\x80", b"\xf4\x8f\xbf\xbf"),  # well-formed, first and last of each range
    *(b"\xc0\x80", b"\xc1\xbf"),  # overlong 2-byte leads
    *(b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf"),  # overlong
    *(b"\xed\xa0\x80", b"\xed\xbf\xbf"),  # surrogates
    *(b"\xf4\x90\x80\x80", b"\xf4\xbf\xbf\xbf", b"\xf5\x80\x80\x80", b"\xfe", b"\xff"),
    *(b"\x80", b"\xbf"),  # stray continuation bytes
    *(b"\xc3", b"\xe2\x82", b"\xf0\x9f\x99", b"\xed", b"\xed\x9f", b"\xf4\x8f"),  # unfinished
]
_CLASSED = st.lists(st.sampled_from(BOUNDARY_PIECES), max_size=24).map(b"".join)
_BYTES = st.one_of(
    st.binary(max_size=64),
    st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.lists(_PIECES, max_size=30).map(b"".join),
    _CLASSED,
)


def _oracle(data: bytes, start: int) -> tuple[bytes, int]:
    decoder = _Whatwg()
    return decoder.decode(data[start:]), len(decoder.held)


def _output(data: bytes, start: int, answer: tuple[bytes | None, int, int, int]) -> bytes:
    decoded, _, pending, _ = answer
    return data[start : len(data) - pending] if decoded is None else decoded


@settings(max_examples=2000, deadline=None)
@given(head=_BYTES, tail=_BYTES, start=st.integers(0, 8))
def test_decoders_follow_the_whatwg_decoder(head: bytes, tail: bytes, start: int) -> None:
    """The C decoder and the pure-Python one give the same answer, and it is the WHATWG
    decoder's output of one streaming decode, with its held bytes as `pending`."""
    data = head + tail
    start = min(start, len(data))
    # only between characters: a start inside a sequence is not how the accumulator calls it
    start = next(i for i in range(start, len(data) + 1) if i == len(data) or data[i] < 0x80)
    slow = stream._decode_python(data, start)
    expected, held = _oracle(data, start)
    assert (_output(data, start, slow), slow[2]) == (expected, held)
    assert slow[1] == expected.count(b"\n") and slow[3] == expected.rfind(b"\n")
    if stream._DECODE is not None:
        assert stream._DECODE(data, start) == slow


@st.composite
def _chunked_classes(draw: st.DrawFn) -> list[bytes]:
    data = draw(_CLASSED)
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=8)))
    return [data[a:b] for a, b in itertools.pairwise([0, *cuts, len(data)])]


@settings(
    max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    chunks=_chunked_classes(),
    max_bytes=st.integers(0, 8),
    finish=st.booleans(),
)
def test_chunks_of_every_boundary_class(
    chunks: list[bytes], max_bytes: int, finish: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counters equal the WHATWG decoder's output of the same chunks (a bad byte replaced
    the moment it arrives, ED A0 included), on both paths, which give the same snapshot."""
    decoder = _Whatwg()
    text = b"".join(decoder.decode(chunk) for chunk in chunks)
    if finish and decoder.held:
        text += REPLACEMENT
    text = text.removeprefix(b"\xef\xbb\xbf")

    def feed() -> OutputAccumulator:
        accumulator = OutputAccumulator(max_bytes=max_bytes, retain_raw=False)
        for chunk in chunks:
            accumulator.append(chunk)
        if finish:
            accumulator.finish()
        return accumulator

    fast = feed().snapshot()
    assert fast.truncation.total_bytes == len(text)
    assert fast.last_line_bytes == len(text) - text.rfind(b"\n") - 1
    with monkeypatch.context() as patch:
        patch.setattr(stream, "_DECODE", None)
        slow = feed().snapshot()
    assert fast == slow


def test_window_trimmed_once_when_a_chunk_completes_a_character() -> None:
    """Issue 12: limits 1/1, "#" and three bytes of U+1D11E, then its last byte and a stray
    continuation. The second append's output (the character and U+FFFD, 7 B) takes the
    window past its 4 B once: cut once, to its last 2 B moved forward to a character, it
    shows nothing and Pi reports `bytes` (from the totals); cutting after the character and
    again after U+FFFD reported `lines`."""
    accumulator = OutputAccumulator(max_lines=1, max_bytes=1)
    accumulator.append(b"#\xf0\x9d\x84")
    accumulator.append(b"\x9e\x80")
    accumulator.finish()
    truncation = accumulator.snapshot().truncation
    assert (truncation.content, truncation.truncated_by) == ("", "bytes")


def test_surrogate_start_at_a_chunks_end_is_replaced_at_once() -> None:
    """Issue 12: ED A0 ends the chunk; A0 cannot follow ED, so both are U+FFFD before the
    next chunk arrives (CPython's own incremental decoder would wait)."""
    accumulator = OutputAccumulator()
    accumulator.append(b"a\xed\xa0")
    snapshot = accumulator.snapshot()
    assert snapshot.content == "a\ufffd\ufffd"
    assert snapshot.truncation.total_bytes == 7


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
        patch.setattr(stream, "_DECODE", None)
        slow = _feed(data, cuts).snapshot()
    assert fast == slow


def test_speedups_are_built_in_ci() -> None:
    """CI builds the C scan; a silent compile failure would halve the benchmarks."""
    if not os.environ.get("CI"):
        pytest.skip("only CI requires the compiled speedup")
    assert stream._DECODE is not None


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


@pytest.mark.skipif(stream._DECODE is None, reason="reference._speedups is not built here")
@pytest.mark.parametrize("edge", _EDGES, ids=lambda b: b.hex())
@pytest.mark.parametrize("prefix", [b"", b"a\n" * 9, b"x" * 7])
def test_c_decoder_edges(edge: bytes, prefix: bytes) -> None:
    """Overlongs, surrogates, past U+10FFFF, stray and unfinished bytes, after 0-18 ASCII."""
    for data in (prefix + edge, prefix + edge + b"\n", prefix + edge[:-1], edge * 3):
        assert stream._DECODE is not None
        got = stream._DECODE(data, 0)
        assert got == stream._decode_python(data), data
        assert (_output(data, 0, got), got[2]) == _oracle(data, 0), data


@pytest.mark.skipif(stream._APPEND is None, reason="reference._speedups is not built here")
@settings(max_examples=1000, deadline=None)
@given(window=st.binary(max_size=12), data=_BYTES, start=st.integers(0, 8))
def test_append_decoded_writes_decode_utf8s_output_onto_the_window(
    window: bytes, data: bytes, start: int
) -> None:
    """`append_decoded` answers as `decode_utf8` does; an ill-formed input's output is
    appended to the window (its size in place of the bytes), a well-formed one leaves the
    window as it was (-1)."""
    start = next(
        i for i in range(min(start, len(data)), len(data) + 1) if i == len(data) or data[i] < 0x80
    )
    assert stream._APPEND is not None and stream._DECODE is not None
    decoded, *counts = stream._DECODE(data, start)
    held = bytearray(window)
    appended, *appended_counts = stream._APPEND(held, data, start)
    assert appended_counts == counts
    if decoded is None:
        assert (appended, held) == (-1, window)
    else:
        assert (appended, held) == (len(decoded), window + decoded)


_ILL_FORMED = st.lists(
    st.sampled_from([b"a", b"\n", b"\xff", b"\x80", b"\xe2\x82", b"\xed\xa0\x80", "中".encode()]),
    max_size=120,
).map(b"".join)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=_ILL_FORMED,
    cuts=st.lists(st.integers(0, 400), max_size=12),
    max_bytes=st.integers(0, 64),
)
def test_ill_formed_chunks_give_the_pure_paths_snapshot_after_each_append(
    data: bytes, cuts: list[int], max_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Invalid UTF-8 cut anywhere, windows of a few bytes: the C scan writing each chunk's
    output onto the window and trimming it there gives the snapshot the pure path gives,
    after every append and after `finish()`."""
    bounds = [0, *sorted(min(cut, len(data)) for cut in cuts), len(data)]
    chunks = [data[a:b] for a, b in itertools.pairwise(bounds)]

    def snapshots() -> list[object]:
        accumulator = OutputAccumulator(max_bytes=max_bytes)
        seen: list[object] = []
        for chunk in chunks:
            accumulator.append(chunk)
            seen.append(accumulator.snapshot())
        accumulator.finish()
        return [*seen, accumulator.snapshot(), accumulator.take_raw()]

    fast = snapshots()
    with monkeypatch.context() as patch:
        patch.setattr(stream, "_DECODE", None)
        slow = snapshots()
    assert fast == slow
