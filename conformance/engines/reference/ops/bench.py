"""bench.stream, bench.truncate, bench.session: an engine timing its own work on a file.

The bench extension of protocol v1 (PROTOCOL.md, "The bench extension"): the request
names a file on this machine, the handler reads it, runs one engine function on it and
answers `{answer, elapsedNs, requestNs}`: the function's answer (the wire shape of the
matching ordinary op), the nanoseconds of the measured work alone and of the whole
request. `ctxspec bench` checks the answer against the reference's and both times
against its own wall clock.

What is measured: `bench.stream` reads the file in `chunkBytes` chunks into the
persisting accumulator, finishes and snapshots (reading included: the implementation
streams the file itself); `bench.truncate` one `truncate_head` / `truncate_tail` call on
the whole file decoded as UTF-8 (reading and decoding excluded); `bench.session` one
session helper on the file's entries (reading and parsing excluded;
`estimateContextTokens` estimates the messages of the leaf's context, built untimed; the
file parsed for every request, as Pi's adapter parses it: a helper then reads entries
just made, as Pi's does, not ones left cold by an earlier request, which at 100 entries
cost the fast engine up to a third of a figure);
`bench.open` a session file end to end, as `SessionManager.open(path)` then
`buildSessionContext()` or `prepareCompaction(getBranch())` in Pi: reading the bytes,
decoding, parsing the lines, loading them (the header checked, migrated if older,
headers left out) and the helper at the leaf, all timed. The accumulator, the parse,
the load, the session helpers and the token estimate are the engine's (`Engine`: the reference's
or the fast engine's); truncation is the reference's for both.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Final

from ctxspec import reference
from ctxspec.conformance.engines.reference.ops import Engine, Handler
from ctxspec.reference import compaction, migration, session
from ctxspec.reference.edge.persist import persist_stream
from ctxspec.reference.errors import InvalidInput

HELPERS: Final = (  # the schema's bench.session.helper, in the report's order
    "buildSessionContext",
    "estimateContextTokens",
    "findCutPoint",
    "prepareCompaction",
    "collectEntriesForBranchSummary",
    "navigation",
)
OPEN_HELPERS: Final = ("buildSessionContext", "prepareCompaction")  # bench.open's helpers
NAVIGATION_STAMP: Final = "1970-01-01T00:00:00.000Z"  # new entries' stamp (none without a label)


def _path(args: Mapping[str, Any]) -> Path:
    raw = args.get("path")
    if not isinstance(raw, str) or not raw:
        raise InvalidInput("path", "must be the path of a file")
    path = Path(raw)
    if not path.is_file():
        raise InvalidInput("path", f"no such file: {raw}")
    return path


def measured(call: Callable[[], Any]) -> tuple[Any, int]:
    """`call()` and its nanoseconds: the measured work of every bench op, the one call
    `ctxspec.benchmarks.instructions` counts (its counting process replaces this function)."""
    begin = time.perf_counter_ns()
    value = call()
    return value, time.perf_counter_ns() - begin


def _timed(started: int, answer: Any, elapsed: int) -> dict[str, Any]:
    return {"answer": answer, "elapsedNs": elapsed, "requestNs": time.perf_counter_ns() - started}


def _chunks(path: Path, size: int) -> Iterator[bytes]:
    with path.open("rb") as stream:
        while block := stream.read(size):
            yield block


def stream(engine: Engine, args: Mapping[str, Any]) -> dict[str, Any]:
    started = time.perf_counter_ns()
    path = _path(args)
    size = args.get("chunkBytes")
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise InvalidInput("chunkBytes", "must be a positive integer")
    done, elapsed = measured(
        lambda: persist_stream(
            _chunks(path, size),
            max_lines=args.get("maxLines"),
            max_bytes=args.get("maxBytes"),
            persist_if_truncated=args.get("persistIfTruncated") is True,
            walks=engine.walks,
        )
    )
    answer: dict[str, Any] = {
        **done.snapshot.to_pi(),
        "persisted": done.path is not None,
        "lastLineBytes": done.snapshot.last_line_bytes,
    }
    if done.path is not None:
        answer["persistedPath"] = str(done.path)
    return _timed(started, answer, elapsed)


def truncate(args: Mapping[str, Any]) -> dict[str, Any]:
    started = time.perf_counter_ns()
    side = args.get("side")
    functions = {"head": reference.truncate_head, "tail": reference.truncate_tail}
    if side not in functions:
        raise InvalidInput("side", "must be head or tail")
    text = _path(args).read_bytes().decode("utf-8", "replace")
    limits = {"max_lines": args.get("maxLines"), "max_bytes": args.get("maxBytes")}
    result, elapsed = measured(lambda: functions[side](text, **limits))
    return _timed(started, result.to_pi(), elapsed)


def _session_call(
    engine: Engine, helper: str, entries: list[Any], args: Mapping[str, Any]
) -> Callable[[], Any]:
    """The helper as a call on parsed entries, and (via `.to_pi()` after) its wire answer."""
    leaf = args.get("leafId", session.UNSET)
    if helper == "buildSessionContext":
        return lambda: engine.build_session_context(entries, leaf)
    if helper == "estimateContextTokens":
        # untimed, as in Pi's adapter: the messages of the leaf's context, then estimated
        messages = engine.build_session_context(entries, leaf).messages
        return lambda: engine.estimate_context_tokens(messages)
    if helper == "findCutPoint":
        keep = args.get("keepRecentTokens", compaction.CompactionSettings().keep_recent_tokens)
        return lambda: engine.find_cut_point(entries, 0, len(entries), keep)
    if helper == "prepareCompaction":
        settings = compaction.CompactionSettings.from_pi(args.get("settings"))
        return lambda: engine.prepare_compaction(entries, settings)
    if "targetId" not in args:
        raise InvalidInput("targetId", f"{helper} needs a targetId")
    target = args["targetId"]
    # untimed, as Pi's adapter makes its SessionManager (the entries' index) before its
    # clock starts: the session's index, what these two helpers are handed in Pi
    tree = engine.session_tree(entries)
    if helper == "collectEntriesForBranchSummary":
        old = None if leaf is session.UNSET else leaf
        return lambda: engine.collect_entries_for_branch_summary(tree, old, target)
    start = entries[-1].get("id") if leaf is session.UNSET and entries else leaf
    ids = (f"new-{n}" for n in itertools.count(1))

    def navigate() -> Any:
        # Pi's navigateTree ends by loading the new branch's context into the agent
        moved = engine.navigate_tree(tree, start, target, new_ids=ids, timestamp=NAVIGATION_STAMP)
        moved.context()
        return moved

    return navigate


def _wire(helper: str, value: Any) -> Any:
    if helper == "navigation":
        out: dict[str, Any] = {"cancelled": value.cancelled}
        if value.editor_text is not None:
            out["editorText"] = value.editor_text
        out["leafId"] = value.leaf_id
        return out
    return None if value is None else value.to_pi()


def session_helper(engine: Engine, args: Mapping[str, Any]) -> dict[str, Any]:
    started = time.perf_counter_ns()
    helper = args.get("helper")
    if helper not in HELPERS:
        raise InvalidInput("helper", f"must be one of {', '.join(HELPERS)}")
    text = _path(args).read_bytes().decode("utf-8", "replace")  # as Pi's readFileSync(.., "utf8")
    entries = list(engine.parse_session_entries(text).entries)
    call = _session_call(engine, helper, entries, args)
    value, elapsed = measured(call)
    return _timed(started, _wire(helper, value), elapsed)


def _opened(engine: Engine, path: Path) -> migration.LoadedSession:
    """The entries and leaf of `SessionManager.open(path)`: the file's lines parsed by the
    engine; a first line that is no session header is refused, as Pi refuses the file."""
    values = engine.parse_session_entries(path.read_bytes().decode("utf-8", "replace")).entries
    head = values[0] if values else None
    if not (
        isinstance(head, Mapping)
        and head.get("type") == "session"
        and isinstance(head.get("id"), str)
    ):
        raise InvalidInput("path", f"not a Pi session file (no session header first): {path}")
    return engine.load_session(values)


def open_session(engine: Engine, args: Mapping[str, Any]) -> dict[str, Any]:
    started = time.perf_counter_ns()
    helper = args.get("helper")
    if helper not in OPEN_HELPERS:
        raise InvalidInput("helper", f"must be one of {', '.join(OPEN_HELPERS)}")
    path = _path(args)
    leaf = args.get("leafId", session.UNSET)
    settings = compaction.CompactionSettings.from_pi(args.get("settings"))

    def run() -> Any:
        loaded = _opened(engine, path)
        at = loaded.leaf_id if leaf is session.UNSET else leaf
        if helper == "buildSessionContext":
            return engine.build_session_context(loaded.entries, at)
        return engine.prepare_compaction(engine.build_session_path(loaded.entries, at), settings)

    value, elapsed = measured(run)
    return _timed(started, None if value is None else value.to_pi(), elapsed)


def handlers(engine: Engine) -> dict[str, Handler]:
    return {
        "bench.stream": partial(stream, engine),
        "bench.truncate": truncate,
        "bench.session": partial(session_helper, engine),
        "bench.open": partial(open_session, engine),
    }
