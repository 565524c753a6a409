"""Paths as the user gives them: Pi's `resolvePath` for explicit resource paths (Pi 0.85.0).

An explicit skill, prompt-template, theme or extension path (`--skill`, `additionalSkillPaths`,
`loadSkills({skillPaths})`, ...) is resolved before anything is read (PATH-1 in
`corpora/README.md`):

- the value is trimmed as JavaScript's `trim()` does (spaces, tabs, line breaks, NBSP,
  BOM...), so `" /x/skills "` is `/x/skills` and a value of only spaces is `cwd` itself;
- `~` alone is `$HOME`, `~/rest` is `$HOME/rest` (`~//x` too is under `$HOME`; `~user`
  is an ordinary name);
- an absolute path is normalised (`.`, `..`, `//`), a relative one is resolved against
  `cwd`; `..` stops at the root of the listing;
- `is_local_path`: a value starting with `npm:`, `git:`, `github:`, `http:`, `https:` or
  `ssh:` (after trimming) names a package source, not a path: the loader reports no
  missing path for it.

A `file://` URL (which Pi turns into a path of the machine) is outside what a listing can
name: `InvalidInput`.
"""

from __future__ import annotations

import posixpath
from typing import Final

from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.frontmatter import js_trim
from ctxspec.reference.tree import normalize

__all__ = ["PACKAGE_PREFIXES", "is_local_path", "resolve_path"]

# PATH-1: what a value starts with when it names a package source, not a local path
PACKAGE_PREFIXES: Final = ("npm:", "git:", "github:", "http:", "https:", "ssh:")


def is_local_path(value: str) -> bool:
    """Pi's `isLocalPath`: not a package source or remote URL (after trimming).

    >>> is_local_path(" ./skills"), is_local_path("npm:@scope/pkg")
    (True, False)
    """
    return not js_trim(value).startswith(PACKAGE_PREFIXES)


def resolve_path(value: str, *, cwd: str, home: str | None, field: str) -> str:
    """PATH-1: `resolvePath(value, cwd, {trim: true})` over the listing's paths.

    `home` is `$HOME` (None: not given, so `~` cannot be expanded). Raises
    `InvalidInput(field)` for a `file://` URL, or `~` without a home.

    >>> resolve_path(" skills/../x ", cwd="/ws", home=None, field="skillPaths")
    '/ws/x'
    >>> resolve_path("~/s", cwd="/ws", home="/home/u", field="skillPaths")
    '/home/u/s'
    """
    core = js_trim(value)
    if core.startswith("file://"):
        raise InvalidInput(field, f"{value!r}: a file: URL names no path of the tree")
    if core == "~" or core.startswith("~/"):
        if home is None:
            raise InvalidInput("home", f"needed to expand {value!r}")
        # Node's path.join(home, rest) joins with "/": `~//x` is `$HOME/x` (posixpath.join
        # would restart at an absolute `/x`)
        return normalize(f"{home}/{core[2:]}")
    # path.resolve(cwd, value): an absolute value stands alone, as in posixpath.join
    return normalize(posixpath.join(cwd, core))
