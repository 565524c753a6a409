"""What `ctxspec bench` asks: each figure of a session length, and the sizes it is given.

The requests themselves are the bench extension's (`ctxspec.conformance.bench_requests`,
which `ctxspec smoke` sends too), on the cached inputs: the stream logs of
`ctxspec.corpora.generators.logs` and the benchmark session of
`ctxspec.corpora.generators.bench_session`, written once as JSONL. `FIGURES` are all a
session length's figures, the report's columns; `session_requests` builds them;
`parse_size` reads a size as `ctxspec bench` checked it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.bench_requests import (
    OPEN_FIGURES,
    Request,
    open_request,
    session_request,
)
from ctxspec.conformance.engines.reference.ops.bench import HELPERS
from ctxspec.corpora.generators.bench_session import write_session, write_session_file

__all__ = ["FIGURES", "parse_size", "session_requests"]

FIGURES: Final = (*HELPERS, *OPEN_FIGURES)  # a session length's figures, in the report's order
UNITS: Final = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def parse_size(text: str) -> int:
    """`16MiB`, `512KiB`, `1GiB` or a byte count (as `ctxspec bench` checked it)."""
    for unit, factor in UNITS.items():
        if text.endswith(unit):
            return int(text.removesuffix(unit)) * factor
    return int(text)


def session_requests(session: Mapping[str, Any], cache: Path, count: int) -> dict[str, Request]:
    """Every figure of a session length (`FIGURES`), its files written once under `cache`."""
    path = write_session(session, cache / f"session-{count}.jsonl")
    requests = {h: session_request(path, h, session) for h in HELPERS}
    opened = write_session_file(session, cache, count)
    return requests | {f: open_request(opened, f, session) for f in OPEN_FIGURES}
