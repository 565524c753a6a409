"""Read a real directory into a `ctxspec.reference.tree.Listing` (the only I/O of discovery).

`read_listing(root)` walks `root` without following symbolic links (so a link loop
cannot make it loop), records each link's target as written, each file's bytes (or
`readable=False` when it cannot be opened) and each directory; paths in the listing are
virtual: `root` itself is `/`. `max_entries` bounds the walk.
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.tree import Directory, Entry, File, Listing, Symlink

__all__ = ["read_listing"]


def read_listing(root: str | os.PathLike[str], *, max_entries: int = 100_000) -> Listing:
    """The listing of everything under `root`; raises `InvalidInput` past `max_entries`."""
    base = Path(root)
    entries: dict[str, Entry] = {}
    pending = [base]
    while pending:
        directory = pending.pop()
        try:
            children = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue  # an unreadable directory: listed, its children unknown
        for child in children:
            if len(entries) >= max_entries:
                raise InvalidInput("root", f"more than {max_entries} entries under {base}")
            virtual = "/" + Path(child.path).relative_to(base).as_posix()
            if child.is_symlink():
                entries[virtual] = Symlink(target=os.readlink(child.path))
            elif child.is_dir(follow_symlinks=False):
                entries[virtual] = Directory()
                pending.append(Path(child.path))
            else:
                try:
                    entries[virtual] = File(data=Path(child.path).read_bytes())
                except OSError:
                    entries[virtual] = File(readable=False)
    return Listing(entries)
