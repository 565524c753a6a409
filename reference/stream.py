"""Streaming tail truncation of a command's output, as Pi 0.85.0's `OutputAccumulator` does it.

Decides, chunk by chunk and with memory bounded by its window, what a running command
has printed: the decoded tail the model sees (`snapshot()`), every line and byte counted
(raw and decoded), the bytes of the last line (`last_line_bytes`), and *when* the full
output must be persisted. It never writes anything: once `must_persist` turns true the
caller (the edge `ctxspec.reference.edge.persist`) takes the raw bytes to write with `take_raw()`,
the chunks that came before the decision included.

The rules, each tagged with its id in the corpus (corpora/README.md, ST-*):

- STREAM-1 decoding is a streaming WHATWG UTF-8 decoder in replacement mode (Node's
  `TextDecoder`): a character split across chunks is rejoined, each maximal ill-formed
  subpart becomes U+FFFD *as soon as its bad byte arrives* (only an unfinished sequence
  whose bytes are all in range so far is held back, so "ED A0" at a chunk's end is two
  U+FFFD at once), a sequence still unfinished at `finish()` becomes one U+FFFD, and one
  leading BOM is removed;
- STREAM-2 `totalRawBytes` counts the bytes received, `totalBytes` the UTF-8 bytes of the
  decoded text (an invalid byte is 3), `totalLines` the lines of that text (TRUNC-1);
- STREAM-3 the window: when the decoded tail passes `2 * roll` bytes (`roll = max(2 *
  maxBytes, 1)`) it is cut to its last `roll` bytes, moved forward to a character; it
  starts at a line boundary only if the byte before the cut is "\\n";
- STREAM-4 a snapshot is `truncate_tail` of the window (without its first, partial, line when
  the window does not start at a boundary and holds a "\\n"), with the counters' totals,
  `truncated` from the totals and `truncatedBy` falling back to the totals;
- STREAM-5 the full output must be persisted after the append, the `finish()` or the
  `snapshot(persist_if_truncated=True)` that leaves it over a limit;
- STREAM-6 appending after `finish()` is refused (`FinishedAccumulator`).

Decoding: `decode_chunk` gives each chunk's output from CPython's strict decoder,
`bytes.count` and, for an ill-formed chunk, CPython's replacing decoder (well-formed
UTF-8 is its own decoded form: no copy). It is the one step `ctxspec.fastengine.stream` replaces
with a C loop that writes an ill-formed chunk's output straight onto the window
(tests/fastengine/test_stream.py checks the two against each other and this module
against the WHATWG decoder).

Pi cuts the window once per append (a character completed by the chunk included), so the
snapshot depends on how the bytes were chunked (§2 ST-2 of pi-0.85-behavior.md): chunks
are significant input here, not an implementation detail.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, replace
from typing import Any

from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    truncate_tail,
)

__all__ = [
    "FINISHED_MESSAGE",
    "FinishedAccumulator",
    "OutputAccumulator",
    "OutputSnapshot",
    "decode_chunk",
]

FINISHED_MESSAGE = "Cannot append to a finished output accumulator"
_NEWLINE = 0x0A
_BOM = "\ufeff"


_REPLACEMENT = "\ufffd".encode()
_BOM_BYTES = _BOM.encode()
_ANY_CONTINUATION = (0x80, 0xBF)

# a start byte: the length of its sequence and the range its second byte must be in (no
# overlong form, no surrogate, nothing above U+10FFFF); any other byte starts nothing
_STARTS: dict[int, tuple[int, int, int]] = {
    **{lead: (2, *_ANY_CONTINUATION) for lead in range(0xC2, 0xE0)},
    0xE0: (3, 0xA0, 0xBF),
    **{lead: (3, *_ANY_CONTINUATION) for lead in range(0xE1, 0xF0)},
    0xED: (3, 0x80, 0x9F),
    0xF0: (4, 0x90, 0xBF),
    **{lead: (4, *_ANY_CONTINUATION) for lead in range(0xF1, 0xF4)},
    0xF4: (4, 0x80, 0x8F),
}


def _unfinished(data: bytes, start: int) -> int:
    """The length (0-3) of the unfinished sequence at the end of `data[start:]` that a
    streaming decoder holds back: a start byte and continuation bytes all in range so far."""
    size = len(data)
    for back in range(1, min(3, size - start) + 1):
        byte = data[size - back]
        if byte < 0x80:
            return 0
        if byte >= 0xC0:
            length, low, high = _STARTS.get(byte, (0, 0, 0))
            if back >= length or (back > 1 and not low <= data[size - back + 1] <= high):
                return 0  # complete, or ill-formed already: nothing is held
            return back
    return 0


# CPython validates UTF-8 about twice as fast in 16 KiB pieces as in 64 KiB ones (measured)
_VALIDATE_PIECE = 16 * 1024


def _well_formed(body: memoryview) -> bool:
    validator = codecs.getincrementaldecoder("utf-8")(errors="strict")
    try:  # the decoded text is dropped, only its validity matters
        for at in range(0, len(body), _VALIDATE_PIECE):
            validator.decode(body[at : at + _VALIDATE_PIECE])
        validator.decode(b"", True)  # an ill-formed sequence cut short at the end
    except UnicodeDecodeError:
        return False
    return True


def decode_chunk(data: bytes, start: int = 0) -> tuple[bytes | None, int, int, int]:
    """`(decoded, newlines, pending, last newline)` of `data[start:]`, which starts between
    characters: the output, its "\n" count and the index of the last one (-1: none), and
    the length of the unfinished sequence held back at the end (STREAM-1).

    `decoded` is None when the output is the input less its `pending` unfinished bytes;
    CPython's replacing decoder gives each maximal ill-formed subpart one U+FFFD, as a
    WHATWG decoder does, once the bytes held back are set apart."""
    pending = _unfinished(data, start)
    end = len(data) - pending
    if data.isascii() or _well_formed(memoryview(data)[start:end]):
        last = data.rfind(b"\n", start, end)
        return (None, data.count(b"\n", start, end), pending, last - start if last >= 0 else -1)
    decoded = str(memoryview(data)[start:end], "utf-8", "replace").encode("utf-8")
    return (decoded, decoded.count(b"\n"), pending, decoded.rfind(b"\n"))


def _join(pending: bytes, data: bytes) -> tuple[int, bytes, bytes]:
    """An unfinished sequence continued by the next chunk: `(bytes of data used, output,
    still pending)`. It ends complete, or as one U+FFFD at the first byte out of range
    (that byte is not used: it is read again as a start), or is still unfinished."""
    length, low, high = _STARTS[pending[0]]
    if len(pending) > 1:
        low, high = _ANY_CONTINUATION
    needed = length - len(pending)
    used = 0
    while used < needed and used < len(data):
        if not low <= data[used] <= high:
            return used, _REPLACEMENT, b""
        low, high = _ANY_CONTINUATION
        used += 1
    if used < needed:
        return used, b"", pending + data
    return used, pending + data[:used], b""


class FinishedAccumulator(InvalidInput):
    """`append()` after `finish()`: the caller's fault, with Pi's message."""

    def __init__(self) -> None:
        super().__init__("append", FINISHED_MESSAGE)


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputSnapshot:
    """What `snapshot()` returns: the shown tail, its truncation, the persistence decision."""

    content: str
    truncation: TruncationResult
    must_persist: bool
    last_line_bytes: int
    total_raw_bytes: int

    def to_pi(self) -> dict[str, Any]:
        return {"content": self.content, "truncation": self.truncation.to_pi()}


class OutputAccumulator:
    """A command's output, fed as raw chunks; see the module docstring for the rules.

    `retain_raw=False` keeps no raw bytes at all (a tail without persistence); otherwise
    the raw chunks wait for the persistence decision (at most `max_bytes` plus one chunk)
    and are then handed out by `take_raw()`.

    >>> acc = OutputAccumulator(max_bytes=4)
    >>> acc.append(b"ab\\xe2\\x82"); acc.append(b"\\xacc\\n"); acc.finish()
    >>> snap = acc.snapshot()
    >>> snap.content, snap.truncation.total_bytes, snap.must_persist
    ('€c', 7, True)
    >>> acc.append(b"more")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    FinishedAccumulator: append: Cannot append to a finished output accumulator
    """

    __slots__ = (
        "_bom_pending",
        "_decoded_bytes",
        "_finished",
        "_last_line_bytes",
        "_max_bytes",
        "_max_lines",
        "_must_persist",
        "_newlines",
        "_pending",
        "_raw",
        "_raw_bytes",
        "_retain_raw",
        "_roll",
        "_starts_at_boundary",
        "_tail",
    )

    def __init__(
        self,
        *,
        max_lines: int | None = None,
        max_bytes: int | None = None,
        retain_raw: bool = True,
    ) -> None:
        self._max_lines = _limit("maxLines", max_lines, DEFAULT_MAX_LINES)
        self._max_bytes = _limit("maxBytes", max_bytes, DEFAULT_MAX_BYTES)
        # STREAM-3: the window keeps `roll` bytes once it has passed twice that
        self._roll = max(2 * self._max_bytes, 1)
        self._pending = b""  # an unfinished character at the end of the last chunk
        self._bom_pending = True
        self._tail = bytearray()
        self._starts_at_boundary = True
        self._raw_bytes = 0
        self._decoded_bytes = 0
        self._newlines = 0
        self._last_line_bytes = 0
        self._finished = False
        self._must_persist = False
        self._retain_raw = retain_raw
        self._raw: list[bytes] = []

    @property
    def must_persist(self) -> bool:
        """Whether the full output has to be written out (STREAM-5); never turns false again."""
        return self._must_persist

    @property
    def last_line_bytes(self) -> int:
        """`getLastLineBytes()`: decoded bytes after the last "\\n" (0 if it ends with one)."""
        return self._last_line_bytes

    @property
    def total_raw_bytes(self) -> int:
        return self._raw_bytes

    def append(self, data: bytes) -> None:
        """Feed one chunk. Raises `FinishedAccumulator` after `finish()` (STREAM-6)."""
        if self._finished:
            raise FinishedAccumulator()
        if not isinstance(data, bytes | bytearray | memoryview):
            raise InvalidInput("data", "must be bytes")
        data = bytes(data)
        self._raw_bytes += len(data)
        if self._retain_raw:
            self._raw.append(data)
        # STREAM-1: first the unfinished character the previous chunk ended with
        used, head = 0, b""
        if self._pending:
            used, head, self._pending = _join(self._pending, data)
        if not self._pending:
            self._add_output(head, data, used)
        self._check_persist()

    def finish(self) -> None:
        """No more input: a dangling partial character becomes U+FFFD (STREAM-1)."""
        if not self._finished:
            if self._pending:
                self._pending = b""
                self._add_output(_REPLACEMENT, b"", 0)
            self._finished = True
        self._check_persist()

    def take_raw(self) -> tuple[bytes, ...]:
        """The raw bytes to persist now: everything held once `must_persist`, else nothing."""
        if not self._must_persist:
            return ()
        held, self._raw = tuple(self._raw), []
        return held

    def snapshot(self, *, persist_if_truncated: bool = False) -> OutputSnapshot:
        """The tail as the model would see it now (STREAM-4)."""
        text = bytes(self._tail)
        if not self._starts_at_boundary and (newline := text.find(b"\n")) >= 0:
            text = text[newline + 1 :]
        tail = truncate_tail(
            text.decode("utf-8"), max_lines=self._max_lines, max_bytes=self._max_bytes
        )
        total_lines = self._total_lines()
        over_bytes = self._decoded_bytes > self._max_bytes
        truncated = total_lines > self._max_lines or over_bytes
        by = (tail.truncated_by or ("bytes" if over_bytes else "lines")) if truncated else None
        truncation = replace(
            tail,
            truncated=truncated,
            truncated_by=by,
            total_lines=total_lines,
            total_bytes=self._decoded_bytes,
        )
        if persist_if_truncated and truncated:
            self._must_persist = True
        return OutputSnapshot(
            content=tail.content,
            truncation=truncation,
            must_persist=self._must_persist,
            last_line_bytes=self._last_line_bytes,
            total_raw_bytes=self._raw_bytes,
        )

    def _add_output(self, head: bytes, data: bytes, start: int) -> None:
        """Add what one append decodes to: `head` (a character begun by the previous chunk,
        or its U+FFFD) and then `data[start:]`, which starts between characters. The window
        is trimmed once, after both (STREAM-3: once per append, as Pi does). The step an
        engine's subclass may replace (`ctxspec.fastengine.stream` decodes in C)."""
        decoded, newlines, pending, last = decode_chunk(data, start)
        body: bytes | memoryview = data
        if pending:
            self._pending = data[len(data) - pending :]
        if decoded is not None:
            body = decoded
        elif start or pending:  # the chunk's own bytes, without a copy
            body = memoryview(data)[start : len(data) - pending]
        if self._bom_pending and (head or body):
            self._bom_pending = False  # STREAM-1: one leading BOM only, the first output's
            if head == _BOM_BYTES:
                head = b""
            elif not head and body[:3] == _BOM_BYTES:
                body = body[3:]
                last = last - 3 if last >= 0 else -1
        self._count(len(head), len(body), newlines, last)
        self._tail += head
        self._append_to_window(body)

    def _count(self, head: int, body: int, newlines: int, last: int) -> None:
        # STREAM-2: counters over the decoded bytes; a head holds no "\n" (it is a
        # multibyte character or U+FFFD), `last` is the last "\n" in the body (-1: none)
        self._decoded_bytes += head + body
        self._newlines += newlines
        if last < 0:
            self._last_line_bytes += head + body
        else:
            self._last_line_bytes = body - last - 1

    def _append_to_window(self, data: bytes | memoryview) -> None:
        size = len(self._tail) + len(data)
        if size <= 2 * self._roll:
            self._tail += data
            return
        # STREAM-3: keep the last `roll` bytes; only the byte before the cut and what follows
        # it are looked at, and the window is trimmed in place (a bytearray drops its front
        # without moving the rest), so a huge chunk is copied once, in part
        cut = size - self._roll
        held = len(self._tail)
        if cut - 1 >= held:
            self._tail = bytearray(memoryview(data)[cut - 1 - held :])
        else:
            del self._tail[: cut - 1]
            self._tail += data
        self._align_window()

    def _align_window(self) -> None:
        # the window holds the byte before the cut, then the kept bytes: move forward to a
        # character, and note whether the cut fell at a line boundary
        window = self._tail
        start = 1
        while start < len(window) and window[start] & 0xC0 == 0x80:
            start += 1
        self._starts_at_boundary = window[start - 1] == _NEWLINE
        del window[:start]

    def _total_lines(self) -> int:
        # TRUNC-1: a final "\n" opens no line, and nothing decoded means no line
        if self._decoded_bytes == 0:
            return 0
        return self._newlines + (1 if self._last_line_bytes > 0 else 0)

    def _check_persist(self) -> None:
        # STREAM-5: over either limit, counted raw or decoded
        if not self._must_persist and (
            self._raw_bytes > self._max_bytes
            or self._decoded_bytes > self._max_bytes
            or self._total_lines() > self._max_lines
        ):
            self._must_persist = True
        if self._must_persist and not self._retain_raw:
            self._raw = []


def _limit(field: str, value: object, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(field, "must be a non-negative integer")
    return value
