"""Streaming tail truncation of a command's output, as Pi 0.85.0's `OutputAccumulator` does it.

Decides, chunk by chunk and with memory bounded by its window, what a running command
has printed: the decoded tail the model sees (`snapshot()`), every line and byte counted
(raw and decoded), the bytes of the last line (`last_line_bytes`), and *when* the full
output must be persisted. It never writes anything: once `must_persist` turns true the
caller (the edge `reference.edge.persist`) takes the raw bytes to write with `take_raw()`,
the chunks that came before the decision included.

The rules, each tagged with its id in the corpus (corpora/README.md, ST-*):

- STREAM-1 decoding is a streaming UTF-8 decoder in replacement mode: a character split
  across chunks is rejoined, each maximal invalid subpart becomes U+FFFD, a lead byte
  still dangling at `finish()` becomes U+FFFD, and one leading BOM is removed;
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

Speed: a chunk that starts on a character is checked and counted in one pass by the C
scan of `reference._speedups` when it is built (setup.py; `reference.stream._SCAN = None`
turns it off), else by CPython's strict decoder and `bytes.count`; valid UTF-8 is then its own
decoded form and only invalid chunks go through the replacing decoder. Both paths give the
same results (tests/test_reference_stream.py checks the scan against CPython's decoder).

Pi cuts the window once per append, so the snapshot depends on how the bytes were
chunked (§2 ST-2 of pi-0.85-behavior.md): chunks are significant input here, not an
implementation detail.
"""

from __future__ import annotations

import codecs
import importlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from reference.errors import InvalidInput
from reference.truncate import (
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
]

FINISHED_MESSAGE = "Cannot append to a finished output accumulator"
_NEWLINE = 0x0A
_BOM = "\ufeff"


def _load_scanner() -> Callable[[bytes], tuple[int, int, int, int]] | None:
    """The C scan of `reference._speedups`, or None where it was not built."""
    try:
        speedups = importlib.import_module("reference._speedups")
    except ImportError:
        return None
    scan: Callable[[bytes], tuple[int, int, int, int]] = speedups.scan_utf8
    return scan


# CPython validates UTF-8 about twice as fast in 16 KiB pieces as in 64 KiB ones (measured)
_VALIDATE_PIECE = 16 * 1024


def _scan_python(data: bytes) -> tuple[int, int, int, int]:
    """The C scan's answer from CPython: `(valid, newlines, pending, last newline)` of a
    chunk that starts on a character (`pending`: the unfinished character at its end)."""
    if not data.isascii():
        validator = codecs.getincrementaldecoder("utf-8")(errors="strict")
        view = memoryview(data)
        try:  # the decoded text is dropped, only its validity matters
            for at in range(0, len(data), _VALIDATE_PIECE):
                validator.decode(view[at : at + _VALIDATE_PIECE])
        except UnicodeDecodeError:
            return (0, 0, 0, -1)
        pending = len(validator.getstate()[0])
        return (1, data.count(b"\n"), pending, data.rfind(b"\n"))
    return (1, data.count(b"\n"), 0, data.rfind(b"\n"))


# the C scan where it was built, else `_scan_python` (tests/test_reference_stream.py checks
# they agree)
_SCAN = _load_scanner()


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
        "_decoder",
        "_finished",
        "_last_line_bytes",
        "_max_bytes",
        "_max_lines",
        "_must_persist",
        "_newlines",
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
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
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
        start = 0
        if not self._bom_pending:
            # finish a character split by the previous chunk (at most 3 bytes), so the rest
            # of this chunk starts clean and can take the fast path
            while start < len(data) and self._decoder.getstate()[0]:
                self._add_text(self._decoder.decode(data[start : start + 1]))
                start += 1
        if self._bom_pending or self._decoder.getstate()[0]:
            self._add_text(self._decoder.decode(data[start:]))
        elif start < len(data):
            self._add_clean(data[start:] if start else data)
        self._check_persist()

    def _add_clean(self, data: bytes) -> None:
        """A chunk that starts on a character: valid UTF-8 is its own decoded form."""
        valid, newlines, pending, last = (_SCAN or _scan_python)(data)
        if not valid:
            self._add_text(self._decoder.decode(data))  # STREAM-1: replacement decoding
        elif pending:  # a character split at the end: the replacing decoder holds it
            self._decoder.setstate((data[-pending:], 0))
            self._add_decoded(memoryview(data)[:-pending], newlines, last)
        else:
            self._add_decoded(data, newlines, last)

    def finish(self) -> None:
        """No more input: a dangling partial character becomes U+FFFD (STREAM-1)."""
        if not self._finished:
            self._add_text(self._decoder.decode(b"", True))
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

    def _add_text(self, text: str) -> None:
        if self._bom_pending and text:
            self._bom_pending = False
            text = text.removeprefix(_BOM)  # STREAM-1: one leading BOM only
        if text:
            data = text.encode("utf-8")
            self._add_decoded(data, data.count(b"\n"), data.rfind(b"\n"))

    def _add_decoded(self, data: bytes | memoryview, newlines: int, last: int) -> None:
        """Add decoded bytes holding `newlines` "\n", the last at index `last` (-1: none)."""
        # STREAM-2: counters over the decoded bytes ("\n" never hides in an invalid sequence)
        self._decoded_bytes += len(data)
        self._newlines += newlines
        self._last_line_bytes = (
            self._last_line_bytes + len(data) if last < 0 else len(data) - last - 1
        )
        self._append_to_window(data)

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
