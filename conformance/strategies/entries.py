"""Session entries off the happy path, for `ctxspec fuzz`: what the golden cases only sample.

- `sharp_text`: text holding the syntax of the formats Pi writes around it (XML tags of
  its prompts, Markdown, JSON, its own `[User]:` turn markers), U+2028, a lone surrogate;
- `messages`: one message of any role Pi's context layer knows, one it does not
  (`mystery`, the v2 `hookMessage`), each with the optional fields Pi keeps drawn in or
  out (signatures, redacted thinking, `responseId`, `errorMessage`, `details`, images,
  `fullOutputPath`, `excludeFromContext`);
- `mixed_trees` / `mixed_paths`: forests (or one path) mixing every entry type: messages,
  custom messages, branch summaries and compactions (details, `fromHook`), model and
  thinking-level changes, labels, custom and session-info entries;
- `session_files`: such entries behind a header of any version Pi reads (1, 2, 3, a
  missing or odd `version`, fields missing), version-1 entries without ids;
- `ids_of`: ids for the branch and navigation ops, some naming no entry (`gone`, the
  header's, a migrated `m-1`);
- `long_sessions`: sessions of 10,000 to 60,000 tokens from the deterministic generator
  (`ctxspec.corpora.generators.sessions`), long enough for Pi's default settings
  (`keepRecentTokens` 20000, `reserveTokens` 16384).

The property tests keep the plain `sessions` strategies (their invariants read ids and
parents); these feed the differential fuzz only.
"""

from __future__ import annotations

from typing import Any, Final

from hypothesis import strategies as st

from ctxspec.corpora.generators.sessions import session as generated_session

__all__ = [
    "SHARP_PIECES",
    "ids_of",
    "long_sessions",
    "messages",
    "mixed_paths",
    "mixed_trees",
    "session_files",
    "sharp_text",
    "usages",
]

# pieces that mean something in the formats around the text: Pi's prompt tags, its turn
# markers, Markdown, JSON, XML oddities
SHARP_PIECES: Final = (
    "</conversation>",
    "<summary>",
    "</summary>",
    "</previous-summary>",
    "</read-files>",
    "<modified-files>",
    "</project_context>",
    "[User]: ",
    "[Assistant]: ",
    "[Tool result]: ",
    "```",
    "## Goal",
    "- [x] ",
    "**",
    '{"a": [1, "b"]}',
    '\\"',
    "<!-- c -->",
    "]]>",
    "&amp;",
    "\u2028",
    "\ud800",
    "\r\n",
)
sharp_text = st.one_of(
    st.text(alphabet="ab é🙂\n<>&\"'`[]{}#*\\", max_size=24),
    st.lists(
        st.one_of(st.sampled_from(SHARP_PIECES), st.text(alphabet="ab ", max_size=4)), max_size=4
    ).map("".join),
)
_PATH_TEXT = st.one_of(
    st.sampled_from(["a.ts", "src/b.ts", "é.md", "x y/z.md", '"q".md', "<x>.ts", "a&b"]),
    sharp_text,
)

_ZERO = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
_COST = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}


@st.composite
def usages(draw: st.DrawFn) -> dict[str, Any]:
    """A usage record: parts, a total that is their sum, 0 or another number, a cost."""
    usage: dict[str, Any] = dict(_ZERO)
    usage["input"] = draw(st.integers(0, 500))
    usage["output"] = draw(st.integers(0, 50))
    usage["cacheRead"] = draw(st.sampled_from([0, 0, 7]))
    usage["totalTokens"] = draw(st.sampled_from([0, usage["input"] + usage["output"], 1000]))
    if draw(st.booleans()):
        usage["cost"] = dict(_COST, total=draw(st.sampled_from([0, 0.25])))
    return usage


def _maybe(
    draw: st.DrawFn, target: dict[str, Any], key: str, values: st.SearchStrategy[Any]
) -> None:
    """Draw an optional field in (about one time in three) or leave it out."""
    if draw(st.integers(0, 2)) == 0:
        target[key] = draw(values)


_IMAGE = st.just({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
_TEXT_BLOCK = sharp_text.map(lambda t: {"type": "text", "text": t})


@st.composite
def _assistant(draw: st.DrawFn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for kind in draw(st.lists(st.sampled_from(["text", "thinking", "toolCall"]), max_size=3)):
        if kind == "text":
            block: dict[str, Any] = {"type": "text", "text": draw(sharp_text)}
            _maybe(draw, block, "textSignature", st.just("ts-1"))
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": draw(sharp_text)}
            _maybe(draw, block, "thinkingSignature", st.just("sig"))
            _maybe(draw, block, "redacted", st.booleans())
        else:
            name = draw(st.sampled_from(["read", "write", "edit", "bash", "grep"]))
            arguments = (
                {"command": draw(sharp_text)} if name == "bash" else {"path": draw(_PATH_TEXT)}
            )
            block = {"type": "toolCall", "id": draw(st.sampled_from(["c1", "c2"])), "name": name}
            block["arguments"] = arguments
            _maybe(draw, block, "thoughtSignature", st.just("th"))
        content.append(block)
    stop = draw(st.sampled_from(["stop", "toolUse", "length", "error", "aborted"]))
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "api": "messages",
        "provider": draw(st.sampled_from(["anthropic", "openai"])),
        "model": draw(st.sampled_from(["m1", "m2"])),
        "stopReason": stop,
        "usage": draw(usages()),
        "timestamp": 2,
    }
    _maybe(draw, message, "responseId", st.just("resp_1"))
    if stop == "error":
        _maybe(draw, message, "errorMessage", sharp_text)
    return message


_ROLES: Final = (
    *("user", "user", "assistant", "assistant", "toolResult", "bashExecution", "custom"),
    *("branchSummary", "compactionSummary", "hookMessage", "mystery"),
)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """One message of any role, optional fields drawn in or out."""
    role = draw(st.sampled_from(_ROLES))
    if role == "assistant":
        return draw(_assistant())
    if role == "user":
        content: Any = draw(
            st.one_of(sharp_text, st.lists(st.one_of(_TEXT_BLOCK, _IMAGE), max_size=3))
        )
        return {"role": "user", "content": content, "timestamp": 1}
    if role == "toolResult":
        message = {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": draw(st.sampled_from(["read", "bash", "edit"])),
            "content": draw(st.lists(st.one_of(_TEXT_BLOCK, _IMAGE), min_size=1, max_size=2)),
            "isError": draw(st.booleans()),
            "timestamp": 3,
        }
        _maybe(draw, message, "details", st.sampled_from([{"diff": "+x"}, {}, None]))
        return message
    if role == "bashExecution":
        message = {
            "role": "bashExecution",
            "command": draw(sharp_text),
            "output": draw(sharp_text),
            "exitCode": draw(st.sampled_from([0, 1, None])),
            "cancelled": draw(st.booleans()),
            "truncated": draw(st.booleans()),
            "timestamp": 4,
        }
        _maybe(draw, message, "fullOutputPath", st.just("/tmp/out <1>.log"))
        _maybe(draw, message, "excludeFromContext", st.booleans())
        return message
    if role in ("custom", "hookMessage"):
        message = {
            "role": role,
            "customType": draw(st.sampled_from(["note", "<ext>"])),
            "content": draw(st.one_of(sharp_text, st.lists(_TEXT_BLOCK, max_size=2))),
            "display": draw(st.booleans()),
            "timestamp": 5,
        }
        _maybe(draw, message, "details", st.sampled_from([{"k": 1}, None]))
        return message
    if role == "branchSummary":
        return {"role": role, "summary": draw(sharp_text), "fromId": "e1", "timestamp": 6}
    if role == "compactionSummary":
        summary = draw(sharp_text)
        return {
            "role": role,
            "summary": summary,
            "tokensBefore": draw(st.integers(0, 999)),
            "timestamp": 7,
        }
    return {"role": "mystery", "content": draw(sharp_text), "timestamp": 8}


_STAMP = "2026-01-01T00:00:00.000Z"
_FILES = st.fixed_dictionaries(
    {
        "readFiles": st.lists(_PATH_TEXT, max_size=2),
        "modifiedFiles": st.lists(_PATH_TEXT, max_size=2),
    }
)
# entry kinds with weights: messages mostly, every other kind Pi writes now and then
_KINDS: Final = (
    ["message"] * 10
    + ["custom_message", "custom_message", "branch_summary", "compaction", "compaction"]
    + ["model_change", "thinking_level_change", "label", "custom", "session_info"]
)


@st.composite
def _entry(draw: st.DrawFn, entry_id: str, parent: str | None, ids: list[str]) -> dict[str, Any]:
    base: dict[str, Any] = {"id": entry_id, "parentId": parent, "timestamp": _STAMP}
    kind = draw(st.sampled_from(_KINDS))
    if kind == "message":
        return {"type": "message", **base, "message": draw(messages())}
    elsewhere = st.sampled_from([*ids, "gone"]) if ids else st.just("gone")
    entry: dict[str, Any] = {"type": kind, **base}
    if kind == "custom_message":
        entry["customType"] = draw(st.sampled_from(["note", "ext"]))
        entry["content"] = draw(
            st.one_of(sharp_text, st.lists(st.one_of(_TEXT_BLOCK, _IMAGE), max_size=2))
        )
        entry["display"] = draw(st.booleans())
        _maybe(draw, entry, "details", st.sampled_from([{"k": 1}, None]))
    elif kind in ("branch_summary", "compaction"):
        entry["summary"] = draw(st.one_of(sharp_text, st.just("")))
        if kind == "branch_summary":
            entry["fromId"] = draw(st.one_of(elsewhere, st.just("root")))
        else:
            entry["firstKeptEntryId"] = draw(elsewhere)
            entry["tokensBefore"] = draw(st.integers(0, 500))
        _maybe(draw, entry, "details", _FILES)
        _maybe(draw, entry, "usage", usages())
        _maybe(draw, entry, "fromHook", st.booleans())
    elif kind == "model_change":
        entry.update(provider=draw(st.sampled_from(["openai", "anthropic"])), modelId="m9")
    elif kind == "thinking_level_change":
        entry["thinkingLevel"] = draw(st.sampled_from(["off", "low", "high"]))
    elif kind == "label":
        entry.update(targetId=draw(elsewhere), label=draw(st.one_of(sharp_text, st.just(""))))
    elif kind == "custom":
        entry.update(customType="state", data=draw(st.sampled_from([{"n": 1}, [], None, "x"])))
    else:
        entry["name"] = draw(sharp_text)
    return entry


@st.composite
def mixed_trees(draw: st.DrawFn, max_entries: int = 14) -> list[dict[str, Any]]:
    """A forest mixing every entry type, each entry the child of an earlier one or a root."""
    entries: list[dict[str, Any]] = []
    ids: list[str] = []
    for index in range(draw(st.integers(1, max_entries))):
        parent = draw(st.one_of(st.none(), st.sampled_from(ids))) if ids else None
        if parent is not None and draw(st.integers(0, 3)):
            parent = ids[-1]  # mostly a chain, as session files are
        entries.append(draw(_entry(f"e{index}", parent, list(ids))))
        ids.append(f"e{index}")
    return entries


@st.composite
def mixed_paths(draw: st.DrawFn, max_entries: int = 14) -> list[dict[str, Any]]:
    """One path, root first, mixing every entry type: what compaction functions take."""
    entries: list[dict[str, Any]] = []
    for index in range(draw(st.integers(1, max_entries))):
        parent = f"e{index - 1}" if index else None
        entries.append(draw(_entry(f"e{index}", parent, [e["id"] for e in entries])))
    return entries


# header versions Pi reads: current, the two it migrates, none, and values JavaScript
# compares oddly (a string, a fraction, null)
_VERSIONS: Final = (3, 3, 3, 2, 2, 1, "missing", None, "2", 2.5)


@st.composite
def session_files(draw: st.DrawFn, entries: list[dict[str, Any]]) -> list[Any]:
    """`entries` behind a header of any version Pi reads (or none), as a session file holds
    them: a version-1 file's entries may lack ids and parents, a version-2 file's messages
    may carry the `hookMessage` role."""
    if draw(st.integers(0, 3)) == 0:
        return entries
    version = draw(st.sampled_from(_VERSIONS))
    header: dict[str, Any] = {"type": "session"}
    if version != "missing":
        header["version"] = version
    for key, value in (("id", "s1"), ("timestamp", _STAMP), ("cwd", "/w")):
        if draw(st.integers(0, 4)):
            header[key] = value
    if draw(st.integers(0, 5)) == 0:
        header["parentSession"] = "/w/old.jsonl"
    if version in (1, "missing", None) and draw(st.booleans()):
        entries = [{k: v for k, v in e.items() if k not in ("id", "parentId")} for e in entries]
    at = 0 if draw(st.integers(0, 5)) else draw(st.integers(0, len(entries)))
    return [*entries[:at], header, *entries[at:]]


def ids_of(entries: list[Any]) -> st.SearchStrategy[Any]:
    """An id for a branch or navigation op: mostly one the entries have, else one naming
    no entry (`gone`), the header's, a migrated one (`m-1`), an empty string."""
    own = [e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)]
    odd = st.sampled_from(["gone", "s1", "m-1", "m-2", ""])
    if not own:
        return odd
    return st.integers(0, 3).flatmap(lambda n: odd if n == 0 else st.sampled_from(own))


_SIZES = st.sampled_from([50, 200, 500, 1500, 3000])


@st.composite
def long_sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A generated session of 10,000 to 60,000 tokens: turns, tool calls with big results,
    and now and then an entry of another type between them (a script for
    `ctxspec.corpora.generators.sessions.session`, drawn)."""
    script: list[dict[str, Any]] = []
    turn = 1
    total = 0
    target = draw(st.integers(10_000, 60_000))
    while total < target:
        count = draw(st.integers(1, 6))
        user, assistant = draw(_SIZES), draw(_SIZES)
        block: dict[str, Any] = {"turns": count, "from": turn, "user": user, "assistant": assistant}
        if draw(st.integers(0, 2)) == 0:
            block["calls"] = draw(
                st.sampled_from([["read src/a.ts"], ["edit src/b.ts", "read c.md"]])
            )
            block["result"] = draw(st.sampled_from([100, 2000, 8000]))
            total += count * block["result"] * len(block["calls"])
        script.append(block)
        total += count * (user + assistant)
        turn += count
        if draw(st.integers(0, 3)) == 0:
            script.append(draw(_long_extra(turn, total)))
    return generated_session(script)


@st.composite
def _long_extra(draw: st.DrawFn, turn: int, total: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(["custom_message", "branch_summary", "compaction", "model_change"]))
    name = f"x{turn}"
    if kind == "compaction":
        kept = draw(st.sampled_from([f"u{max(1, turn - 2)}", f"a{max(1, turn - 3)}", "gone"]))
        return {
            "compaction": name,
            "firstKept": kept,
            "summary": "## Goal\nso far",
            "tokensBefore": total,
        }
    if kind == "model_change":
        return {"model_change": name}
    return {kind: name, "tokens": draw(st.sampled_from([10, 800]))}
