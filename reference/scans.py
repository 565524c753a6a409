"""Directory scans: which files a directory offers as resources of a kind (Pi 0.85.0,
`package-manager.js`).

- `skill_entries(listing, dir, mode)`: RES-1, RES-3, the skill files under a directory
  (`pi` mode for `.pi/skills`, `<agentDir>/skills`, settings entries and packages;
  `agents` mode for `.agents/skills`);
- `collect_files(listing, dir, suffixes)`: RES-6, a settings entry's or a package's
  directory of prompts or themes, to any depth;
- `root_files(listing, dir, suffix)`: RES-6, a prompt or theme root's own files;
- `extension_entries(listing, dir)`: EXT-1, an extensions directory's entry points;
- `resource_files(listing, dir, kind)`: the scan for a kind; `files_from_paths` expands
  a list of paths with it; `manifest(listing, dir)`: PKG-2, a `package.json`'s `pi` field.

Every scan skips names starting with `.` and `node_modules`, and passes over what the
ignore files it reads match (RES-9, `ctxspec.reference.ignore`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Sequence
from typing import Final

from ctxspec.reference._jsjson import js_parse
from ctxspec.reference.ignore import IgnoreMatcher, IgnoreRuleError, read_rules
from ctxspec.reference.tree import Listing, join, strip_bom

__all__ = [
    "FILE_SUFFIXES",
    "RESOURCE_TYPES",
    "Scan",
    "begin_scan",
    "collect_files",
    "extension_entries",
    "files_from_paths",
    "manifest",
    "resource_files",
    "root_files",
    "scan_children",
    "skill_entries",
]

RESOURCE_TYPES: Final = ("extensions", "skills", "prompts", "themes")
# which files a directory of each kind gives (`extensions` dirs have their own rule)
FILE_SUFFIXES: Final = {
    "extensions": (".ts", ".js"),
    "skills": (".md",),
    "prompts": (".md",),
    "themes": (".json",),
}


Scan = tuple[str, IgnoreMatcher]


def begin_scan(listing: Listing, directory: str, scan: Scan | None = None) -> Scan | None:
    """RES-9: the scan that enters `directory` (its top and its matcher; a new scan's top
    is the directory itself) with the directory's ignore rules added, or None when the
    directory does not exist."""
    if not listing.exists(directory):
        return None
    top, matcher = scan if scan is not None else (directory, IgnoreMatcher())
    read_rules(listing, directory, top, matcher)
    return top, matcher


def scan_children(listing: Listing, directory: str) -> Iterator[tuple[str, str, bool, bool]]:
    """The entries every scan looks at, in the listing's order: (name, path, is_dir,
    is_file), names starting with `.`, `node_modules` and dangling links left out. Each
    scan then tests them against its ignore rules its own way."""
    for name in listing.children(directory):
        if name.startswith(".") or name == "node_modules":
            continue
        path = join(directory, name)
        is_dir, is_file = listing.is_dir(path), listing.is_file(path)
        if is_dir or is_file:
            yield name, path, is_dir, is_file


def skill_entries(
    listing: Listing, directory: str, mode: str, scan: Scan | None = None
) -> list[str]:
    """The skill files under a directory (RES-1, RES-3): a directory with `SKILL.md`
    gives that file only; else `.`-names and `node_modules` are skipped, `*.md` files
    count at the top (`pi` mode) or below it (`agents` mode, `.agents/skills`), and
    sub-directories are searched. RES-9: an ignored `.md` file or directory (tested
    with a final `/`) is passed over."""
    begun = begin_scan(listing, directory, scan)
    if begun is None:
        return []
    top, matcher = begun
    found: list[str] = []
    try:
        own = join(directory, "SKILL.md")
        if listing.is_file(own) and not matcher.ignores(posixpath.relpath(own, top)):
            return [own]
        for name, path, is_dir, is_file in scan_children(listing, directory):
            rel = posixpath.relpath(path, top)
            if (
                is_file
                and name.endswith(".md")
                and not matcher.ignores(rel)
                and (directory == top) == (mode == "pi")
            ):
                found.append(path)
            elif is_dir and not matcher.ignores(rel + "/"):
                found += skill_entries(listing, path, mode, (top, matcher))
    except IgnoreRuleError:
        pass
    return found


def collect_files(
    listing: Listing, directory: str, suffixes: tuple[str, ...], scan: Scan | None = None
) -> list[str]:
    """RES-6: the files of a settings entry's directory to any depth (`.`-names and
    `node_modules` skipped); RES-9: every directory's ignore rules, directories tested
    with a final `/`."""
    begun = begin_scan(listing, directory, scan)
    if begun is None:
        return []
    top, matcher = begun
    found: list[str] = []
    try:
        for name, path, is_dir, _ in scan_children(listing, directory):
            rel = posixpath.relpath(path, top)
            if matcher.ignores(rel + "/" if is_dir else rel):
                continue
            if is_dir:
                found += collect_files(listing, path, suffixes, (top, matcher))
            elif name.endswith(suffixes):
                found.append(path)
    except IgnoreRuleError:
        pass
    return found


def root_files(listing: Listing, directory: str, suffix: str) -> list[str]:
    """RES-6: a prompt or theme root's own files (`.`-names and `node_modules` skipped);
    RES-9: the root's ignore rules, each entry tested bare."""
    begun = begin_scan(listing, directory)
    if begun is None:
        return []
    _, matcher = begun
    found: list[str] = []
    try:
        for name, path, _, is_file in scan_children(listing, directory):
            if matcher.ignores(name):
                continue
            if is_file and name.endswith(suffix):
                found.append(path)
    except IgnoreRuleError:
        pass
    return found


def manifest(listing: Listing, directory: str) -> dict[str, list[str]] | None:
    """PKG-2: the `pi` field of a directory's package.json: the string-list entries per
    kind (None: no such field, or no readable JSON object)."""
    text = listing.read_text(join(directory, "package.json"))
    if text is None:
        return None
    try:
        package = js_parse(strip_bom(text))  # JSON.parse: NaN or Infinity is no JSON
    except ValueError:
        return None
    if not isinstance(package, dict) or not isinstance(package.get("pi"), dict):
        return None
    manifest: dict[str, list[str]] = {}
    for kind in RESOURCE_TYPES:
        entries = package["pi"].get(kind)
        if isinstance(entries, list) and all(isinstance(e, str) for e in entries):
            manifest[kind] = entries
    return manifest


def _extension_entry(listing: Listing, directory: str) -> list[str] | None:
    """EXT-1: a directory's extension entry points: its manifest's existing `extensions`
    paths, else `index.ts`, else `index.js`; None when it has none."""
    found = manifest(listing, directory)
    if found and found.get("extensions"):
        named = [join(directory, e) for e in found["extensions"]]
        present = [p for p in named if listing.exists(p)]
        if present:
            return present
    for index in ("index.ts", "index.js"):
        if listing.exists(join(directory, index)):
            return [join(directory, index)]
    return None


def extension_entries(listing: Listing, directory: str) -> list[str]:
    """EXT-1: an extensions directory: its own entry points if it has any; else its
    `*.ts`/`*.js` files and the entry points of its sub-directories (`.`-names and
    `node_modules` skipped; RES-9: the directory's ignore rules, sub-directories tested
    with a final `/`)."""
    begun = begin_scan(listing, directory)
    if begun is None:
        return []
    own = _extension_entry(listing, directory)
    if own is not None:
        return own
    _, matcher = begun
    found: list[str] = []
    try:
        for name, path, is_dir, is_file in scan_children(listing, directory):
            if matcher.ignores(name + "/" if is_dir else name):
                continue
            if is_file and name.endswith((".ts", ".js")):
                found.append(path)
            elif is_dir:
                found += _extension_entry(listing, path) or []
    except IgnoreRuleError:
        pass
    return found


def resource_files(listing: Listing, directory: str, kind: str) -> list[str]:
    """The files a directory gives as resources of `kind`."""
    if kind == "skills":
        return skill_entries(listing, directory, "pi")
    if kind == "extensions":
        return extension_entries(listing, directory)
    return collect_files(listing, directory, FILE_SUFFIXES[kind])


def files_from_paths(listing: Listing, paths: Sequence[str], kind: str) -> list[str]:
    files: list[str] = []
    for path in paths:
        if listing.is_file(path):
            files.append(path)
        elif listing.is_dir(path):
            files += resource_files(listing, path, kind)
    return files
