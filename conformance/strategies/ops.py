"""One hypothesis strategy of arguments per op of protocol v1: `OP_ARGS[op]`.

Every drawn value is valid against the op's args schema (`schemas/ops/`), so a
difference between two implementations is a difference of behaviour, never of
validation. The rich inputs come from the other modules: `text` (hard strings),
`streams` (chunked byte streams, widened here to every UTF-8 boundary class),
`files` (trees with ignore files, binary and non-UTF-8 files, symlinks; globs; skill
front matter; settings patterns), `trees` (context-file trees, trust stores) and
`sessions` (session trees and agent runs). `ctxspec fuzz` draws from these.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from hypothesis import strategies as st

from conformance.strategies import files, sessions, streams, text, trees

__all__ = ["OP_ARGS", "UTF8_BOUNDARY_PIECES", "chunked_streams"]

# every class of UTF-8 sequence a decoder treats differently, whole and as its prefixes
UTF8_BOUNDARY_PIECES: Final = (
    *streams.HARD_PIECES,
    b"\x7f",  # last 1-byte
    b"\xc2\x80",  # first 2-byte
    b"\xdf\xbf",  # last 2-byte
    b"\xc0\x80",
    b"\xc1\xbf",  # overlong 2-byte leads
    b"\xe0\xa0\x80",  # first 3-byte
    b"\xe0\x80\x80",  # overlong 3-byte
    b"\xed\x9f\xbf",  # last before the surrogates
    b"\xed\xa0",
    b"\xed\xbf\xbf",  # surrogate range: a prefix, the last
    b"\xee\x80\x80",  # first private use
    b"\xef\xbf\xbf",  # last 3-byte
    b"\xf0\x90\x80\x80",  # first 4-byte
    b"\xf0\x80\x80\x80",  # overlong 4-byte
    b"\xf4\x8f\xbf\xbf",  # last code point
    b"\xf4\x90\x80\x80",  # past U+10FFFF
    b"\xf0\x9f\x99",  # a 4-byte prefix of three
    b"\xf5",
    b"\xfe",
    b"\xc3\x28",  # a lead followed by ASCII
)


@st.composite
def chunked_streams(draw: st.DrawFn, max_pieces: int = 40) -> list[str]:
    """Bytes of boundary pieces cut anywhere into chunks, as `chunksB64`."""
    data = b"".join(draw(st.lists(st.sampled_from(UTF8_BOUNDARY_PIECES), max_size=max_pieces)))
    cuts = draw(st.lists(st.integers(0, max(len(data), 1)), max_size=8))
    return streams.encode_chunks(streams.chunked(data, cuts))


_LIMITS = st.one_of(
    st.none(),
    st.integers(-2, 12),
    st.integers(0, 80),
    st.sampled_from([0.5, 1.5, 2.9, -0.5, 51200, 2000]),
)


@st.composite
def _truncate(draw: st.DrawFn) -> dict[str, Any]:
    content = draw(text.texts)
    args: dict[str, Any] = {"content": content}
    if draw(st.booleans()):
        args["maxLines"] = draw(st.one_of(_LIMITS, text.line_limit))
    if draw(st.booleans()):
        args["maxBytes"] = draw(st.one_of(_LIMITS, text.limits_near(content)))
    return args


@st.composite
def _truncate_line(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {"line": draw(text.texts)}
    if draw(st.booleans()):
        args["maxChars"] = draw(_LIMITS)
    return args


_SIZES = st.one_of(
    st.integers(-2048, 4096),
    st.sampled_from([1023, 1024, 1025, 1048575, 1048576, 1073741824, 10**12, 51200, 52429]),
    st.integers(0, 2**40).map(lambda n: n * 1024 // 1000),
    st.floats(-1e7, 1e13, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.5, 1023.5, 1048524.8, 104857.55, 1535.9, -0.0]),
)


@st.composite
def _stream_tail(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {"chunksB64": draw(chunked_streams())}
    limits = draw(streams.stream_limits)
    for key, value in limits.items():
        if draw(st.integers(0, 4)):
            args[key] = value
    if draw(st.booleans()):
        args["persistIfTruncated"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        args["finish"] = False
    return args


@st.composite
def _tool_bash(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {"chunksB64": draw(chunked_streams())}
    if draw(st.booleans()):
        args["exitCode"] = draw(st.sampled_from([0, 1, 2, 3, 127, 255]))
    ending = draw(st.integers(0, 30))  # a timeout or an abort costs Pi's adapter ~0.7 s
    if ending == 0:
        args["timedOut"] = True
        args["timeout"] = draw(st.sampled_from([1, 2, 0.5]))
    elif ending == 1:
        args["aborted"] = True
    return args


_READ_PATHS = ("a.txt", "@a.txt", "./a.txt", "src/c.ts", "/w/a.txt", "nope.txt", "src", ".hid")


@st.composite
def _tool_read(draw: st.DrawFn) -> dict[str, Any]:
    tree = draw(files.search_trees())
    paths = [p.removeprefix("w/") for p, v in tree.items() if not p.endswith("/")]
    args: dict[str, Any] = {
        "tree": tree,
        "path": draw(st.sampled_from([*paths, *_READ_PATHS])),
        "cwd": "/w",
    }
    if draw(st.booleans()):
        args["offset"] = draw(st.one_of(st.integers(-1, 8), st.sampled_from([0.5, 2.5])))
    if draw(st.booleans()):
        args["limit"] = draw(st.one_of(st.integers(-1, 8), st.sampled_from([0.5, 1.5])))
    return args


@st.composite
def _tool_grep(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {
        "tree": draw(files.search_trees()),
        "pattern": draw(files.grep_patterns),
        "cwd": "/w",
    }
    if draw(st.integers(0, 2)) == 0:
        args["path"] = draw(st.sampled_from([".", "src", "a.txt", "/w", ".hid", "nope", "docs"]))
    if draw(st.booleans()):
        args["glob"] = draw(files.globs)
    for key in ("ignoreCase", "literal"):
        if draw(st.integers(0, 2)) == 0:
            args[key] = draw(st.booleans())
    if draw(st.integers(0, 2)) == 0:
        args["context"] = draw(st.integers(0, 3))
    if draw(st.integers(0, 2)) == 0:
        args["limit"] = draw(st.sampled_from([1, 2, 3, 0, 100, 1.5]))
    return args


# --- instructions, trust, skills, resources ---------------------------------------------


@st.composite
def _odd_context_files(draw: st.DrawFn, tree: dict[str, Any], cwd: str) -> None:
    """Add context-file edge cases to a context tree: BOM, invalid bytes, a directory or
    a link of a candidate's name."""
    kind = draw(st.sampled_from(["none", "none", "bom", "invalid", "dir", "link", "dangling"]))
    where = cwd.lstrip("/")
    if kind == "bom":
        tree[f"{where}/AGENTS.md"] = "\ufeff\ufeffbom twice\r\n"
    elif kind == "invalid":
        tree[f"{where}/AGENTS.md"] = {"contentB64": "aGkg/yD+Cg=="}
    elif kind == "dir":
        tree.pop(f"{where}/AGENTS.md", None)  # a path is a file or a directory, not both
        tree[f"{where}/AGENTS.md/"] = {}
        tree[f"{where}/CLAUDE.md"] = "claude\n"
    elif kind == "link":
        tree[f"{where}/AGENTS.md"] = {"symlink": "../target.md"}
        tree[cwd.rsplit("/", 1)[0].lstrip("/") + "/target.md"] = "linked\n"
    elif kind == "dangling":
        tree[f"{where}/AGENTS.md"] = {"symlink": "missing.md"}


@st.composite
def _context_discover(draw: st.DrawFn) -> dict[str, Any]:
    args = draw(trees.context_trees())
    draw(_odd_context_files(args["tree"], args["cwd"]))
    return args


@st.composite
def _trust_resolve(draw: st.DrawFn) -> dict[str, Any]:
    args = draw(trees.context_trees())
    if draw(st.booleans()):
        args["trustStore"] = draw(trees.trust_stores(args["cwd"]))
    elif draw(st.integers(0, 3)) == 0:
        args["tree"]["agent/trust.json"] = draw(
            st.sampled_from(['{"/x": 1}', "[]", "\ufeff{}", "null", '{"a": "yes"}'])
        )
    if draw(st.integers(0, 2)) == 0:
        args["trustOverride"] = draw(st.sampled_from([True, False, None]))
    if draw(st.integers(0, 2)) == 0:
        args["defaultProjectTrust"] = draw(st.sampled_from(["always", "never", "ask", "x", None]))
    return args


_SKILL_NAMES = st.sampled_from(["a", "b-c", "x&y", "<tag>", 'q"uote', "it's", "é", ""])
_SKILL_TEXT = st.sampled_from(["does a", "<b> & 'c' \"d\"", "", "multi\nline", "🙂 x"])


@st.composite
def _skill_in(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(_SKILL_NAMES)
    skill: dict[str, Any] = {
        "name": name,
        "description": draw(_SKILL_TEXT),
        "filePath": draw(st.sampled_from([f"/s/{name}/SKILL.md", "/s/x.md", "/a&b/<c>.md"])),
    }
    if draw(st.booleans()):
        skill["baseDir"] = draw(st.sampled_from(["/s", "/s/base", ""]))
    if draw(st.booleans()):
        skill["disableModelInvocation"] = draw(st.booleans())
    return skill


@st.composite
def _skills_format(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {"skills": draw(st.lists(_skill_in(), max_size=4))}
    if draw(st.booleans()):
        args["fileReadTool"] = draw(st.sampled_from(["read", "bash", None]))
    return args


_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls", "custom")


@st.composite
def _prompt_build(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {"cwd": draw(st.sampled_from(["/ws/repo", "/", "/a b/é"]))}
    if draw(st.booleans()):
        args["customPrompt"] = draw(st.sampled_from(["You are X.", "", "  pad  \n", None]))
    if draw(st.booleans()):
        args["selectedTools"] = draw(st.lists(st.sampled_from(_TOOLS), max_size=5))
    if draw(st.integers(0, 2)) == 0:
        args["toolSnippets"] = draw(
            st.dictionaries(st.sampled_from(_TOOLS), st.sampled_from(["Run it", "", "x\ny"]))
        )
    if draw(st.integers(0, 2)) == 0:
        args["promptGuidelines"] = draw(
            st.lists(st.sampled_from(["Be brief", "  Be brief  ", "", "Use & <tags>"]), max_size=4)
        )
    if draw(st.integers(0, 2)) == 0:
        args["appendSystemPrompt"] = draw(st.sampled_from(["Also this.", "", None]))
    if draw(st.booleans()):
        args["contextFiles"] = draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "path": st.sampled_from(["/ws/AGENTS.md", "/a&b/<x>.md", ""]),
                        "content": st.sampled_from(["rules\n", "", '<tag> & "q"', "a\r\nb"]),
                    }
                ),
                max_size=3,
            )
        )
    if draw(st.booleans()):
        args["skills"] = draw(st.lists(_skill_in(), max_size=3))
    return args


@st.composite
def _resources_load(draw: st.DrawFn) -> dict[str, Any]:
    cwd = "/ws/repo"
    tree: dict[str, Any] = {"ws/repo/.git/HEAD": "ref: refs/heads/main\n"}
    skill_args = draw(files.skill_trees())
    for path, value in skill_args["tree"].items():  # skill roots moved to where loaders look
        tree[path.replace("ws/", "ws/repo/", 1) if path.startswith("ws/") else path] = value
    tree["ws/repo/extra/sk/SKILL.md"] = "---\nname: sk\ndescription: extra skill\n---\n"
    tree["ws/repo/extra/one.md"] = files.prompt_template(draw(st.sampled_from([None, "one"])))
    tree["agent/extra/one.md"] = files.prompt_template(None)
    for where in draw(
        st.lists(
            st.sampled_from(["agent/prompts", "ws/repo/.pi/prompts", "ws/repo/prompts"]),
            max_size=2,
            unique=True,
        )
    ):
        for name in draw(
            st.lists(
                st.sampled_from(["p.md", ".hidden.md", "q.txt", "sub/r.md", "P.MD"]), max_size=3
            )
        ):
            tree[f"{where}/{name}"] = files.prompt_template(
                draw(st.sampled_from([None, "desc", "'quoted'", "yes"]))
            )
    for settings in draw(
        st.lists(
            st.sampled_from(["agent/settings.json", "ws/repo/.pi/settings.json"]),
            max_size=2,
            unique=True,
        )
    ):
        skills = draw(st.one_of(st.none(), st.lists(files.settings_patterns, max_size=3)))
        prompts = draw(st.one_of(st.none(), st.lists(files.settings_patterns, max_size=3)))
        tree[settings] = files.settings_file(skills, prompts)
    if draw(st.integers(0, 3)) == 0:
        tree["ws/repo/AGENTS.md"] = "project rules\n"
    if draw(st.integers(0, 3)) == 0:
        tree[draw(st.sampled_from(["agent/SYSTEM.md", "ws/repo/.pi/SYSTEM.md"]))] = "system\n"
    if draw(st.integers(0, 3)) == 0:
        tree["agent/APPEND_SYSTEM.md"] = "appended\n"
    args: dict[str, Any] = {"tree": tree, "cwd": cwd, "agentDir": "/agent", "home": "/home"}
    if draw(st.booleans()):
        args["projectTrusted"] = draw(st.sampled_from([True, False, None]))
    for key in ("additionalSkillPaths", "additionalPromptTemplatePaths"):
        if draw(st.integers(0, 3)) == 0:
            args[key] = draw(
                st.lists(
                    st.sampled_from(["/ws/repo/extra", "/ws/repo/extra/one.md", "/nope"]),
                    max_size=2,
                )
            )
    for key in ("noSkills", "noPromptTemplates", "noContextFiles"):
        if draw(st.integers(0, 4)) == 0:
            args[key] = draw(st.sampled_from([True, False, None]))
    if draw(st.integers(0, 3)) == 0:
        args["systemPrompt"] = draw(st.sampled_from(["/agent/SYSTEM.md", "literal prompt", None]))
    if draw(st.integers(0, 3)) == 0:
        args["appendSystemPrompt"] = draw(
            st.lists(st.sampled_from(["/agent/APPEND_SYSTEM.md", "extra text"]), max_size=2)
        )
    return args


# --- sessions, messages, compaction -----------------------------------------------------

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
def messages(draw: st.DrawFn) -> dict[str, Any]:
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


_MESSAGES = st.lists(messages(), max_size=6)
_SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "enabled": st.booleans(),
        "reserveTokens": st.sampled_from([0, 10, 100, 16384, -5, 0.5]),
        "keepRecentTokens": st.sampled_from([0, 1, 10, 50, 200, 20000]),
    },
)
_WINDOWS = st.sampled_from([0, 100, 400, 1000, 128000, -1, 0.5])


@st.composite
def _compaction_should(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {"contextWindow": draw(_WINDOWS)}
    if draw(st.booleans()):
        args["contextTokens"] = draw(st.one_of(st.integers(-1, 200000), st.just(0.5)))
    else:
        args["messages"] = draw(_MESSAGES)
    if draw(st.booleans()):
        args["settings"] = draw(_SETTINGS)
    return args


def _entries_or_jsonl(draw: st.DrawFn, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """`entries`, or the same as a session file's text with a header and noise lines."""
    if draw(st.integers(0, 4)):
        return {"entries": entries}
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z"}
    lines = [json.dumps(header)] + [json.dumps(entry) for entry in entries]
    # blank and bad lines, and pieces that are JSON only together ("[1" then "2]")
    for _ in range(draw(st.integers(0, 2))):
        noise = draw(st.sampled_from(["", "{", "42", " ", "[1", "2]", "1,2", '"a', "}", "\u00a0"]))
        lines.insert(draw(st.integers(0, len(lines))), noise)
    return {"jsonl": "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))}


@st.composite
def _cut_point(draw: st.DrawFn) -> dict[str, Any]:
    entries = draw(sessions.linear_sessions())
    args = {"entries": entries, "keepRecentTokens": draw(st.sampled_from([0, 1, 5, 20, 100, 1e6]))}
    if draw(st.booleans()):
        args["startIndex"] = draw(st.integers(0, len(entries)))
    if draw(st.booleans()):
        args["endIndex"] = draw(st.integers(0, len(entries)))
    return args


@st.composite
def _compaction_prepare(draw: st.DrawFn) -> dict[str, Any]:
    args = _entries_or_jsonl(draw, draw(sessions.linear_sessions()))
    if draw(st.booleans()):
        args["settings"] = draw(_SETTINGS)
    return args


@st.composite
def _reply(draw: st.DrawFn) -> dict[str, Any]:
    reply: dict[str, Any] = {"text": draw(st.sampled_from(["Summary.", "", "## Goal\nx"]))}
    if draw(st.integers(0, 3)) == 0:
        reply["stopReason"] = draw(st.sampled_from(["stop", "length", "error", "aborted"]))
    if draw(st.integers(0, 3)) == 0:
        reply["usage"] = draw(_usage())
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
    args = _entries_or_jsonl(draw, draw(sessions.linear_sessions()))
    model = draw(_model())
    if draw(st.booleans()):
        model["turnPrefixReply"] = draw(_reply())
    if draw(st.integers(0, 3)) == 0:
        model["reasoning"] = draw(st.booleans())
    args["model"] = model
    if draw(st.booleans()):
        args["settings"] = draw(_SETTINGS)
    if draw(st.integers(0, 2)) == 0:
        args["customInstructions"] = draw(st.sampled_from(["focus on tests", ""]))
    if draw(st.integers(0, 3)) == 0:
        args["thinkingLevel"] = draw(st.sampled_from(["off", "low", "high"]))
    return args


@st.composite
def _compaction_failure(draw: st.DrawFn) -> dict[str, Any]:
    response = draw(_assistant())
    return {"response": response, "label": draw(st.sampled_from(["Summarization", "Branch", ""]))}


@st.composite
def _session_context(draw: st.DrawFn) -> dict[str, Any]:
    entries = draw(sessions.session_trees())
    args = _entries_or_jsonl(draw, entries)
    if draw(st.booleans()):
        args["leafId"] = draw(st.sampled_from([*[e["id"] for e in entries], None, "gone"]))
    return args


@st.composite
def _session_parse(draw: st.DrawFn) -> dict[str, Any]:
    args = _entries_or_jsonl(draw, draw(sessions.session_trees()))
    if "jsonl" not in args:
        args = {"jsonl": "\n".join(json.dumps(e) for e in args["entries"])}
    if draw(st.booleans()):
        args["jsonl"] = draw(st.sampled_from(["\ufeff", " ", "\r\n", ""])) + args["jsonl"]
    return args


@st.composite
def _branch_collect(draw: st.DrawFn) -> dict[str, Any]:
    entries, old, target = draw(sessions.tree_with_leaves())
    args = _entries_or_jsonl(draw, entries)
    args["targetId"] = target
    if draw(st.integers(0, 3)):
        args["oldLeafId"] = draw(st.sampled_from([old, None]))
    return args


@st.composite
def _branch_prepare(draw: st.DrawFn) -> dict[str, Any]:
    args = _entries_or_jsonl(draw, draw(sessions.session_trees()))
    if draw(st.booleans()):
        args["tokenBudget"] = draw(st.sampled_from([0, 1, 10, 50, 1000, -1]))
    return args


@st.composite
def _branch_summarize(draw: st.DrawFn) -> dict[str, Any]:
    args = _entries_or_jsonl(draw, draw(sessions.session_trees()))
    if draw(st.integers(0, 5)):
        args["model"] = draw(_model())
    if draw(st.booleans()):
        args["reserveTokens"] = draw(st.sampled_from([0, 10, 100, 16384]))
    if draw(st.integers(0, 2)) == 0:
        args["customInstructions"] = draw(st.sampled_from(["focus", ""]))
    if draw(st.integers(0, 2)) == 0:
        args["replaceInstructions"] = draw(st.booleans())
    return args


@st.composite
def _session_navigate(draw: st.DrawFn) -> dict[str, Any]:
    entries, leaf, target = draw(sessions.tree_with_leaves())
    args = _entries_or_jsonl(draw, entries)
    args.update(targetId=target, timestamp="2026-06-01T00:00:00.000Z")
    if draw(st.integers(0, 3)):
        args["leafId"] = leaf
    if draw(st.booleans()):
        args["summarize"] = draw(st.booleans())
        args["model"] = draw(_model())
    if draw(st.integers(0, 3)) == 0:
        args["customInstructions"] = "focus"
    if draw(st.integers(0, 3)) == 0:
        args["replaceInstructions"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        args["label"] = draw(st.sampled_from(["checkpoint", ""]))
    if draw(st.integers(0, 3)) == 0:
        args["reserveTokens"] = draw(st.sampled_from([0, 100, 16384]))
    return args


@st.composite
def _session_run(draw: st.DrawFn) -> dict[str, Any]:
    args = draw(sessions.agent_runs())
    if draw(st.integers(0, 3)) == 0:
        args["entries"] = draw(sessions.linear_sessions(max_entries=5))
    return args


@st.composite
def _turn_start(draw: st.DrawFn) -> dict[str, Any]:
    entries = draw(sessions.linear_sessions())
    args = _entries_or_jsonl(draw, entries)
    args["entryIndex"] = draw(st.integers(-1, len(entries)))
    if draw(st.booleans()):
        args["startIndex"] = draw(st.integers(-1, len(entries)))
    return args


_PATHS = st.lists(st.sampled_from(["a.ts", "b/c.ts", "é.md", "a.ts", "", "x y"]), max_size=4)


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


OP_ARGS: Final[Mapping[str, st.SearchStrategy[dict[str, Any]]]] = {
    "truncate.head": _truncate(),
    "truncate.tail": _truncate(),
    "truncate.line": _truncate_line(),
    "format.size": st.builds(lambda n: {"bytes": n}, _SIZES),
    "stream.tail": _stream_tail(),
    "tool.read": _tool_read(),
    "tool.bash": _tool_bash(),
    "tool.grep": _tool_grep(),
    "context.discover": _context_discover(),
    "trust.resolve": _trust_resolve(),
    "skills.load": files.skill_trees(),
    "skills.format": _skills_format(),
    "resources.load": _resources_load(),
    "prompt.build": _prompt_build(),
    "tokens.estimate": st.builds(lambda m: {"message": m}, messages()),
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
    "compaction.last_usage": st.builds(lambda e: {"entries": e}, sessions.session_trees()),
    "compaction.turn_start": _turn_start(),
    "session.context_entries": _session_context(),
    "compaction.file_lists": _file_lists(),
    "compaction.format_file_ops": st.fixed_dictionaries(
        {"readFiles": _PATHS, "modifiedFiles": _PATHS}
    ),
}
