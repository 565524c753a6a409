"""Ignore files inside resource directories: what Pi's scans pass over (Pi 0.85.0).

When Pi scans a directory for skills, prompt templates, themes or extensions, it reads
the ignore files of `IGNORE_FILES` in every directory it enters and skips the entries
they match. The rules (IGN-1..IGN-4 in `corpora/README.md`):

- IGN-1, reading a file: lines split on `\\n` (a `\\r` before it dropped); a line blank
  after JS `trim()`, or whose trimmed text starts with `#`, is no pattern. Otherwise the
  line *untrimmed* is the pattern: a leading `!` marks a negation and is set aside, a
  leading `\\!` loses its backslash, then one leading `/` is dropped, and the pattern is
  prefixed with the directory's path relative to the scan's root (`sub/`), the `!` put
  back in front. So a nested `foo` becomes `sub/foo`, which (having a `/`) only matches
  `sub/foo`, not `sub/x/foo` as git would; at the root, `\\!x` becomes the negation `!x`.
  An unreadable ignore file adds nothing. A file's leading BOM is part of its first line.
- IGN-2, one pattern (the `ignore` package 7, which Pi uses): rules accumulate in the
  order the scan reads them and the last rule matching a path decides (a `!` rule
  re-includes); a path inside an ignored directory is ignored whatever later rules say.
  Matching is case-insensitive. A pattern is turned into a JavaScript regular expression
  by `REWRITES`, a table of rewrites applied in order (each with the gitignore rule it
  implements), then the trailing-wildcard rule `TRAILING_STAR`; `ctxspec.reference._jsregex`
  runs it. The package's own quirks come with it: `[!a]` is no negated class, `\\d` is a
  digit, a trailing `\\*` is a wildcard, an unclosed `[` matches nothing.
- IGN-3, what is tested: the entry's path relative to the scan's root, with a final `/`
  for a directory where the scan asks about directories (which scan asks what is in
  `ctxspec.reference.resources` and `ctxspec.reference.skills`).
- IGN-4, a pattern whose expression V8 rejects makes the test throw (`IgnoreRuleError`):
  Pi's scans catch it and give up on the rest of that directory.

`read_rules(listing, directory, root, matcher)` adds a directory's rules to a scan's
`IgnoreMatcher`; `matcher.ignores(path)` answers one entry.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from ctxspec.reference._jsregex import JS_SPACE, JsRegex, JsSyntaxError, compile_js
from ctxspec.reference.frontmatter import js_trim
from ctxspec.reference.tree import Listing, join

__all__ = [
    "IGNORE_FILES",
    "REWRITES",
    "IgnoreMatcher",
    "IgnoreRuleError",
    "pattern_regex",
    "read_rules",
    "scan_patterns",
]

IGNORE_FILES: Final = (".gitignore", ".ignore", ".fdignore")
_WS: Final = f"[{JS_SPACE}]"


class IgnoreRuleError(ValueError):
    """IGN-4: a rule's regular expression is one V8 rejects; the scan of the directory
    that met it stops there."""


def scan_patterns(text: str, prefix: str) -> list[str]:
    """IGN-1: the patterns one ignore file adds, for a directory at `prefix` (`""` at the
    scan's root, else `sub/`).

    >>> scan_patterns("# notes\\n/build\\n!keep.md\\n\\n", "sub/")
    ['sub/build', '!sub/keep.md']
    """
    patterns: list[str] = []
    for line in re.split(r"\r?\n", text):
        trimmed = js_trim(line)
        if not trimmed or trimmed.startswith("#"):
            continue
        pattern, negated = line, False
        if pattern.startswith("!"):
            pattern, negated = pattern[1:], True
        elif pattern.startswith("\\!"):
            pattern = pattern[1:]
        pattern = pattern.removeprefix("/")
        prefixed = prefix + pattern
        full = "!" + prefixed if negated else prefixed
        if full:
            patterns.append(full)
    return patterns


def _anchor(match: re.Match[str], body: str) -> str:
    # a `/` at the start or in the middle anchors the pattern at the root; a pattern
    # with none (or only a trailing one) matches at any depth (read on the raw body)
    return "^" if re.search(r"/(?!$)", body) else r"(?:^|\/)"


def _globstar(match: re.Match[str], body: str) -> str:
    # `/**/` is zero or more directories; a trailing `/**` everything inside
    return r"(?:\/[^\/]+)*" if match.start() + 6 < len(match.string) else r"\/.+"


def _range(match: re.Match[str], body: str) -> str:
    escaped, inside, backslashes, close = match.groups()
    if escaped:  # `\[` is a literal bracket
        return rf"\[{inside}{backslashes[: len(backslashes) - len(backslashes) % 2]}{close}"
    if close == "]" and len(backslashes) % 2 == 0:
        # a range out of order is dropped (a JS error otherwise)
        kept = re.sub(r"([0-z])-([0-z])", lambda m: m.group(0) if m[1] <= m[2] else "", inside)
        return f"[{kept}{backslashes}]"
    return "[]"  # an unclosed or broken class matches nothing


Rewrite = tuple[str, Callable[[re.Match[str], str], str]]

# IGN-2: node-ignore's rewrites of a pattern into a regular expression, in order
REWRITES: Final[tuple[Rewrite, ...]] = (
    # a leading BOM goes
    ("^\ufeff", lambda m, b: ""),
    # "Trailing spaces are ignored unless they are quoted with backslash": an escaped
    # run becomes one space
    (rf"((?:\\\\)*?)(\\?{_WS}+)\Z", lambda m, b: m[1] + (" " if m[2].startswith("\\") else "")),
    # an escaped space (or other whitespace) is a space
    (rf"(\\+?){_WS}", lambda m, b: m[1][: len(m[1]) - len(m[1]) % 2] + " "),
    # the regular expression metacharacters are literal
    (r"[\\$.|*+(){^]", lambda m, b: "\\" + m[0]),
    # "a question mark (?) matches a single character" (any `?`, escaped or not)
    (r"\?", lambda m, b: "[^/]"),
    # "A leading slash matches the beginning of the pathname"
    (r"\A/", lambda m, b: "^"),
    (r"/", lambda m, b: r"\/"),
    # "A leading `**` followed by a slash means match in all directories"
    (r"\A\^*\\\*\\\*\\/", lambda m, b: r"^(?:.*\/)?"),
    (r"\A(?=[^^])", _anchor),
    (r"\\/\\\*\\\*(?=\\/|\Z)", _globstar),
    # "An asterisk `*` matches anything except a slash" (a run counts as one)
    (
        r"(^|[^\\]+)(\\\*)+(?=[^\n\r\u2028\u2029])",
        lambda m, b: m[1] + r"[^\/]*",
    ),
    # an escaped metacharacter is itself; a doubled backslash one backslash
    (r"\\\\\\(?=[$.|*+(){^])", lambda m, b: "\\"),
    (r"\\\\", lambda m, b: "\\"),
    # "The range notation, e.g. [a-zA-Z], can be used to match one of the characters"
    (r"(\\)?\[([^\]/]*?)(\\*)(\Z|\])", _range),
    # a trailing `/` matches only a directory (tested with a final `/`); else the
    # pattern matches the path or a directory of that name
    (r"[^*]\Z", lambda m, b: m[0] + "$" if m[0] == "/" else m[0] + r"(?=$|\/$)"),
)
# IGN-2: a final `*` matches within the last segment; after a `/`, at least one character
TRAILING_STAR: Final = r"(^|\\/)?\\\*\Z"


def _trailing_star(match: re.Match[str]) -> str:
    return (match[1] + "[^/]+" if match[1] else "[^/]*") + r"(?=$|\/$)"


def pattern_regex(body: str) -> str:
    """IGN-2: the JavaScript source of the expression for one pattern (its `!` removed).

    >>> pattern_regex("sub/*.md")
    '^sub\\\\/[^\\\\/]*\\\\.md(?=$|\\\\/$)'
    """
    source = body
    for regex, replace in REWRITES:
        source = re.sub(regex, functools.partial(_apply, replace, body), source)
    return re.sub(TRAILING_STAR, _trailing_star, source, count=1)


def _apply(replace: Callable[[re.Match[str], str], str], body: str, match: re.Match[str]) -> str:
    return replace(match, body)


def _valid(pattern: str) -> bool:
    """Whether the package keeps a pattern: not empty, not blank, not ending in one
    backslash, not a `#` comment."""
    return (
        pattern != ""
        and re.fullmatch(f"{_WS}+", pattern) is None
        and re.search(r"(?:[^\\]|^)\\\Z", pattern) is None
        and not pattern.startswith("#")
    )


@dataclass(slots=True)
class _Rule:
    negative: bool
    source: str
    _regex: JsRegex | None = None

    def test(self, path: str) -> bool:
        if self._regex is None:  # built when first needed, as the package does
            try:
                self._regex = compile_js(self.source)
            except JsSyntaxError as error:
                raise IgnoreRuleError(str(error)) from None
        return self._regex.test(path)


def _rule(pattern: str) -> _Rule:
    negative = pattern.startswith("!")
    body = pattern[1:] if negative else pattern
    if body.startswith("\\!"):
        body = "!" + body[2:]
    elif body.startswith("\\#"):
        body = "#" + body[2:]
    return _Rule(negative=negative, source=pattern_regex(body))


class IgnoreMatcher:
    """The rules one scan has read so far (Pi shares one matcher across a whole scan)."""

    def __init__(self) -> None:
        self._rules: list[_Rule] = []

    def add(self, patterns: Iterable[str]) -> None:
        self._rules += [_rule(p) for p in patterns if _valid(p)]

    def _test(self, path: str) -> bool:
        # IGN-2: the last matching rule decides; a rule that cannot change the answer
        # is not tried (so a broken one is met only when it could matter)
        ignored = unignored = False
        for rule in self._rules:
            if rule.negative == unignored and ignored != unignored:
                continue
            if rule.negative and not ignored and not unignored:
                continue
            if rule.test(path):
                ignored, unignored = not rule.negative, rule.negative
        return ignored

    def ignores(self, path: str) -> bool:
        """IGN-2: whether `path` (relative, `/`-separated, a final `/` for a directory)
        is ignored: a parent directory first, then the path itself. Raises
        `IgnoreRuleError` (IGN-4).

        >>> m = IgnoreMatcher(); m.add(["drafts/", "!drafts/keep.md"])
        >>> m.ignores("drafts/keep.md"), m.ignores("DRAFTS/"), m.ignores("notes.md")
        (True, True, False)
        """
        parts = [p for p in path.split("/") if p]
        for depth in range(1, len(parts)):
            if self._test("/".join(parts[:depth]) + "/"):
                return True
        return self._test(path)


def read_rules(listing: Listing, directory: str, root: str, matcher: IgnoreMatcher) -> None:
    """IGN-1: add the rules of `directory`'s ignore files to `matcher`, prefixed with the
    directory's path relative to `root`."""
    relative = posixpath.relpath(directory, root) if directory != root else ""
    prefix = relative + "/" if relative else ""
    for name in IGNORE_FILES:
        text = listing.read_text(join(directory, name))
        if text is not None:
            matcher.add(scan_patterns(text, prefix))
