"""Glob patterns as Pi's package manager matches them: minimatch's defaults (RES-7).

- `glob_match(path, pattern)`: `minimatch(path, pattern)`: `*` and `?` stay within one
  segment, `**` spans segments, `{a,b}` braces and `[...]` classes expand, and a wildcard
  never matches a name starting with `.` unless the pattern writes the dot;
- `expand_glob(listing, pattern, root)`: the entries under `root` a package manifest's glob
  names (Node's `fs.globSync` with `cwd: root`), sorted, none inside a `.`-name.
"""

from __future__ import annotations

import posixpath
import re
from functools import cache

from reference.tree import Listing, Symlink, join

__all__ = ["expand_glob", "glob_match"]


def _segment_regex(segment: str) -> str:
    # minimatch without `dot`: a wildcard never matches a leading `.`
    regex = "" if segment.startswith(".") else "(?!\\.)"
    i = 0
    while i < len(segment):
        char = segment[i]
        close = segment.find("]", i + 2) if char == "[" else -1
        if char == "*":
            regex += "[^/]*"
        elif char == "?":
            regex += "[^/]"
        elif close != -1:
            body = segment[i + 1 : close]
            negate = body[0] in "!^"
            body = re.sub(r"([\\\]\[^])", r"\\\1", body[1:] if negate else body)
            regex += "[" + ("^" if negate else "") + body.replace("\\-", "-") + "]"
            i = close
        else:
            regex += re.escape(char)
        i += 1
    return regex


@cache
def _glob_regex(pattern: str) -> re.Pattern[str] | None:
    """One minimatch pattern (braces expanded) as a regex; None for a `#` comment."""
    if pattern.startswith("#"):
        return None
    segments = pattern.split("/")
    regex = ""
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":  # any number of segments, none starting with `.`
            regex += "(?:(?!\\.)[^/]+(?:/(?!\\.)[^/]+)*)?" if last else "(?:(?!\\.)[^/]+/)*"
        else:
            regex += _segment_regex(segment) + ("" if last else "/")
    return re.compile(regex + "$")


def _braces(pattern: str) -> list[str]:
    """`a{b,c}d` as `abd`, `acd` (nested sets expanded one at a time)."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    out: list[str] = []
    for option in match.group(1).split(","):
        out += _braces(pattern[: match.start()] + option + pattern[match.end() :])
    return out


def glob_match(path: str, pattern: str) -> bool:
    """RES-7: `minimatch(path, pattern)` with its defaults (`*` stays in one segment, `**`
    spans segments, braces, classes, no dot files unless the pattern names the dot).

    >>> glob_match("a/b/SKILL.md", "a/**/*.md"), glob_match("a/.b/x.md", "a/*/x.md")
    (True, False)
    """
    for option in _braces(pattern):
        regex = _glob_regex(option)
        if regex is not None and regex.match(path):
            return True
    return False


def expand_glob(listing: Listing, pattern: str, root: str) -> list[str]:
    """The paths under `root` (files and directories, links not entered) whose path
    relative to `root` matches `pattern`; names starting with `.` are never reached.

    >>> tree = Listing.from_wire({"p/a/x.ts": "", "p/.h/y.ts": "", "p/b.ts": ""})
    >>> expand_glob(tree, "**/*.ts", "/p")
    ['/p/a/x.ts', '/p/b.ts']
    """
    found: list[str] = []

    def walk(directory: str) -> None:
        for name in listing.children(directory):
            if name.startswith("."):
                continue
            path = join(directory, name)
            if glob_match(posixpath.relpath(path, root), pattern):
                found.append(path)
            own = listing.resolve(path, follow_last=False)
            if listing.is_dir(path) and not isinstance(listing.entries.get(own or ""), Symlink):
                walk(path)

    if listing.is_dir(root):
        walk(root)
    return sorted(found)
