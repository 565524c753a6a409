"""Persisting a command's full output: the temp file `OutputAccumulator` decides on.

`PersistingAccumulator` wraps the pure `ctxspec.reference.stream.OutputAccumulator`: once the
accumulator says the full output must be persisted (STREAM-5), it opens
`<directory>/<prefix>-<16 hex>.log` (Pi's name; bash uses the prefix `pi-bash`) and
writes every raw byte to it, the chunks that came before the decision first.
`persist_stream()` runs a whole stream through it. Both make the accumulator with the
walk `output_accumulator` (`ctxspec.reference.walks`): the reference's, or an engine's
(`ctxspec.fastengine.stream` decodes in C).
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ctxspec.reference.stream import OutputSnapshot
from ctxspec.reference.walks import PLAIN, Walks

__all__ = ["DEFAULT_PREFIX", "PersistedStream", "PersistingAccumulator", "persist_stream"]

DEFAULT_PREFIX = "pi-output"


@dataclass(frozen=True, slots=True, kw_only=True)
class PersistedStream:
    """The final snapshot and the file holding the full output (None if not persisted)."""

    snapshot: OutputSnapshot
    path: Path | None


class PersistingAccumulator:
    """An `OutputAccumulator` whose full output goes to a temp file when it must."""

    def __init__(
        self,
        *,
        max_lines: int | None = None,
        max_bytes: int | None = None,
        prefix: str = DEFAULT_PREFIX,
        directory: str | Path | None = None,
        walks: Walks = PLAIN,
    ) -> None:
        self.accumulator = walks.output_accumulator(max_lines=max_lines, max_bytes=max_bytes)
        self._prefix = prefix
        self._directory = Path(directory if directory is not None else tempfile.gettempdir())
        self._file: BinaryIO | None = None
        self.path: Path | None = None

    def append(self, data: bytes) -> None:
        self.accumulator.append(data)
        self._flush()

    def finish(self) -> None:
        self.accumulator.finish()
        self._flush()

    def snapshot(self, *, persist_if_truncated: bool = False) -> OutputSnapshot:
        snap = self.accumulator.snapshot(persist_if_truncated=persist_if_truncated)
        self._flush()
        return snap

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _flush(self) -> None:
        pending = self.accumulator.take_raw()
        if not self.accumulator.must_persist:
            return
        if self._file is None:
            self.path = self._directory / f"{self._prefix}-{secrets.token_hex(8)}.log"
            self._file = self.path.open("xb")
        self._file.writelines(pending)


def persist_stream(
    chunks: Iterable[bytes],
    *,
    max_lines: int | None = None,
    max_bytes: int | None = None,
    persist_if_truncated: bool = False,
    finish: bool = True,
    prefix: str = DEFAULT_PREFIX,
    directory: str | Path | None = None,
    walks: Walks = PLAIN,
) -> PersistedStream:
    """Feed `chunks`, finish, snapshot; the file, if any, is closed and left to the caller."""
    sink = PersistingAccumulator(
        max_lines=max_lines,
        max_bytes=max_bytes,
        prefix=prefix,
        directory=directory,
        walks=walks,
    )
    try:
        for chunk in chunks:
            sink.append(chunk)
        if finish:
            sink.finish()
        snap = sink.snapshot(persist_if_truncated=persist_if_truncated)
    finally:
        sink.close()
    return PersistedStream(snapshot=snap, path=sink.path)
