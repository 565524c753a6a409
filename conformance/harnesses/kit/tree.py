"""Virtual file trees of protocol v1: validate them, lay them out on disk, map paths back.

A case that needs files sends `tree`: a mapping of POSIX paths (relative to the tree's
root, which the case sees as `/`) to entries:

    "ws/AGENTS.md": "text"                        a file, UTF-8 text (a lone surrogate as
                                                  U+FFFD, as Node writes a string)
    "ws/blob.bin": {"contentB64": "..."}           a file, raw bytes
    "ws/empty/": {}                                a directory (trailing slash)
    "ws/link": {"symlink": "../other"}            a symbolic link, target as written
    "ws/secret.md": {"content": "x", "mode": 0}   a file with permission bits (0 = unreadable)

Paths in the other arguments (`cwd`, `agentDir`, `home`, ...) are virtual absolute paths
(`/ws/repo`). An adapter that needs real files calls `materialize()` into a fresh temp
directory R (`laid_out()` makes R, lays the tree out and removes it after), passes
`real_path(R, path)` to the implementation, and before answering replaces every `R`
prefix in the result with nothing (`virtualize()`), so results read `/ws/...` on every
machine. The walk to the filesystem root passes R's real ancestors; ctxspec's cases
assume those hold no agent files.

This is the one tree code of every Python adapter: the reference's handlers, and the
PyPI ports' adapters, which run it in the port's own venv (`transport/pyrun.py`). So it
imports the standard library and `ctxspec.reference.errors` only. (The Node adapters have its
twin, `kit/tree.mjs`.)

Nothing a case says reaches outside R: tree paths are relative without `..`; no entry
lies under a file or a link (so no write goes through a link); a link's target is
relative and, from the link's directory, stays inside the tree; `real_path` resolves
`..` lexically at the virtual root, as the reference does. Anything else is
`InvalidInput` naming `tree` (or the path argument).
"""

from __future__ import annotations

import base64
import contextlib
import os
import posixpath
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from ctxspec.reference.errors import InvalidInput

__all__ = [
    "laid_out",
    "make_removable",
    "materialize",
    "real_argument",
    "real_path",
    "validate_tree",
    "virtualize",
]


def validate_tree(tree: object) -> dict[str, Any]:
    """The tree, checked: relative paths inside it, known entries, nothing under a leaf.

    Raises `InvalidInput("tree", ...)` naming the first bad entry: a path that is
    absolute or has `..`, an unknown entry shape, an entry under a file or a link, or a
    link whose target is absolute or leaves the tree.
    """
    if not isinstance(tree, Mapping):
        raise InvalidInput("tree", "must be a mapping of paths to entries")
    leaves: dict[PurePosixPath, str] = {}
    for raw, entry in tree.items():
        path = str(raw)
        pure = PurePosixPath(path.rstrip("/"))
        if path.startswith("/") or ".." in pure.parts or str(pure) in ("", "."):
            raise InvalidInput("tree", f"{path!r} is not a relative path inside the tree")
        if path.endswith("/"):
            if entry not in ({}, None):
                raise InvalidInput("tree", f"{path!r}: a directory entry is {{}}")
            continue
        if not isinstance(entry, str) and not _known_entry(entry):
            raise InvalidInput("tree", f"{path!r}: unknown entry {entry!r}")
        if isinstance(entry, Mapping) and "symlink" in entry:
            _check_link(path, pure, entry["symlink"])
        leaves[pure] = path
    for pure in (PurePosixPath(str(raw).rstrip("/")) for raw in tree):
        for ancestor in pure.parents:
            if ancestor in leaves:
                raise InvalidInput(
                    "tree", f"{leaves[ancestor]!r} is a file or a link and has entries under it"
                )
    return dict(tree)


def _check_link(path: str, pure: PurePosixPath, target: object) -> None:
    """A link's target is relative, its `..` lead it, and they stay inside the tree.

    With `..` only at the start, the OS resolves the target as written: up through real
    directories (nothing lies under a link), then down through entries that are each
    confined the same way, so no chain of links leads out of the tree.
    """
    if not isinstance(target, str) or not target or target.startswith("/"):
        raise InvalidInput("tree", f"{path!r}: a link target is a non-empty relative path")
    parts = [part for part in target.split("/") if part not in ("", ".")]
    ups = next((n for n, part in enumerate(parts) if part != ".."), len(parts))
    if ".." in parts[ups:]:
        raise InvalidInput("tree", f"{path!r}: in a link target, `..` comes first ({target!r})")
    if ups > len(pure.parent.parts):
        raise InvalidInput("tree", f"{path!r}: the link target {target!r} leaves the tree")


def _known_entry(entry: object) -> bool:
    if not isinstance(entry, Mapping):
        return False
    keys = set(entry)
    return keys == {"symlink"} or keys <= {"content", "contentB64", "mode"}


def real_path(root: Path, virtual: str) -> str:
    """The real path of a virtual absolute path (`/ws/repo` -> `R/ws/repo`).

    `..` stops at the virtual root, as in the reference's listing: `/../etc` is `R/etc`.

    >>> real_path(Path("/r"), "/ws/../../etc/passwd")
    '/r/etc/passwd'
    """
    normal = posixpath.normpath("/" + virtual.lstrip("/")).lstrip("/")
    if normal and virtual.endswith("/"):
        normal += "/"  # kept, as Node's path.normalize keeps it
    return str(root) + ("/" + normal if normal else "")


def real_argument(root: Path, path: str) -> str:
    """A path argument as the implementation is given it: a virtual absolute path, also
    behind Pi's `@` prefix, under the root (`real_path`); a relative one as written.

    >>> real_argument(Path("/r"), "@/ws/a"), real_argument(Path("/r"), "a/../b")
    ('@/r/ws/a', 'a/../b')
    """
    if path.startswith("/"):
        return real_path(root, path)
    if path.startswith("@/"):
        return "@" + real_path(root, path[1:])
    return path


def materialize(tree: Mapping[str, Any], root: Path) -> None:
    """Write `tree` under `root` (directories first, then files, then links, then modes)."""
    validate_tree(tree)
    modes: list[tuple[Path, int]] = []
    links: list[tuple[Path, str]] = []
    for raw, entry in sorted(tree.items()):
        target = root / raw.rstrip("/")
        if raw.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(entry, str):
            target.write_bytes(_text_bytes(entry))
        elif "symlink" in entry:
            links.append((target, entry["symlink"]))
        else:
            data = (
                base64.b64decode(entry["contentB64"])
                if "contentB64" in entry
                else _text_bytes(str(entry.get("content", "")))
            )
            target.write_bytes(data)
            if "mode" in entry:
                modes.append((target, int(entry["mode"])))
    for link, destination in links:
        os.symlink(destination, link)
    for path, mode in modes:
        os.chmod(path, mode)


def _text_bytes(text: str) -> bytes:
    """A text entry's bytes as Node writes a JavaScript string: a lone surrogate is U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode()


def virtualize(value: Any, root: Path) -> Any:
    """`value` with every occurrence of the real root removed from its strings."""
    prefix = str(root)
    if isinstance(value, str):
        return value.replace(prefix, "") if prefix in value else value
    if isinstance(value, list):
        return [virtualize(item, root) for item in value]
    if isinstance(value, dict):
        return {virtualize(k, root): virtualize(v, root) for k, v in value.items()}
    return value


def make_removable(root: Path) -> None:
    """Give back the permissions a `mode` entry took, so the temp tree can be deleted."""
    for directory, _, _ in os.walk(root):
        with contextlib.suppress(OSError):
            os.chmod(directory, 0o700)


@contextlib.contextmanager
def laid_out(tree: object, prefix: str = "ctxspec-tree-") -> Iterator[Path]:
    """`tree`, checked, laid out in a fresh temp directory: yields its real path; removed after."""
    checked = validate_tree({} if tree is None else tree)
    root = Path(os.path.realpath(tempfile.mkdtemp(prefix=prefix)))
    try:
        materialize(checked, root)
        yield root
    finally:
        make_removable(root)
        shutil.rmtree(root, ignore_errors=True)
