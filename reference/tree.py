"""A listing of a file tree: what the context rules read, as plain data.

A `Listing` maps virtual absolute POSIX paths (`/ws/repo/AGENTS.md`) to entries: a
`File` (its bytes, and whether it can be read), a `Directory`, or a `Symlink` (its
target as written). Parents are implied: `/ws/a.md` makes `/ws` a directory. The
discovery, trust and skill rules ask it the questions Node's `fs` answers for Pi:

- `resolve(path)` / `realpath(path)`: the path with every symlink followed (relative
  targets against the link's directory, absolute ones from the listing's root), or None
  when a component is missing, not a directory, or the links loop (`ELOOP`, 40 hops);
- `exists`, `is_file`, `is_dir`: `existsSync` and `statSync(...).isFile()/isDirectory()`
  (following links; a dangling link or a loop does not exist);
- `children(path)`: the names in a directory, sorted;
- `read_text(path)`: `readFileSync(path, "utf-8")` (invalid UTF-8 becomes U+FFFD) with
  `strip_bom` applied by callers that strip it; None when the file cannot be read.

Build one with `Listing.from_wire(tree)` (the protocol's virtual tree) or, from a real
directory, with `ctxspec.reference.edge.listing.read_listing`.
"""

from __future__ import annotations

import base64
import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ctxspec.reference import _utf8
from ctxspec.reference.errors import InvalidInput

__all__ = [
    "MAX_SYMLINK_HOPS",
    "Directory",
    "Entry",
    "File",
    "Listing",
    "Symlink",
    "join",
    "normalize",
    "parent",
    "strip_bom",
]

# Linux gives up with ELOOP after 40 links in one lookup; so does the listing
MAX_SYMLINK_HOPS: Final = 40
BOM: Final = "\ufeff"


@dataclass(frozen=True, slots=True, kw_only=True)
class File:
    """A regular file: its bytes, and whether the reader may open it."""

    data: bytes = b""
    readable: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Directory:
    """A directory (its children are the listing's paths under it)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Symlink:
    """A symbolic link; `target` as written (relative to the link's directory, or absolute)."""

    target: str


Entry = File | Directory | Symlink


def normalize(path: str) -> str:
    """An absolute POSIX path with `.`/`..`/`//` resolved lexically (Node's `resolve`).

    >>> normalize("/ws//repo/./a/../b/")
    '/ws/repo/b'
    """
    if not path.startswith("/"):
        raise InvalidInput("path", f"{path!r} is not an absolute path")
    normal = posixpath.normpath(path)
    return "/" + normal.lstrip("/") if normal.startswith("//") else normal


def join(directory: str, *names: str) -> str:
    """`directory/name...`, normalised (`path.join` + `resolve`)."""
    return normalize(posixpath.join(directory, *names))


def parent(path: str) -> str:
    """The parent directory; `/` is its own parent."""
    return posixpath.dirname(path) if path != "/" else "/"


def strip_bom(text: str) -> str:
    """The text without one leading U+FEFF (Pi's `stripBom`)."""
    return text[1:] if text.startswith(BOM) else text


@dataclass(frozen=True, slots=True)
class Listing:
    """Virtual absolute paths -> entries; directories of every entry's ancestors implied."""

    entries: Mapping[str, Entry]
    _dirs: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _has_links: bool = field(default=False, repr=False, compare=False)
    # lookups are pure functions of an immutable listing: remember them (deep trees ask
    # the same prefixes again and again)
    _resolved: dict[tuple[str, bool], str | None] = field(
        default_factory=dict, repr=False, compare=False
    )
    _children: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        clean: dict[str, Entry] = {}
        dirs = {"/"}
        for raw, entry in entries.items():
            path = normalize(raw)
            clean[path] = entry
            walk = parent(path)
            while walk not in dirs:
                dirs.add(walk)
                walk = parent(walk)
            if isinstance(entry, Directory):
                dirs.add(path)
        for path in dirs:
            if not isinstance(clean.get(path, Directory()), Directory):
                raise InvalidInput("tree", f"{path!r} is a file and has entries under it")
            clean.setdefault(path, Directory())
        object.__setattr__(self, "entries", clean)
        object.__setattr__(self, "_dirs", frozenset(dirs))
        object.__setattr__(self, "_has_links", any(isinstance(e, Symlink) for e in clean.values()))
        object.__setattr__(self, "_resolved", {})
        object.__setattr__(self, "_children", {})

    @classmethod
    def from_wire(cls, tree: Mapping[str, Any]) -> Listing:
        """The listing of a protocol v1 virtual tree (see `conformance/harnesses/kit/tree.py`).

        >>> listing = Listing.from_wire({"ws/AGENTS.md": "hi", "ws/l": {"symlink": "AGENTS.md"}})
        >>> listing.read_text("/ws/l"), listing.realpath("/ws/l")
        ('hi', '/ws/AGENTS.md')
        """
        if not isinstance(tree, Mapping):
            raise InvalidInput("tree", "must be a mapping of paths to entries")
        entries: dict[str, Entry] = {}
        for raw, value in tree.items():
            path = "/" + str(raw).strip("/")
            if str(raw).endswith("/"):
                entries[path] = Directory()
            elif isinstance(value, str):
                entries[path] = File(data=_utf8.encode(value))
            elif isinstance(value, Mapping) and set(value) == {"symlink"}:
                entries[path] = Symlink(target=str(value["symlink"]))
            elif isinstance(value, Mapping) and set(value) <= {"content", "contentB64", "mode"}:
                data = (
                    base64.b64decode(str(value["contentB64"]))
                    if "contentB64" in value
                    else _utf8.encode(str(value.get("content", "")))
                )
                mode = value.get("mode")
                readable = mode is None or bool(int(mode) & 0o444)
                entries[path] = File(data=data, readable=readable)
            else:
                raise InvalidInput("tree", f"{raw!r}: unknown entry {value!r}")
        return cls(entries)

    def with_file(self, path: str, data: bytes) -> Listing:
        """A new listing with one more (or a replaced) regular file."""
        return Listing({**self.entries, path: File(data=data)})

    # -- lookups -----------------------------------------------------------------------

    def resolve(self, path: str, *, follow_last: bool = True) -> str | None:
        """The path with its symlinks followed, or None if it does not resolve."""
        if not self._has_links:
            # no links anywhere: `..` is lexical and every entry's ancestors are directories
            normal = normalize(path)
            return normal if normal in self.entries else None
        key = (path, follow_last)
        if key not in self._resolved:
            self._resolved[key] = self.lookup(path, follow_last=follow_last)[0]
        return self._resolved[key]

    def lookup(self, path: str, *, follow_last: bool = True) -> tuple[str | None, str]:
        """The path with its symlinks followed and "", or None and the error Linux gives.

        The error is `ENOENT` (a component is missing), `ENOTDIR` (a component that must be
        a directory is a file: `a.txt/x`, or a link target ending in `/` that names a file)
        or `ELOOP` (more than 40 links in the one lookup). The path itself is normalised
        first (as `path.resolve` does); link targets are read as the kernel reads them.

        >>> Listing.from_wire({"w/a": "x", "w/l": {"symlink": "a/"}}).lookup("/w/l")
        (None, 'ENOTDIR')
        """
        pending = [p for p in normalize(path).split("/") if p]
        current = "/"
        hops = 0
        while pending:
            name = pending.pop(0)
            if name == ".":
                continue
            if name == "..":
                current = parent(current)
                continue
            candidate = join(current, name)
            entry = self.entries.get(candidate)
            if entry is None:
                return None, "ENOENT"
            if isinstance(entry, Symlink) and (pending or follow_last):
                hops += 1
                if hops > MAX_SYMLINK_HOPS:
                    return None, "ELOOP"
                if entry.target.startswith("/"):
                    current = "/"
                # a target ending in "/" must name a directory: a "." after it says so
                trail = ["."] if entry.target.endswith("/") else []
                pending[:0] = [p for p in entry.target.split("/") if p] + trail
                continue
            if pending and not isinstance(entry, Directory):
                return None, "ENOTDIR"
            current = candidate
        return current, ""

    def realpath(self, path: str) -> str | None:
        """`realpathSync(path)`, or None where Node would throw."""
        return self.resolve(path)

    def canonical(self, path: str) -> str:
        """Pi's `canonicalizePath`: the realpath, or the path itself when it has none."""
        return self.resolve(path) or normalize(path)

    def entry(self, path: str) -> Entry | None:
        """The entry at `path` after following links, or None."""
        real = self.resolve(path)
        return None if real is None else self.entries.get(real)

    def exists(self, path: str) -> bool:
        return self.resolve(path) is not None

    def is_file(self, path: str) -> bool:
        return isinstance(self.entry(path), File)

    def is_dir(self, path: str) -> bool:
        return isinstance(self.entry(path), Directory)

    def children(self, path: str) -> tuple[str, ...]:
        """Names directly in the directory at `path` (links followed), sorted; () if none."""
        real = self.resolve(path)
        if real is None or real not in self._dirs:
            return ()
        if not self._children:  # one pass over the entries builds every directory's list
            index: dict[str, list[str]] = {}
            for entry_path in self.entries:
                if entry_path != "/":
                    index.setdefault(parent(entry_path), []).append(posixpath.basename(entry_path))
            self._children.update({d: tuple(sorted(names)) for d, names in index.items()})
        return self._children.get(real, ())

    def read_bytes(self, path: str) -> bytes | None:
        """The bytes of the file at `path`, or None (missing, a directory, unreadable)."""
        entry = self.entry(path)
        if not isinstance(entry, File) or not entry.readable:
            return None
        return entry.data

    def read_text(self, path: str) -> str | None:
        """The file decoded as UTF-8 with U+FFFD for invalid bytes (BOM kept), or None."""
        data = self.read_bytes(path)
        return None if data is None else data.decode("utf-8", "replace")

    def walk_up(self, start: str) -> Iterator[str]:
        """`start`, its parent, ... up to `/` (lexically, as `dirname` does)."""
        current = normalize(start)
        while True:
            yield current
            if current == "/":
                return
            current = parent(current)
