"""Properties of the streaming tail (`stream.tail`), for any implementation.

Invariants need no oracle (corpora/README.md lists them); the differential test compares
the implementation under test with the reference engine on the same chunks. Chunking
independence is an invariant Pi 0.85.0 breaks (STREAM-4): both expectations files list it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxspec.conformance.engines.reference import handle
from ctxspec.conformance.judging.check import answer, assert_same, result_of
from ctxspec.conformance.judging.compare import differences, render
from ctxspec.conformance.strategies.ops import chunked_streams
from ctxspec.conformance.strategies.streams import (
    byte_streams,
    chunked,
    cut_points,
    encode_chunks,
    stream_limits,
)
from ctxspec.conformance.transport.base import Implementation

B1 = "multibyte_cuts"
OP = "stream.tail"


def _tail(impl: Implementation, args: dict[str, Any]) -> Any:
    return result_of(impl, OP, args)


@pytest.mark.ctxspec_property(boundary=B1, op=OP, rule="STREAM-4", level="invariant")
@given(cuts=cut_points, stream=byte_streams, limits=stream_limits)
# the smallest case of §2 ST-2: with maxBytes 3 the window (6 B) is cut past 12 B, once
@example(cuts=[13], stream=b"xxxxxxxx\naxxxxxxxx\n", limits={"maxLines": None, "maxBytes": 3})
def test_chunking_does_not_change_the_snapshot(
    impl: Implementation, cuts: list[int], stream: bytes, limits: dict[str, Any]
) -> None:
    """Any chunking of the same bytes gives the snapshot of one chunk."""
    chunks = chunked(stream, cuts)
    one = _tail(impl, {"chunksB64": encode_chunks([stream]), **limits})
    many = _tail(impl, {"chunksB64": encode_chunks(chunks), **limits})
    found = differences(one, many)
    assert not found, f"the chunked answer differs from the one-append answer:\n{render(found)}"


@pytest.mark.ctxspec_property(boundary=B1, op=OP, rule="STREAM-5")
@given(cuts=cut_points, stream=byte_streams, limits=stream_limits)
def test_persisted_file_holds_every_byte(
    impl: Implementation, cuts: list[int], stream: bytes, limits: dict[str, Any]
) -> None:
    """A persisted output's sha256 and size are those of every raw byte received, and the
    output is persisted whenever it is truncated."""
    chunks = chunked(stream, cuts)
    result = _tail(impl, {"chunksB64": encode_chunks(chunks), **limits})
    if result["truncation"]["truncated"]:
        assert result["persisted"]
    if result["persisted"]:
        assert result["persistedSha256"] == hashlib.sha256(stream).hexdigest()
        assert result["persistedBytes"] == len(stream)


@pytest.mark.ctxspec_property(boundary=B1, op=OP, rule="STREAM-2")
@given(cuts=cut_points, stream=byte_streams, limits=stream_limits)
def test_snapshot_within_limits_and_counts_everything(
    impl: Implementation, cuts: list[int], stream: bytes, limits: dict[str, Any]
) -> None:
    """The content never passes either limit, is valid UTF-8, and the totals count the whole
    decoded output (TRUNC-1 lines, UTF-8 bytes)."""
    chunks = chunked(stream, cuts)
    result = _tail(impl, {"chunksB64": encode_chunks(chunks), **limits})
    truncation = result["truncation"]
    content = result["content"]
    encoded = content.encode("utf-8")  # strict: a decoded stream holds no lone surrogate
    if truncation["truncated"]:
        assert len(encoded) == truncation["outputBytes"] <= truncation["maxBytes"]
        assert truncation["outputLines"] <= truncation["maxLines"]
    text = stream.decode("utf-8", "replace").removeprefix("\ufeff")
    assert truncation["totalBytes"] == len(text.encode("utf-8"))
    lines = 0 if text == "" else text.count("\n") + (0 if text.endswith("\n") else 1)
    assert truncation["totalLines"] == lines
    assert result["lastLineBytes"] == len(text.rsplit("\n", 1)[-1].encode("utf-8"))


@pytest.mark.ctxspec_property(boundary=B1, op=OP, rule="STREAM-3")
@given(
    cuts=cut_points,
    stream=byte_streams,
    limits=stream_limits,
    flags=st.fixed_dictionaries(
        {}, optional={"persistIfTruncated": st.booleans(), "finish": st.booleans()}
    ),
)
def test_stream_matches_reference(
    impl: Implementation,
    cuts: list[int],
    stream: bytes,
    limits: dict[str, Any],
    flags: dict[str, Any],
) -> None:
    """Differential: the snapshot, counters and persisted bytes equal the reference's."""
    chunks = chunked(stream, cuts)
    args = {"chunksB64": encode_chunks(chunks), **limits, **flags}
    _matches_reference(impl, args)


@pytest.mark.ctxspec_property(boundary=B1, op=OP, rule="STREAM-1")
@given(
    chunks=chunked_streams(max_pieces=16),
    limits=stream_limits,
    finish=st.booleans(),
)
# issue 12: ED A0 at a chunk's end is two U+FFFD at once; a chunk completing a split
# character trims the window once
@example(
    chunks=encode_chunks([b"a\xed\xa0"]), limits={"maxLines": None, "maxBytes": 24}, finish=False
)
@example(
    chunks=encode_chunks([b"#\xf0\x9d\x84", b"\x9e\x80"]),
    limits={"maxLines": 1, "maxBytes": 1},
    finish=True,
)
def test_every_utf8_boundary_class_matches_reference(
    impl: Implementation, chunks: list[str], limits: dict[str, Any], finish: bool
) -> None:
    """Differential over every UTF-8 boundary class (first and last of each length,
    overlongs, surrogates, past U+10FFFF, bytes that start nothing, unfinished sequences)
    cut anywhere, finished or not: what is decoded at once and what waits for the next
    chunk, and the window cut, equal the reference's."""
    args = {"chunksB64": chunks, **limits, "finish": finish}
    _matches_reference(impl, args)


def _matches_reference(impl: Implementation, args: dict[str, Any]) -> None:
    """The implementation's answer to `args` equals the reference's, neither an error."""
    reply = answer(impl, OP, args)
    expected = handle(OP, args)
    refused = expected.error
    assert refused is None, f"{OP}: the reference refuses ({refused.type}: {refused.message})"
    assert_same(OP, args, expected, reply)
