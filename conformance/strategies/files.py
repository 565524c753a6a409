"""Hypothesis strategies for the file-system inputs of the tree ops, drawn at their sharp edges.

- `search_trees()`: a small project for `tool.grep` / `tool.read`: text, CRLF, BOM,
  binary (NUL) and non-UTF-8 files, hidden directories and files, `node_modules`,
  `.gitignore` / `.ignore` files (inside a git repository or not) with negations and
  anchored and directory patterns, symlinks (to a file, a directory, nowhere).
- `globs` and `grep_patterns`: ripgrep `--glob` values with braces, negations, classes and
  slashes; regexes and literals, invalid ones included.
- `front_matter()`: a skill file's text from YAML's sharp edges: 1.1 booleans
  (`yes`/`on`/`no`), block scalars (`|`, `>`, their chomping), quoting, duplicate keys,
  comments, CRLF, a BOM, an unclosed block.
- `skill_trees()`: skill roots with `SKILL.md` directories, loose `.md` files, nested,
  hidden and `node_modules` directories, non-markdown files, symlinked and repeated roots.
- `settings_patterns`: settings `skills` / `prompts` entries of every kind: plain paths,
  globs, `!x`, `+x`, `-x`.

Trees stay at a handful of files: the Pi adapter writes every one to disk per request.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import strategies as st

__all__ = [
    "front_matter",
    "globs",
    "grep_patterns",
    "prompt_template",
    "search_trees",
    "settings_patterns",
    "skill_trees",
]

_WORDS = ("foo", "Foo", "FOO", "bar", "foo bar", "é", "a.b", "x[1]", "🙂", "")

_LINE = st.sampled_from(_WORDS) | st.text(alphabet="fo ab\t.é", max_size=12)


def _b64(data: bytes) -> dict[str, str]:
    return {"contentB64": base64.b64encode(data).decode("ascii")}


@st.composite
def _file_content(draw: st.DrawFn) -> Any:
    """A file's content: text with odd line ends and a BOM, or raw binary / invalid bytes."""
    lines = draw(st.lists(_LINE, max_size=5), label="lines")
    ending = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]), label="eol")
    text = ending.join(lines) + draw(st.sampled_from(["", ending]), label="final eol")
    kind = draw(
        st.sampled_from(["text"] * 6 + ["bom", "nul", "latin1", "invalid", "empty"]), label="kind"
    )
    if kind == "text":
        return text
    if kind == "bom":
        return "\ufeff" + text
    if kind == "empty":
        return ""
    raw = text.encode("utf-8", "surrogatepass")
    if kind == "nul":  # ripgrep calls a file with a NUL binary and stops at it
        at = draw(st.integers(0, len(raw)), label="nul at")
        return _b64(raw[:at] + b"\x00" + raw[at:])
    if kind == "latin1":
        return _b64(text.encode("latin-1", "replace") + b"caf\xe9 foo\n")
    return _b64(raw + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80foo"])))


_DIRS = st.sampled_from(["", "src", "src/deep", ".hid", "node_modules", "docs", "sub dir", "é"])
_NAMES = st.sampled_from(
    ["a.txt", "b.md", "c.ts", "keep.md", ".hidden.txt", "d.log", "e.min.js", "É.txt", "f"]
)
_IGNORE_LINES = st.sampled_from(
    [
        "*.md",
        "!keep.md",
        "*.log",
        "src/",
        "/a.txt",
        "deep",
        "**/c.ts",
        "docs/*",
        "\\#x",
        "# comment",
        "",
        "*.txt",
        "!src/",
        "sub dir/",
        "b.*",
    ]
)


@st.composite
def search_trees(draw: st.DrawFn, root: str = "w") -> dict[str, Any]:
    """A project under `/<root>`: at most one searched file per directory (ripgrep's order
    across files is unspecified), ignore files, a git marker, binary files, symlinks."""
    dirs = draw(st.lists(_DIRS, min_size=1, max_size=4, unique=True), label="dirs")
    tree: dict[str, Any] = {}
    files: list[str] = []
    for folder in dirs:
        name = draw(_NAMES, label="name")
        path = f"{root}/{folder}/{name}" if folder else f"{root}/{name}"
        tree[path] = draw(_file_content(), label="content")
        files.append(path)
    for kind in draw(
        st.lists(st.sampled_from([".gitignore", ".ignore", ".rgignore"]), max_size=2, unique=True),
        label="ignore files",
    ):
        where = draw(st.sampled_from(["", *dirs]), label="ignore dir")
        lines = draw(st.lists(_IGNORE_LINES, min_size=1, max_size=4), label="ignore lines")
        tree[f"{root}/{where}/{kind}".replace("//", "/")] = "\n".join(lines) + "\n"
    if draw(st.booleans(), label="git"):
        tree[f"{root}/.git/HEAD"] = "ref: refs/heads/main\n"
    if draw(st.integers(0, 3), label="links") == 0:
        target = draw(st.sampled_from(files), label="link target")
        link_kind = draw(st.sampled_from(["file", "dir", "dangling"]), label="link kind")
        if link_kind == "file":
            tree[f"{root}/zz-link.txt"] = {"symlink": target.removeprefix(f"{root}/")}
        elif link_kind == "dir" and "/" in target.removeprefix(f"{root}/"):
            tree[f"{root}/zz-dirlink"] = {"symlink": target.removeprefix(f"{root}/").split("/")[0]}
        else:
            tree[f"{root}/zz-dangling"] = {"symlink": "nowhere.txt"}
    if draw(st.integers(0, 4), label="empty dir") == 0:
        tree[f"{root}/empty/"] = {}
    return tree


globs = st.sampled_from(
    [
        "*.txt",
        "*.md",
        "*.{md,txt}",
        "{a,b}.*",
        "!*.txt",
        "!*.md",
        "src/*",
        "src/**",
        "**/*.ts",
        "**/deep/*",
        "[ab].*",
        "[!a]*",
        "*",
        "**",
        ".hid/*",
        "sub dir/*",
        "*.{txt}",
        "a.txt",
        "/a.txt",
        "src/*.ts",
    ]
)

grep_patterns = st.sampled_from(
    [
        "foo",
        "fo+",
        "^foo",
        "foo$",
        "Foo",
        "a.b",
        "x\\[1\\]",
        "x[1]",
        "[",
        "(",
        "foo|bar",
        "\\bfoo\\b",
        "é",
        "🙂",
        ".",
        "\\d",
        "\\s+",
        "",
        "\\x{e9}",
        "(?i)foo",
        "caf",
        "o{2}",
        "[[:alpha:]]+",
        "\\p{L}",
        "foo\\n",
    ]
)

# --- skills --------------------------------------------------------------------------------

_NAME_VALUES = st.sampled_from(
    [
        "sk",
        "my-skill",
        "Bad_Name",
        "-lead",
        "trail-",
        "dou--ble",
        "x" * 65,
        "'quoted'",
        '"dq"',
        "yes",
        "null",
        "~",
        "123",
        "é-skill",
        "",
    ]
)
_DESCRIPTION_VALUES = st.sampled_from(
    [
        "does things",
        "'single quoted'",
        '"double \\t quoted"',
        "|\n  line one\n  line two\n",
        "|-\n  kept\n",
        "|+\n  kept\n\n",
        ">\n  folded\n  text\n",
        ">-\n  folded\n",
        "",
        "~",
        "null",
        "yes",
        "a: b",
        "x" * 1025,
        "[1, 2]",
        "{a: 1}",
        "12",
        "# not a comment",
        "trailing # comment",
        "&anchor text",
        "é 🙂 <&>",
    ]
)
_BOOLEAN_VALUES = st.sampled_from(
    ["true", "false", "yes", "no", "on", "off", "True", "TRUE", "y", "'true'", "1", "~", ""]
)


@st.composite
def front_matter(draw: st.DrawFn, name: str | None = None) -> str:
    """A skill file: front matter (maybe broken), then a body."""
    lines: list[str] = []
    keys = draw(
        st.lists(
            st.sampled_from(["name", "description", "disable-model-invocation", "other"]),
            max_size=5,
        ),
        label="keys",
    )  # repeats allowed: duplicate keys
    if name is not None and "name" not in keys and draw(st.booleans(), label="named"):
        keys.insert(0, "name")
    for key in keys:
        if key == "name":
            value = name if name is not None and draw(st.booleans()) else draw(_NAME_VALUES)
        elif key == "description":
            value = draw(_DESCRIPTION_VALUES)
        elif key == "disable-model-invocation":
            value = draw(_BOOLEAN_VALUES)
        else:
            value = draw(st.sampled_from(["x", "- a\n- b", "{", "key: [unclosed"]))
        lines.append(f"{key}: {value}".rstrip(" ").removesuffix("\n"))
    if draw(st.integers(0, 5), label="comment") == 0:
        lines.insert(0, "# a comment")
    opening = draw(st.sampled_from(["---", "---", "---", "--- ", "----"]), label="open")
    closing = draw(st.sampled_from(["---", "---", "---", "...", ""]), label="close")
    eol = draw(st.sampled_from(["\n", "\n", "\n", "\r\n"]), label="eol")
    bom = draw(st.sampled_from(["", "", "", "\ufeff"]), label="bom")
    body = draw(st.sampled_from(["body\n", "", "# Title\n\ntext\n"]), label="body")
    if not keys and draw(st.booleans(), label="no front matter"):
        return bom + body
    text = "\n".join([opening, *lines, closing]) + "\n" + body
    return bom + text.replace("\n", eol)


_SKILL_DIR_NAMES = st.sampled_from(["sk", "my-skill", "Bad_Name", ".hid", "node_modules", "é"])


@st.composite
def skill_trees(draw: st.DrawFn) -> dict[str, Any]:
    """`{tree, cwd, agentDir, home, skillPaths?, includeDefaults?}` for `skills.load`."""
    tree: dict[str, Any] = {}
    roots = ["agent/skills", "ws/.pi/skills", "home/.agents/skills", "ws/.agents/skills", "extra"]
    used = draw(st.lists(st.sampled_from(roots), min_size=1, max_size=3, unique=True), label="root")
    for root in used:
        for _ in range(draw(st.integers(1, 3), label="entries")):
            kind = draw(
                st.sampled_from(["dir", "dir", "loose", "nested", "non-md", "other-md"]),
                label="kind",
            )
            folder = draw(_SKILL_DIR_NAMES, label="dir")
            if kind == "dir":
                tree[f"{root}/{folder}/SKILL.md"] = draw(front_matter(folder))
            elif kind == "loose":
                tree[f"{root}/{folder}.md"] = draw(front_matter(None))
            elif kind == "nested":
                tree[f"{root}/grp/{folder}/SKILL.md"] = draw(front_matter(folder))
                if draw(st.booleans()):
                    tree[f"{root}/grp/{folder}/deeper/SKILL.md"] = draw(front_matter("deeper"))
            elif kind == "non-md":
                tree[f"{root}/{folder}/notes.txt"] = draw(front_matter(None))
            else:
                tree[f"{root}/{folder}/README.md"] = draw(front_matter(None))
    if draw(st.integers(0, 3), label="link") == 0:
        tree["agent/skills/linked"] = {"symlink": "../../" + used[0]}
    args: dict[str, Any] = {"tree": tree, "cwd": "/ws", "agentDir": "/agent", "home": "/home"}
    if draw(st.booleans(), label="skillPaths"):
        candidates = ["/extra", "/agent/skills", "/extra/sk/SKILL.md", "/extra/sk.md", "/nope"]
        candidates += [f"/{path}" for path in tree]
        args["skillPaths"] = draw(st.lists(st.sampled_from(candidates), max_size=3))
    if draw(st.integers(0, 3), label="defaults") == 0:
        args["includeDefaults"] = draw(st.sampled_from([False, True, None]))
    return args


def prompt_template(description: str | None) -> str:
    """A prompt template file, with a description in front matter or none."""
    if description is None:
        return "Do the thing\n"
    return f"---\ndescription: {description}\n---\nDo the thing\n"


settings_patterns = st.sampled_from(
    [
        "../extra",
        "extra",
        "extra/*",
        "extra/**",
        "extra/*.md",
        "!extra",
        "!extra/sk",
        "+extra/sk",
        "-extra/sk",
        "+extra/one.md",
        "-extra/one.md",
        "!**/one.md",
        "skills",
        "prompts",
        "./prompts/*.md",
        "nope",
        "/abs/none",
        "~/x",
    ]
)


def settings_file(skills: list[str] | None, prompts: list[str] | None) -> str:
    settings: dict[str, Any] = {}
    if skills is not None:
        settings["skills"] = skills
    if prompts is not None:
        settings["prompts"] = prompts
    return json.dumps(settings) + "\n"
