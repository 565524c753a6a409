"""The reference's streaming accumulator and its decoder, against oracles.

The conformance properties feed small chunks; these also feed chunks larger than the
16 KiB pieces the decoder validates in, with characters split across pieces and chunks
and invalid bytes anywhere, and check every counter against one `bytes.decode` of the
input. Small chunks of every UTF-8 boundary class are checked against the WHATWG
decoder as its standard writes it (`stream_inputs.Whatwg`, byte by byte). The fast
engine's C decoder is checked against this one in tests/fastengine/test_stream.py.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from stream_inputs import BYTES, REPLACEMENT, Whatwg, chunked_classes, large_input, oracle, output

from ctxspec.reference import stream
from ctxspec.reference.stream import OutputAccumulator


def _feed(data: bytes, cuts: list[int]) -> OutputAccumulator:
    accumulator = OutputAccumulator(retain_raw=False)
    bounds = [0, *cuts, len(data)]
    for start, end in itertools.pairwise(bounds):
        accumulator.append(data[start:end])
    accumulator.finish()
    return accumulator


@settings(max_examples=150, deadline=None)
@given(drawn=large_input())
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


@settings(max_examples=2000, deadline=None)
@given(head=BYTES, tail=BYTES, start=st.integers(0, 8))
def test_decoder_follows_the_whatwg_decoder(head: bytes, tail: bytes, start: int) -> None:
    """`decode_chunk`'s answer is the WHATWG decoder's output of one streaming decode,
    with its held bytes as `pending`."""
    data = head + tail
    start = min(start, len(data))
    # only between characters: a start inside a sequence is not how the accumulator calls it
    start = next(i for i in range(start, len(data) + 1) if i == len(data) or data[i] < 0x80)
    answer = stream.decode_chunk(data, start)
    expected, held = oracle(data, start)
    assert (output(data, start, answer), answer[2]) == (expected, held)
    assert answer[1] == expected.count(b"\n") and answer[3] == expected.rfind(b"\n")


@settings(max_examples=500, deadline=None)
@given(chunks=chunked_classes(), max_bytes=st.integers(0, 8), finish=st.booleans())
def test_chunks_of_every_boundary_class(chunks: list[bytes], max_bytes: int, finish: bool) -> None:
    """Counters equal the WHATWG decoder's output of the same chunks (a bad byte replaced
    the moment it arrives, ED A0 included)."""
    decoder = Whatwg()
    text = b"".join(decoder.decode(chunk) for chunk in chunks)
    if finish and decoder.held:
        text += REPLACEMENT
    text = text.removeprefix(b"\xef\xbb\xbf")
    accumulator = OutputAccumulator(max_bytes=max_bytes, retain_raw=False)
    for chunk in chunks:
        accumulator.append(chunk)
    if finish:
        accumulator.finish()
    snapshot = accumulator.snapshot()
    assert snapshot.truncation.total_bytes == len(text)
    assert snapshot.last_line_bytes == len(text) - text.rfind(b"\n") - 1


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
