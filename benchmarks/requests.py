"""What `ctxspec bench` asks: the inputs and, for each figure, the request by both routes.

A `Request` names the bench op (the implementation reads the file and times itself) and
the ordinary op that answers the same question (timed by the runner, transport included,
for an implementation without the bench extension). `stream_request`, `truncate_request`
and `session_request` build them on the cached inputs: the stream logs of
`ctxspec.corpora.generators.logs` and the benchmark session of `make_session`, written once as
JSONL (`write_session`). `open_request` builds the end-to-end figures (`OPEN_FIGURES`,
`bench.open`: the session file's bytes to the leaf's context or compaction), on the same
entries behind a session header (`write_session_file`); `FIGURES` are all a session
length's figures, the report's columns.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxspec.benchmarks.answers import Suspect
from ctxspec.conformance.engines.reference.ops.bench import (
    HELPERS,
    NAVIGATION_STAMP,
    OPEN_HELPERS,
)
from ctxspec.reference.session import build_session_context, build_session_path

__all__ = [
    "CHUNK",
    "FIGURES",
    "HELPERS",
    "OPEN_FIGURES",
    "SIDES",
    "Request",
    "make_session",
    "open_request",
    "parse_size",
    "session_request",
    "session_requests",
    "stream_request",
    "truncate_request",
    "write_session",
    "write_session_file",
]

CHUNK: Final = 64 * 1024
SIDES: Final = ("head", "tail")  # bench.truncate's sides
KEEP: Final = 20000  # keepRecentTokens of the session helpers
OPEN_FIGURES: Final = tuple(f"open+{helper}" for helper in OPEN_HELPERS)  # bench.open's
FIGURES: Final = (*HELPERS, *OPEN_FIGURES)  # a session length's figures, in the report's order
HEADER: Final = {  # the session header of the file bench.open reads (version 3: no migration)
    "type": "session",
    "version": 3,
    "id": "bench",
    "timestamp": "2026-12-02T00:00:00.000Z",
    "cwd": "/",
}
UNITS: Final = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
USAGE: Final = {
    "input": 900,
    "output": 100,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1000,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def parse_size(text: str) -> int:
    """`16MiB`, `512KiB`, `1GiB` or a byte count (as `ctxspec bench` checked it)."""
    for unit, factor in UNITS.items():
        if text.endswith(unit):
            return int(text.removesuffix(unit)) * factor
    return int(text)


@dataclass(frozen=True, slots=True)
class Request:
    """One measured request, by both routes: the bench op and the ordinary op."""

    bench_op: str
    bench_args: dict[str, Any]
    plain_op: str
    plain_args: Callable[[], dict[str, Any]]  # built only when used (it may be large)
    plain_answer: Callable[[Any], Any] = lambda result: result  # to the bench answer's shape


def _chunks_b64(path: Path) -> list[str]:
    with path.open("rb") as stream:
        return [
            base64.b64encode(block).decode("ascii")
            for block in iter(lambda: stream.read(CHUNK), b"")
        ]


def stream_request(path: Path) -> Request:
    """The streaming tail of `path` in 64 KiB chunks, persisting, Pi's default limits."""
    return Request(
        "bench.stream",
        {"path": str(path), "chunkBytes": CHUNK, "persistIfTruncated": True},
        "stream.tail",
        lambda: {"chunksB64": _chunks_b64(path), "persistIfTruncated": True},
    )


def truncate_request(path: Path, side: str) -> Request:
    """truncateHead / truncateTail of the whole file, Pi's default limits."""
    return Request(
        "bench.truncate",
        {"path": str(path), "side": side},
        f"truncate.{side}",
        lambda: {"content": path.read_bytes().decode("utf-8", "replace")},
    )


def _navigation(result: Mapping[str, Any]) -> dict[str, Any]:
    if "error" in result:
        raise Suspect("error", f"session.navigate: {result['error']}")
    out: dict[str, Any] = {"cancelled": result.get("cancelled", False)}
    if "editorText" in result:
        out["editorText"] = result["editorText"]
    out["leafId"] = result["leafId"]
    return out


# helper -> (its bench.session arguments, its ordinary op, that op's arguments but the
# entries); `leaf`, `target`, `keep` are the session's (make_session)
_SESSION_OPS: Final[dict[str, tuple[str, Callable[[str, str, int], dict[str, Any]]]]] = {
    "buildSessionContext": ("session.context", lambda leaf, _t, _k: {"leafId": leaf}),
    "findCutPoint": ("compaction.cut_point", lambda _l, _t, keep: {"keepRecentTokens": keep}),
    "prepareCompaction": (
        "compaction.prepare",
        lambda _l, _t, keep: {"settings": {"keepRecentTokens": keep}},
    ),
    "collectEntriesForBranchSummary": (
        "branch.collect",
        lambda leaf, target, _k: {"oldLeafId": leaf, "targetId": target},
    ),
    "navigation": (
        "session.navigate",
        lambda leaf, target, _k: {
            "leafId": leaf,
            "targetId": target,
            "timestamp": NAVIGATION_STAMP,
        },
    ),
}


def session_request(path: Path, helper: str, session: Mapping[str, Any]) -> Request:
    """One session helper on the JSONL file `path` written from `session` (`make_session`)."""
    if helper not in HELPERS:
        raise ValueError(f"unknown session helper {helper!r}; one of {HELPERS}")
    leaf, target, keep = session["leafId"], session["otherLeafId"], session["keepRecentTokens"]
    args: dict[str, Any] = {"path": str(path), "helper": helper}
    if helper == "estimateContextTokens":
        # the ordinary op is handed the messages the bench op builds untimed: the
        # reference's context of the leaf, in Pi's shape
        def messages() -> dict[str, Any]:
            context = build_session_context(list(session["entries"]), leaf)
            return {"messages": context.to_pi()["messages"]}

        return Request("bench.session", {**args, "leafId": leaf}, "context.estimate", messages)
    op, plain = _SESSION_OPS[helper]
    bench_args = plain(leaf, target, keep)
    if helper in ("collectEntriesForBranchSummary", "navigation"):
        bench_args = {"leafId": leaf, "targetId": target}
    return Request(
        "bench.session",
        {**args, **bench_args},
        op,
        lambda: {"entries": list(session["entries"]), **plain(leaf, target, keep)},
        _navigation if helper == "navigation" else (lambda result: result),
    )


def open_request(path: Path, figure: str, session: Mapping[str, Any]) -> Request:
    """One end-to-end figure (`OPEN_FIGURES`) on the session file `path` written from
    `session` (`write_session_file`), at the session's leaf. Its ordinary op:
    `session.context` of the file's text (parsed by the implementation, transport
    included), or `compaction.prepare` of the leaf's path."""
    helper = figure.removeprefix("open+")
    if helper not in OPEN_HELPERS:
        raise ValueError(f"unknown end-to-end figure {figure!r}; one of {OPEN_FIGURES}")
    leaf, keep = session["leafId"], session["keepRecentTokens"]
    args: dict[str, Any] = {"path": str(path), "helper": helper, "leafId": leaf}
    if helper == "buildSessionContext":
        plain = lambda: {"jsonl": path.read_text("utf-8"), "leafId": leaf}  # noqa: E731
        return Request("bench.open", args, "session.context", plain)
    settings = {"keepRecentTokens": keep}
    return Request(
        "bench.open",
        {**args, "settings": settings},
        "compaction.prepare",
        lambda: {
            "entries": list(build_session_path(list(session["entries"]), leaf)),
            "settings": settings,
        },
    )


def write_session(session: Mapping[str, Any], path: Path, *, header: bool = False) -> Path:
    """The session's entries as a JSONL file (one entry a line, `HEADER` first when
    `header`), written once."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".tmp")
        with partial.open("w", encoding="utf-8") as out:
            for entry in [HEADER] if header else []:
                out.write(json.dumps(entry, separators=(",", ":")) + "\n")
            for entry in session["entries"]:
                out.write(json.dumps(entry, separators=(",", ":")) + "\n")
        partial.replace(path)
    return path


def write_session_file(session: Mapping[str, Any], cache: Path, count: int) -> Path:
    """The session as a Pi session file (`HEADER`, then the entries), for `bench.open`."""
    return write_session(session, cache / f"session-{count}-file.jsonl", header=True)


def session_requests(session: Mapping[str, Any], cache: Path, count: int) -> dict[str, Request]:
    """Every figure of a session length (`FIGURES`), its files written once under `cache`."""
    path = write_session(session, cache / f"session-{count}.jsonl")
    requests = {h: session_request(path, h, session) for h in HELPERS}
    opened = write_session_file(session, cache, count)
    return requests | {f: open_request(opened, f, session) for f in OPEN_FIGURES}


def _message(n: int) -> dict[str, Any]:
    """Turn n of the chain: user, assistant with a tool call, tool result, in turn."""
    if n % 3 == 0:
        return {"role": "user", "content": f"step {n}: run the tests", "timestamp": n}
    if n % 3 == 1:
        return {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "running them"},
                {
                    "type": "toolCall",
                    "id": f"c{n}",
                    "name": "bash",
                    "arguments": {"command": f"pytest -k case_{n}"},
                },
            ],
            "provider": "anthropic",
            "model": "m",
            "api": "anthropic-messages",
            "usage": USAGE,
            "stopReason": "toolUse",
            "timestamp": n,
        }
    return {
        "role": "toolResult",
        "toolCallId": f"c{n - 1}",
        "toolName": "bash",
        "content": [{"type": "text", "text": "ok\n" * 40}],
        "isError": False,
        "timestamp": n,
    }


def make_session(size: int) -> dict[str, Any]:
    """The benchmark session: one chain of `size` entries (a tree `size` deep) of user /
    assistant-with-tool-call / tool-result turns with provider usage on each reply, plus a
    side entry leaving the chain at entry 10, so the walk between the two leaves crosses
    the whole chain. `leafId` is the chain's end, `otherLeafId` the side entry."""
    entries: list[dict[str, Any]] = []
    parent = None
    for n in range(size):
        entry_id = f"{n:08x}"
        entries.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-12-02T00:00:00.000Z",
                "message": _message(n),
            }
        )
        parent = entry_id
    side = {
        "type": "message",
        "id": "side0001",
        "parentId": entries[min(10, size - 1)]["id"],
        "timestamp": "2026-12-02T00:00:00.000Z",
        "message": {"role": "user", "content": "another way", "timestamp": 0},
    }
    entries.append(side)
    return {
        "entries": entries,
        "leafId": entries[-2]["id"],
        "otherLeafId": side["id"],
        "keepRecentTokens": KEEP,
    }
