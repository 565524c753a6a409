"""Arguments of the session, message and compaction ops (protocol 1.0 and 1.1), for fuzz.

One strategy per op, `SESSION_OP_ARGS[op]`, each drawing from what the corpus holds and
from what it only samples: sessions mixing every entry type behind headers of every
version (`entries.mixed_trees`, `entries.session_files`), ids naming no entry
(`entries.ids_of`), messages with every optional field and sharp text
(`entries.messages`), and sessions long enough for Pi's default settings
(`entries.long_sessions`) with those settings left out. The plain `sessions` strategies
still draw a share, so the earlier shapes stay covered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from hypothesis import strategies as st

from ctxspec.conformance.strategies import entries, sessions

__all__ = ["SESSION_OP_ARGS", "messages"]

_USAGE = {
    "input": 0,
    "output": 0,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 0,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}
_TEXT = st.text(alphabet="ab é🙂\n<&", max_size=40)


@st.composite
def _usage(draw: st.DrawFn) -> dict[str, Any]:
    usage: dict[str, Any] = json.loads(json.dumps(_USAGE))
    usage["input"] = draw(st.integers(0, 500))
    usage["output"] = draw(st.integers(0, 50))
    usage["totalTokens"] = draw(st.sampled_from([0, usage["input"] + usage["output"], 1000]))
    return usage


# tool-call argument keys where JavaScript's key order is sharp: array indices (up to
# 2**32 - 2) first and ascending, everything else (leading zeros, signs, fractions, spaces,
# 2**32 - 1, Unicode digits) in inserted order
_ARGUMENT_KEYS = st.sampled_from(
    ["path", "b", "0", "1", "10", "01", "-1", "1.5", " 2", "4294967294", "4294967295",
     "\u0661", "\u00b2", "\uff11", "__proto__", "é"]
)  # fmt: skip
_ARGUMENT_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10**6),
    st.sampled_from([1.5, -0.0, 0.1, 1e21, 2.0]),
    st.text(st.sampled_from('a"\\\n\té🙂'), max_size=4),
)
_ARGUMENT_VALUES = st.recursive(
    _ARGUMENT_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_ARGUMENT_KEYS, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _assistant(draw: st.DrawFn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for kind in draw(st.lists(st.sampled_from(["text", "thinking", "toolCall"]), max_size=3)):
        if kind == "text":
            content.append({"type": "text", "text": draw(_TEXT)})
        elif kind == "thinking":
            content.append({"type": "thinking", "thinking": draw(_TEXT)})
        else:
            content.append(
                {
                    "type": "toolCall",
                    "id": draw(st.sampled_from(["c1", "c2"])),
                    "name": draw(st.sampled_from(["read", "write", "edit", "bash", "grep"])),
                    "arguments": draw(
                        st.one_of(
                            st.sampled_from(
                                [{"path": "a.ts"}, {"path": "b/é.md"}, {"command": "ls -l"}, {}]
                            ),
                            st.dictionaries(_ARGUMENT_KEYS, _ARGUMENT_VALUES, max_size=5),
                        )
                    ),
                }
            )
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "api": "messages",
        "provider": "anthropic",
        "model": "m1",
        "stopReason": draw(st.sampled_from(["stop", "toolUse", "length", "error", "aborted"])),
        "usage": draw(_usage()),
        "timestamp": 2,
    }
    if message["stopReason"] == "error" and draw(st.booleans()):
        message["errorMessage"] = "boom"
    return message


@st.composite
def _plain_message(draw: st.DrawFn) -> dict[str, Any]:
    """One agent message of any role Pi's context layer knows (and one it does not)."""
    role = draw(
        st.sampled_from(
            [
                "user",
                "user",
                "assistant",
                "assistant",
                "toolResult",
                "bashExecution",
                "custom",
                "branchSummary",
                "compactionSummary",
                "other",
            ]
        )
    )
    if role == "user":
        content: Any = draw(
            st.one_of(
                _TEXT,
                st.lists(
                    st.one_of(
                        _TEXT.map(lambda t: {"type": "text", "text": t}),
                        st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
                    ),
                    max_size=2,
                ),
            )
        )
        return {"role": "user", "content": content, "timestamp": 1}
    if role == "assistant":
        return draw(_assistant())
    if role == "toolResult":
        return {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": draw(st.sampled_from(["read", "bash"])),
            "content": [{"type": "text", "text": draw(_TEXT)}],
            "isError": draw(st.booleans()),
            "timestamp": 3,
        }
    if role == "bashExecution":
        message = {
            "role": "bashExecution",
            "command": draw(st.sampled_from(["ls", "echo `x`", ""])),
            "output": draw(_TEXT),
            "exitCode": draw(st.sampled_from([0, 1, None])),
            "cancelled": draw(st.booleans()),
            "truncated": draw(st.booleans()),
            "timestamp": 4,
        }
        if draw(st.booleans()):
            message["fullOutputPath"] = "/tmp/out.log"
        if draw(st.integers(0, 3)) == 0:
            message["excludeFromContext"] = True
        return message
    if role == "custom":
        return {
            "role": "custom",
            "customType": "note",
            "content": draw(_TEXT),
            "display": draw(st.booleans()),
            "timestamp": 5,
        }
    if role == "branchSummary":
        return {"role": "branchSummary", "summary": draw(_TEXT), "fromId": "e1", "timestamp": 6}
    if role == "compactionSummary":
        return {
            "role": "compactionSummary",
            "summary": draw(_TEXT),
            "tokensBefore": draw(st.integers(0, 999)),
            "timestamp": 7,
        }
    return {"role": "mystery", "content": "x", "timestamp": 8}


# one message: the earlier shapes (tool-call arguments with keys JavaScript orders sharply),
# or any role with optional fields and sharp text
messages = st.one_of(_plain_message(), entries.messages())
_MESSAGES = st.lists(messages, max_size=6)
_SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "enabled": st.booleans(),
        "reserveTokens": st.sampled_from([0, 10, 100, 16384, -5, 0.5]),
        "keepRecentTokens": st.sampled_from([0, 1, 10, 50, 200, 20000]),
    },
)
_WINDOWS = st.sampled_from([0, 100, 400, 1000, 128000, -1, 0.5])
# windows around Pi's default threshold for a long session: window - 16384 near its size
_LONG_WINDOWS = st.sampled_from([30000, 40000, 60000, 80000, 128000])
# paths for the compaction functions: the plain shapes, every entry type, and one of 10k
# to 60k tokens; the long ones mostly at Pi's default settings (None: settings left out)
_FOCUS = st.one_of(st.sampled_from(["focus on tests", ""]), entries.sharp_text)
_PATHS_TO_COMPACT = st.one_of(
    sessions.linear_sessions(),
    entries.mixed_paths(),
    entries.mixed_paths(),
    entries.long_sessions(),
)


def _long(entries_: list[Any]) -> bool:
    return len(entries_) > 30


@st.composite
def _compaction_should(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {"contextWindow": draw(_WINDOWS)}
    choice = draw(st.integers(0, 5))
    if choice < 2:
        args["contextTokens"] = draw(st.one_of(st.integers(-1, 200000), st.just(0.5)))
    elif choice < 5:
        args["messages"] = draw(_MESSAGES)
    else:  # a long session's messages at the default reserve, around its threshold
        path = draw(entries.long_sessions())
        args["messages"] = [e["message"] for e in path if e.get("type") == "message"]
        args["contextWindow"] = draw(_LONG_WINDOWS)
        return args
    if draw(st.booleans()):
        args["settings"] = draw(_SETTINGS)
    return args


def _entries_or_jsonl(draw: st.DrawFn, drawn: list[Any]) -> dict[str, Any]:
    """`drawn`, or the same as a session file's text with a header and noise lines."""
    if draw(st.integers(0, 4)):
        return {"entries": drawn}
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z"}
    if any(isinstance(e, dict) and e.get("type") == "session" for e in drawn):
        lines = [json.dumps(entry) for entry in drawn]  # it has its own header
    else:
        lines = [json.dumps(header)] + [json.dumps(entry) for entry in drawn]
    # blank and bad lines, and pieces that are JSON only together ("[1" then "2]")
    for _ in range(draw(st.integers(0, 2))):
        noise = draw(st.sampled_from(["", "{", "42", " ", "[1", "2]", "1,2", '"a', "}", "\u00a0"]))
        lines.insert(draw(st.integers(0, len(lines))), noise)
    return {"jsonl": "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))}


@st.composite
def _cut_point(draw: st.DrawFn) -> dict[str, Any]:
    path = draw(_PATHS_TO_COMPACT)
    keep: float
    if _long(path):  # Pi's default budget, and now and then a little off it
        keep = draw(st.sampled_from([20000, 20000, 20000, 19999, 20001, 10000]))
    else:
        keep = draw(st.sampled_from([0, 1, 5, 20, 100, 1e6]))
        path = draw(entries.session_files(path))
    args: dict[str, Any] = {"entries": path, "keepRecentTokens": keep}
    if draw(st.integers(0, 2)) == 0:
        args["startIndex"] = draw(st.integers(0, len(path)))
    if draw(st.integers(0, 2)) == 0:
        args["endIndex"] = draw(st.integers(0, len(path)))
    return args


def _settings_for(draw: st.DrawFn, path: list[Any], args: dict[str, Any]) -> None:
    """Settings for a compaction of `path`: mostly none (Pi's defaults) for a long one."""
    if draw(st.integers(0, 3) if _long(path) else st.booleans()) == 1:
        args["settings"] = draw(_SETTINGS)


@st.composite
def _compaction_prepare(draw: st.DrawFn) -> dict[str, Any]:
    path = draw(_PATHS_TO_COMPACT)
    args = _entries_or_jsonl(draw, path)
    _settings_for(draw, path, args)
    return args


@st.composite
def _reply(draw: st.DrawFn) -> dict[str, Any]:
    reply: dict[str, Any] = {"text": draw(st.sampled_from(["Summary.", "", "## Goal\nx"]))}
    if draw(st.integers(0, 3)) == 0:
        reply["stopReason"] = draw(st.sampled_from(["stop", "length", "error", "aborted"]))
    if draw(st.integers(0, 3)) == 0:
        reply["usage"] = draw(_usage())
    if draw(st.integers(0, 3)) == 0:
        reply["text"] = draw(entries.sharp_text)
    if reply.get("stopReason") == "error":
        reply["errorMessage"] = "provider down"
    return reply


@st.composite
def _model(draw: st.DrawFn) -> dict[str, Any]:
    model: dict[str, Any] = {"reply": draw(_reply())}
    if draw(st.booleans()):
        model["contextWindow"] = draw(st.sampled_from([0, 200, 1000, 128000]))
    if draw(st.booleans()):
        model["maxTokens"] = draw(st.sampled_from([0, 100, 4096]))
    return model


@st.composite
def _compaction_compact(draw: st.DrawFn) -> dict[str, Any]:
    path = draw(_PATHS_TO_COMPACT)
    args = _entries_or_jsonl(draw, path)
    model = draw(_model())
    if draw(st.booleans()):
        model["turnPrefixReply"] = draw(_reply())
    if draw(st.integers(0, 3)) == 0:
        model["reasoning"] = draw(st.booleans())
    args["model"] = model
    _settings_for(draw, path, args)
    if draw(st.integers(0, 2)) == 0:
        args["customInstructions"] = draw(_FOCUS)
    if draw(st.integers(0, 3)) == 0:
        args["thinkingLevel"] = draw(st.sampled_from(["off", "low", "high"]))
    return args


@st.composite
def _compaction_failure(draw: st.DrawFn) -> dict[str, Any]:
    response = draw(_assistant())
    return {"response": response, "label": draw(st.sampled_from(["Summarization", "Branch", ""]))}


# a session tree: the plain shapes, or every entry type behind a header of any version
_TREES = st.one_of(sessions.session_trees(), entries.mixed_trees().flatmap(entries.session_files))


@st.composite
def _session_context(draw: st.DrawFn) -> dict[str, Any]:
    tree = draw(_TREES)
    args = _entries_or_jsonl(draw, tree)
    if draw(st.booleans()):
        args["leafId"] = draw(st.one_of(entries.ids_of(tree), st.none()))
    return args


@st.composite
def _session_parse(draw: st.DrawFn) -> dict[str, Any]:
    args = _entries_or_jsonl(draw, draw(_TREES))
    if "jsonl" not in args:
        args = {"jsonl": "\n".join(json.dumps(e) for e in args["entries"])}
    if draw(st.booleans()):
        args["jsonl"] = draw(st.sampled_from(["\ufeff", " ", "\r\n", ""])) + args["jsonl"]
    return args


@st.composite
def _branch_collect(draw: st.DrawFn) -> dict[str, Any]:
    tree = draw(_TREES)
    args = _entries_or_jsonl(draw, tree)
    args["targetId"] = draw(entries.ids_of(tree))
    if draw(st.integers(0, 3)):
        args["oldLeafId"] = draw(st.one_of(entries.ids_of(tree), st.none()))
    return args


@st.composite
def _branch_prepare(draw: st.DrawFn) -> dict[str, Any]:
    args = _entries_or_jsonl(draw, draw(_TREES))
    if draw(st.booleans()):
        args["tokenBudget"] = draw(st.sampled_from([0, 1, 10, 50, 1000, -1]))
    return args


@st.composite
def _branch_summarize(draw: st.DrawFn) -> dict[str, Any]:
    args = _entries_or_jsonl(draw, draw(_TREES))
    if draw(st.integers(0, 5)):
        args["model"] = draw(_model())
    if draw(st.booleans()):
        args["reserveTokens"] = draw(st.sampled_from([0, 10, 100, 16384]))
    if draw(st.integers(0, 2)) == 0:
        args["customInstructions"] = draw(_FOCUS)
    if draw(st.integers(0, 2)) == 0:
        args["replaceInstructions"] = draw(st.booleans())
    return args


@st.composite
def _session_navigate(draw: st.DrawFn) -> dict[str, Any]:
    tree = draw(_TREES)
    args = _entries_or_jsonl(draw, tree)
    args.update(targetId=draw(entries.ids_of(tree)), timestamp="2026-06-01T00:00:00.000Z")
    if draw(st.integers(0, 3)):
        args["leafId"] = draw(st.one_of(entries.ids_of(tree), st.none()))
    if draw(st.booleans()):
        args["summarize"] = draw(st.booleans())
        args["model"] = draw(_model())
    if draw(st.integers(0, 3)) == 0:
        args["customInstructions"] = draw(_FOCUS)
    if draw(st.integers(0, 3)) == 0:
        args["replaceInstructions"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        args["label"] = draw(st.one_of(st.sampled_from(["checkpoint", ""]), entries.sharp_text))
    if draw(st.integers(0, 3)) == 0:
        args["reserveTokens"] = draw(st.sampled_from([0, 100, 16384]))
    return args


@st.composite
def _session_run(draw: st.DrawFn) -> dict[str, Any]:
    args = draw(sessions.agent_runs())
    choice = draw(st.integers(0, 7))
    if choice == 0:
        args["entries"] = draw(sessions.linear_sessions(max_entries=5))
    elif choice == 1:
        args["entries"] = draw(entries.mixed_paths(max_entries=6).flatmap(entries.session_files))
    elif choice == 2:  # a long session at Pi's defaults, its window around the threshold
        args["entries"] = draw(entries.long_sessions())
        args["model"] = {"id": "m1", "contextWindow": draw(_LONG_WINDOWS)}
        del args["settings"]
        for reply in args["replies"]:
            if draw(st.booleans()):
                reply["usage"] = {**reply["usage"], "totalTokens": draw(st.integers(15000, 70000))}
    return args


@st.composite
def _turn_start(draw: st.DrawFn) -> dict[str, Any]:
    path = draw(st.one_of(sessions.linear_sessions(), entries.mixed_paths()))
    args = _entries_or_jsonl(draw, path)
    args["entryIndex"] = draw(st.integers(-1, len(path)))
    if draw(st.booleans()):
        args["startIndex"] = draw(st.integers(-1, len(path)))
    return args


_PATHS = st.lists(
    st.one_of(st.sampled_from(["a.ts", "b/c.ts", "é.md", "a.ts", "", "x y"]), entries.sharp_text),
    max_size=4,
)


@st.composite
def _file_lists(draw: st.DrawFn) -> dict[str, Any]:
    return {"fileOps": {"read": draw(_PATHS), "written": draw(_PATHS), "edited": draw(_PATHS)}}


@st.composite
def _usage_record(draw: st.DrawFn) -> dict[str, Any]:
    usage = draw(_usage())
    usage["cacheRead"] = draw(st.sampled_from([0, 7, 0.5]))
    usage["cacheWrite"] = draw(st.sampled_from([0, 3]))
    if draw(st.integers(0, 3)) == 0:
        del usage["totalTokens"]
    return {"usage": usage}


SESSION_OP_ARGS: Final[Mapping[str, st.SearchStrategy[dict[str, Any]]]] = {
    "tokens.estimate": st.builds(lambda m: {"message": m}, messages),
    "context.estimate": st.builds(lambda ms: {"messages": ms}, _MESSAGES),
    "compaction.should": _compaction_should(),
    "compaction.cut_point": _cut_point(),
    "compaction.prepare": _compaction_prepare(),
    "compaction.serialize": st.builds(lambda ms: {"messages": ms}, _MESSAGES),
    "compaction.failure": _compaction_failure(),
    "compaction.compact": _compaction_compact(),
    "session.parse": _session_parse(),
    "session.context": _session_context(),
    "branch.collect": _branch_collect(),
    "branch.prepare": _branch_prepare(),
    "branch.summarize": _branch_summarize(),
    "session.navigate": _session_navigate(),
    "session.run": _session_run(),
    "messages.convert": st.builds(lambda ms: {"messages": ms}, _MESSAGES),
    # protocol 1.1: the session helpers
    "tokens.calculate": _usage_record(),
    "compaction.last_usage": st.builds(lambda e: {"entries": e}, _TREES),
    "compaction.turn_start": _turn_start(),
    "session.context_entries": _session_context(),
    "compaction.file_lists": _file_lists(),
    "compaction.format_file_ops": st.fixed_dictionaries(
        {"readFiles": _PATHS, "modifiedFiles": _PATHS}
    ),
}
