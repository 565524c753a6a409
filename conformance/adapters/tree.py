"""Virtual file trees of protocol v1: validate them, lay them out on disk, map paths back.

A case that needs files sends `tree`: a mapping of POSIX paths (relative to the tree's
root, which the case sees as `/`) to entries:

    "ws/AGENTS.md": "text"                        a file, UTF-8 text
    "ws/blob.bin": {"contentB64": "..."}           a file, raw bytes
    "ws/empty/": {}                                a directory (trailing slash)
    "ws/link": {"symlink": "../other"}            a symbolic link, target as written
    "ws/secret.md": {"content": "x", "mode": 0}   a file with permission bits (0 = unreadable)

Paths in the other arguments (`cwd`, `agentDir`, `home`, ...) are virtual absolute paths
(`/ws/repo`). An adapter that needs real files calls `materialize()` into a fresh temp
directory R, passes `R + path` to the implementation, and before answering replaces
every `R` prefix in the result with nothing (`virtualize()`), so results read `/ws/...`
on every machine. The walk to the filesystem root passes R's real ancestors; ctxspec's
cases assume those hold no agent files.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from reference.errors import InvalidInput

__all__ = ["materialize", "real_path", "validate_tree", "virtualize"]


def validate_tree(tree: object) -> dict[str, Any]:
    """The tree, checked: relative normalised paths, known entry shapes."""
    if not isinstance(tree, Mapping):
        raise InvalidInput("tree", "must be a mapping of paths to entries")
    for raw, entry in tree.items():
        path = str(raw)
        pure = PurePosixPath(path.rstrip("/"))
        if path.startswith("/") or ".." in pure.parts or str(pure) in ("", "."):
            raise InvalidInput("tree", f"{path!r} is not a relative path inside the tree")
        if path.endswith("/"):
            if entry not in ({}, None):
                raise InvalidInput("tree", f"{path!r}: a directory entry is {{}}")
        elif not isinstance(entry, str) and not _known_entry(entry):
            raise InvalidInput("tree", f"{path!r}: unknown entry {entry!r}")
    return dict(tree)


def _known_entry(entry: object) -> bool:
    if not isinstance(entry, Mapping):
        return False
    keys = set(entry)
    return keys == {"symlink"} or keys <= {"content", "contentB64", "mode"}


def real_path(root: Path, virtual: str) -> str:
    """The real path of a virtual absolute path (`/ws/repo` -> `R/ws/repo`)."""
    return str(root) + ("" if virtual == "/" else "/" + virtual.lstrip("/"))


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
            target.write_bytes(entry.encode("utf-8", "surrogatepass"))
        elif "symlink" in entry:
            links.append((target, entry["symlink"]))
        else:
            data = (
                base64.b64decode(entry["contentB64"])
                if "contentB64" in entry
                else str(entry.get("content", "")).encode("utf-8", "surrogatepass")
            )
            target.write_bytes(data)
            if "mode" in entry:
                modes.append((target, int(entry["mode"])))
    for link, destination in links:
        os.symlink(destination, link)
    for path, mode in modes:
        os.chmod(path, mode)


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
