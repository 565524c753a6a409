"""One hypothesis strategy of arguments per op of protocol v1: `OP_ARGS[op]`.

Every drawn value is valid against the op's args schema (`schemas/ops/`), so a
difference between two implementations is a difference of behaviour, never of
validation. The rich inputs come from the other modules: `text` (hard strings),
`streams` (chunked byte streams, widened here to every UTF-8 boundary class),
`files` (trees with ignore files, binary and non-UTF-8 files, symlinks; globs; skill
front matter; settings patterns), `trees` (context-file trees, trust stores),
`entries` (sharp text for skills and prompts) and, for the session, message and
compaction ops, `session_ops` (`SESSION_OP_ARGS`). `ctxspec fuzz` draws from these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from hypothesis import strategies as st

from ctxspec.conformance.strategies import entries, files, streams, text, trees
from ctxspec.conformance.strategies.session_ops import SESSION_OP_ARGS

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


_SKILL_NAMES = st.one_of(
    st.sampled_from(["a", "b-c", "x&y", "<tag>", 'q"uote', "it's", "é", ""]), entries.sharp_text
)
_SKILL_TEXT = st.one_of(
    st.sampled_from(["does a", "<b> & 'c' \"d\"", "", "multi\nline", "🙂 x"]), entries.sharp_text
)


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
        args["appendSystemPrompt"] = draw(
            st.one_of(st.sampled_from(["Also this.", "", None]), entries.sharp_text)
        )
    if draw(st.booleans()):
        args["contextFiles"] = draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "path": st.one_of(
                            st.sampled_from(["/ws/AGENTS.md", "/a&b/<x>.md", "", '/w/"q".md']),
                            entries.sharp_text.map(lambda t: f"/w/{t}.md"),
                        ),
                        "content": st.one_of(
                            st.sampled_from(["rules\n", "", '<tag> & "q"', "a\r\nb"]),
                            entries.sharp_text,
                        ),
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
    **SESSION_OP_ARGS,
}
