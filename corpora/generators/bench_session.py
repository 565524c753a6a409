"""The benchmark session: a chain of Pi session entries as long as asked, deterministic.

`make_session(size)` returns the entries (a tree `size` deep, plus one side entry) and
the ids the session helpers are asked about; `write_session` writes them as JSONL once
(the entries alone, what `bench.session` reads), and `write_session_file` behind a
session header (a Pi session file, what `bench.open` reads). `ctxspec bench` measures
on them, and `ctxspec smoke` asks the bench ops about a short one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

__all__ = ["HEADER", "KEEP", "make_session", "write_session", "write_session_file"]

KEEP: Final = 20000  # keepRecentTokens of the session helpers
HEADER: Final = {  # the session header of the file bench.open reads (version 3: no migration)
    "type": "session",
    "version": 3,
    "id": "bench",
    "timestamp": "2026-12-02T00:00:00.000Z",
    "cwd": "/",
}
_USAGE: Final = {
    "input": 900,
    "output": 100,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1000,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


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
            "usage": _USAGE,
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
