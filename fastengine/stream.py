"""The streaming tail of `ctxspec.reference.stream`, fast: each chunk decoded in one C loop.

`OutputAccumulator` is the reference's accumulator (every rule, ST-* and STREAM-*, stays
there) with one step replaced: decoding a chunk. `append_decoded` of
`ctxspec.fastengine._speedups` decodes it in one pass: well-formed UTF-8 is its own decoded form
(no copy), and an ill-formed chunk is written with its U+FFFD in the same C loop straight
onto the window, so neither makes an object per chunk (about twice the throughput of the
reference's `decode_chunk`). Where the extension is not built, and for the output that
may start with a BOM, the reference's step runs. `persist_stream` is the edge's, with
this engine's walks (`FAST`, whose `output_accumulator` is this one).

Answers as `ctxspec.reference.stream` (tests/fastengine/test_stream.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from ctxspec.fastengine._native import native
from ctxspec.fastengine.walks import FAST
from ctxspec.reference.edge import persist
from ctxspec.reference.stream import OutputAccumulator as ReferenceAccumulator

__all__ = ["OutputAccumulator", "persist_stream"]

# the C decoder, `ctxspec.reference.stream.decode_chunk`'s answer (None where it is not built)
DECODE: Final[Callable[[bytes, int], tuple[bytes | None, int, int, int]] | None] = native(
    "_speedups", "decode_utf8"
)
# its variant appending an ill-formed chunk's output to the window
APPEND: Final[Callable[[bytearray, bytes, int], tuple[int, int, int, int]] | None] = native(
    "_speedups", "append_decoded"
)


class OutputAccumulator(ReferenceAccumulator):
    """`ctxspec.reference.stream.OutputAccumulator`, decoding each chunk in C."""

    __slots__ = ()

    def _add_output(self, head: bytes, data: bytes, start: int) -> None:
        if APPEND is None or self._bom_pending:
            super()._add_output(head, data, start)
            return
        self._tail += head
        appended, newlines, pending, last = APPEND(self._tail, data, start)
        if pending:
            self._pending = data[len(data) - pending :]
        if appended >= 0:  # ill-formed: the C scan wrote its output onto the window
            self._count(len(head), appended, newlines, last)
            self._trim_window()
            return
        own = memoryview(data)[start : len(data) - pending] if start or pending else data
        self._count(len(head), len(own), newlines, last)
        self._append_to_window(own)

    def _trim_window(self) -> None:
        # STREAM-3 on a window the output is already in: the same cut
        size = len(self._tail)
        if size > 2 * self._roll:
            del self._tail[: size - self._roll - 1]
            self._align_window()


def persist_stream(chunks: Iterable[bytes], **options: Any) -> persist.PersistedStream:
    """`ctxspec.reference.edge.persist.persist_stream`, with its options, with this engine's
    walks (`FAST`: this accumulator)."""
    return persist.persist_stream(chunks, **options, walks=FAST)
