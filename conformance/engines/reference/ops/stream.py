"""stream.tail: the output accumulator fed raw chunks, through the persisting edge.

The full output, when the accumulator decides to persist it, really is written to a
temp file (`ctxspec.reference.edge.persist`, with the engine's accumulator); the handler hashes
it and deletes it, so the result carries what was persisted, never where.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from ctxspec.conformance.engines.reference.ops import Engine, Handler
from ctxspec.reference.edge.persist import persist_stream
from ctxspec.reference.errors import InvalidInput


def chunks_of(args: Mapping[str, Any]) -> list[bytes]:
    """The raw chunks of `chunksB64`, checked."""
    raw = args.get("chunksB64")
    if not isinstance(raw, list) or not all(isinstance(c, str) for c in raw):
        raise InvalidInput("chunksB64", "must be a list of base64 strings")
    try:
        return [base64.b64decode(c, validate=True) for c in raw]
    except binascii.Error as error:
        raise InvalidInput("chunksB64", f"not base64: {error}") from None


def tail(engine: Engine, args: Mapping[str, Any]) -> dict[str, Any]:
    finish = args.get("finish")
    done = persist_stream(
        chunks_of(args),
        max_lines=args.get("maxLines"),
        max_bytes=args.get("maxBytes"),
        persist_if_truncated=args.get("persistIfTruncated") is True,
        finish=finish is None or finish is True,
        walks=engine.walks,
    )
    result: dict[str, Any] = {
        **done.snapshot.to_pi(),
        "persisted": done.path is not None,
        "lastLineBytes": done.snapshot.last_line_bytes,
    }
    result.update(read_back(done.path))
    return result


def read_back(path: Path | None) -> dict[str, Any]:
    """`persistedSha256` and `persistedBytes` of a persisted file, which is then removed."""
    if path is None:
        return {}
    data = path.read_bytes()
    path.unlink()
    return {"persistedSha256": hashlib.sha256(data).hexdigest(), "persistedBytes": len(data)}


def handlers(engine: Engine) -> dict[str, Handler]:
    return {"stream.tail": partial(tail, engine)}
