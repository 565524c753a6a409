"""The session helpers Pi exports beside its compaction and session builders.

`tokens.calculate` (`calculateContextTokens`), `compaction.last_usage`
(`getLastAssistantUsage`), `compaction.turn_start` (`findTurnStartIndex`),
`session.context_entries` (`buildContextEntries`), `compaction.file_lists`
(`computeFileLists`) and `compaction.format_file_ops` (`formatFileOperations`).
Entries travel as for the other session ops (`entries`, or a session file's `jsonl`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from ctxspec.conformance.engines.reference.ops import Engine, Handler
from ctxspec.conformance.engines.reference.ops.sessions import entries_of, leaf_of
from ctxspec.reference import compaction, file_ops, session, tokens
from ctxspec.reference.errors import InvalidInput


def _last_usage(engine: Engine, args: Mapping[str, Any]) -> Any:
    usage = tokens.get_last_assistant_usage(entries_of(engine, args))
    return None if usage is None else dict(usage)


def _turn_start(engine: Engine, args: Mapping[str, Any]) -> int:
    entries = entries_of(engine, args)
    entry_index, start_index = args["entryIndex"], args.get("startIndex", 0)
    # Pi reads entries[i] for every i it walks: outside the list it throws a TypeError
    if start_index < 0:
        raise InvalidInput("startIndex", "must be at least 0")
    if entry_index >= start_index and entry_index >= len(entries):
        raise InvalidInput("entryIndex", f"must be below the number of entries ({len(entries)})")
    return compaction.find_turn_start_index(entries, entry_index, start_index)


def _context_entries(engine: Engine, args: Mapping[str, Any]) -> dict[str, Any]:
    path = engine.build_context_entries(entries_of(engine, args), leaf_of(args))
    return {"entries": [session.plain_entry(entry) for entry in path]}


def _file_lists(args: Mapping[str, Any]) -> dict[str, Any]:
    raw = args["fileOps"]
    ops = file_ops.FileOperations()
    # Pi's fileOps are three Sets: a path listed twice is one path
    for kind in ("read", "written", "edited"):
        for path in _strings(raw, kind):
            ops = ops.add(kind, path)
    read, modified = file_ops.compute_file_lists(ops)
    return {"readFiles": list(read), "modifiedFiles": list(modified)}


def _format_file_ops(args: Mapping[str, Any]) -> str:
    return file_ops.format_file_operations(
        _strings(args, "readFiles"), _strings(args, "modifiedFiles")
    )


def _strings(raw: Mapping[str, Any], key: str) -> Sequence[str]:
    value = raw[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidInput(key, "must be a list of strings")
    return value


def handlers(engine: Engine) -> dict[str, Handler]:
    return {
        "tokens.calculate": lambda a: tokens.calculate_context_tokens(a["usage"]),
        "compaction.last_usage": partial(_last_usage, engine),
        "compaction.turn_start": partial(_turn_start, engine),
        "session.context_entries": partial(_context_entries, engine),
        "compaction.file_lists": _file_lists,
        "compaction.format_file_ops": _format_file_ops,
    }
