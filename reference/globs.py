"""Glob patterns as Pi's package manager matches them: minimatch's defaults (RES-7).

- `glob_match(path, pattern)`: `minimatch(path, pattern)`: `*` and `?` stay within one
  segment, `**` spans segments, `{a,b}` braces and `[...]` classes expand, and a wildcard
  never matches a name starting with `.` unless the pattern writes the dot;
- `expand_glob(listing, pattern, root)`: the entries under `root` a package manifest's glob
  names (Node's `fs.globSync` with `cwd: root`), sorted by UTF-16 code units, none inside a
  `.`-name;
- RES-7, settings and package entries as patterns: `is_pattern` (an override `!x`, `+x`,
  `-x`, or a glob), `apply_patterns` (plain globs keep, `!` drops, `+` adds back, `-`
  drops for good), `enabled_by_overrides` (what a root's own file is: on unless `!`
  matches; `+`/`-` exact), `autoload_delta` (PKG-1: `autoload: false` patterns in turn).
  A pattern is tried on the path relative to the entries' directory, (globs only) the file
  name and the absolute path, and for a `SKILL.md` on its directory too.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from functools import cache
from typing import Final

from ctxspec.reference._utf16 import utf16_key
from ctxspec.reference.tree import Listing, Symlink, join

__all__ = [
    "OVERRIDE_PREFIXES",
    "apply_patterns",
    "autoload_delta",
    "enabled_by_overrides",
    "expand_glob",
    "glob_match",
    "is_pattern",
]

OVERRIDE_PREFIXES: Final = ("!", "+", "-")


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
    # matched whole (`fullmatch`): minimatch's `$` is the end of the path, where Python's
    # `$` would also match before a final "\n"
    return re.compile(regex)


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
        if regex is not None and regex.fullmatch(path):
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
    return sorted(found, key=utf16_key)  # Pi sorts with `<`: UTF-16 code units


def is_pattern(entry: str) -> bool:
    # an override (`!x`, `+x`, `-x`) or a glob (`*`, `?`); anything else is a path
    return entry.startswith(OVERRIDE_PREFIXES) or "*" in entry or "?" in entry


def _relative(base: str, path: str) -> str:
    return posixpath.relpath(path, base) if path != base else ""


def _pattern_targets(path: str, base: str, *, exact: bool) -> list[str]:
    """What a pattern is tried on: the path relative to the base, (globs only) the file
    name, and the absolute path; for a SKILL.md also its directory."""
    targets = (
        [_relative(base, path), path]
        if exact
        else [_relative(base, path), posixpath.basename(path), path]
    )
    if posixpath.basename(path) == "SKILL.md":
        directory = posixpath.dirname(path)
        targets += (
            [_relative(base, directory), directory]
            if exact
            else [_relative(base, directory), posixpath.basename(directory), directory]
        )
    return targets


def _matches(path: str, patterns: Sequence[str], base: str) -> bool:
    targets = _pattern_targets(path, base, exact=False)
    return any(glob_match(t, p) for p in patterns for t in targets)


def _matches_exact(path: str, patterns: Sequence[str], base: str) -> bool:
    targets = _pattern_targets(path, base, exact=True)
    return any(p.removeprefix("./") in targets for p in patterns)


def enabled_by_overrides(path: str, entries: Sequence[str], base: str) -> bool:
    """An auto-found path is on unless a `!glob` matches it; `+path` turns it back on,
    `-path` off (both exact paths), in that order."""
    excludes = [e[1:] for e in entries if e.startswith("!")]
    includes = [e[1:] for e in entries if e.startswith("+")]
    removes = [e[1:] for e in entries if e.startswith("-")]
    enabled = not (excludes and _matches(path, excludes, base))
    if includes and _matches_exact(path, includes, base):
        enabled = True
    if removes and _matches_exact(path, removes, base):
        enabled = False
    return enabled


def apply_patterns(files: Sequence[str], patterns: Sequence[str], base: str) -> list[str]:
    """Patterns over the files plain entries gave: plain globs keep what they match
    (all, when none), `!glob` drops, `+path` adds back, `-path` drops for good."""
    includes = [p for p in patterns if not p.startswith(OVERRIDE_PREFIXES)]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    adds = [p[1:] for p in patterns if p.startswith("+")]
    removes = [p[1:] for p in patterns if p.startswith("-")]
    kept = [f for f in files if not includes or _matches(f, includes, base)]
    if excludes:
        kept = [f for f in kept if not _matches(f, excludes, base)]
    if adds:
        kept += [f for f in files if f not in kept and _matches_exact(f, adds, base)]
    if removes:
        kept = [f for f in kept if not _matches_exact(f, removes, base)]
    return kept


def autoload_delta(files: Sequence[str], patterns: Sequence[str], base: str) -> dict[str, bool]:
    """PKG-1: an `autoload: false` entry's patterns, each in turn: `!x`/`-x` switch the
    files they match off, others on (`+x`/`-x` exact, the rest globs)."""
    result: dict[str, bool] = {}
    for pattern in patterns:
        prefixed = pattern.startswith(OVERRIDE_PREFIXES)
        target = pattern[1:] if prefixed else pattern
        exact = pattern.startswith(("+", "-"))
        for file in files:
            hit = _matches_exact(file, [target], base) if exact else _matches(file, [target], base)
            if hit:
                result[file] = not pattern.startswith(("-", "!"))
    return result
