"""The bench extension's requests: a bench op's, and the ordinary op's that asks the same.

A `Request` names the bench op (the implementation reads the file and times itself) and
the ordinary op that answers the same question (timed by the caller, transport
included, for an implementation without the bench extension), with what turns the
ordinary op's answer into the bench answer's shape. `ctxspec bench` measures with them
and `ctxspec smoke` sends their bench ops, so both ask the same thing.

- `stream_request`, `truncate_request`: on a stream log (`corpora.generators.logs`);
- `session_request`: one session helper (`HELPERS`, `bench.session`) on the JSONL
  entries of the benchmark session (`corpora.generators.bench_session`);
- `open_request`: one end-to-end figure (`OPEN_FIGURES`, `bench.open`: the session
  file's bytes to the leaf's context or compaction) on the same entries behind a header.

`PlainAnswerError` is raised for an ordinary op's answer that reports a failure, which
no bench answer's shape holds.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.engines.reference.ops.bench import (
    HELPERS,
    NAVIGATION_STAMP,
    OPEN_HELPERS,
)
from ctxspec.reference.session import build_session_context, build_session_path

__all__ = [
    "CHUNK",
    "OPEN_FIGURES",
    "SIDES",
    "PlainAnswerError",
    "Request",
    "open_request",
    "session_request",
    "stream_request",
    "truncate_request",
]

CHUNK: Final = 64 * 1024
SIDES: Final = ("head", "tail")  # bench.truncate's sides
OPEN_FIGURES: Final = tuple(f"open+{helper}" for helper in OPEN_HELPERS)  # bench.open's


class PlainAnswerError(Exception):
    """The ordinary op answered with a failure of its own (a `session.navigate` result
    with an `error`), which has no bench answer's shape."""

    def __init__(self, op: str, error: str) -> None:
        super().__init__(f"{op}: {error}")
        self.op = op
        self.error = error


@dataclass(frozen=True, slots=True)
class Request:
    """One request, by both routes: the bench op and the ordinary op."""

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
    """A `session.navigate` answer in the bench answer's shape; raises `PlainAnswerError`."""
    if "error" in result:
        raise PlainAnswerError("session.navigate", result["error"])
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
    """One session helper on the JSONL file `path` written from `session`
    (`bench_session.make_session`, `write_session`). Raises ValueError for a helper not
    in `HELPERS`."""
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
    `session` (`bench_session.write_session_file`), at the session's leaf. Its ordinary
    op: `session.context` of the file's text (parsed by the implementation, transport
    included), or `compaction.prepare` of the leaf's path. Raises ValueError for a figure
    not in `OPEN_FIGURES`."""
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
