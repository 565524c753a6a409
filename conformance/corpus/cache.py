"""The loaded corpus, kept on disk between processes: what each xdist worker reads instead
of parsing the YAML again.

Parsing, expanding and schema-checking the 903 cases takes about 3 s (pure-Python YAML:
libyaml refuses the lone surrogates some cases escape), and every process of a run did it:
the runner, then each xdist worker. `load(corpus, parse)` returns what `parse()` returns, read
from `<cache_root>/corpus/<key>.pickle` when it is there: the key is a sha256 over every
byte that can change the result (every file of `corpora/`, the modules that parse and
expand cases, the protocol's schemas, the suite's and Python's versions), so a changed
case file, builder or schema is a miss and a new parse, never a stale corpus. A file that
cannot be read back as cases is a miss too. Writes go to a temp file renamed into place,
so a concurrent reader sees the whole file or none; the newest `_KEEP` files are kept.

The pickle lives in the suite's own cache (`ctxspec.conformance.transport.cache.cache_root`, where
the implementations it runs are installed, no less trusted); `CTXSPEC_CORPUS_CACHE=off`
parses every time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Final, TypeVar

from ctxspec import __version__
from ctxspec.conformance.transport.cache import cache_root

__all__ = ["OFF_VARIABLE", "cache_file", "corpus_key", "load"]

OFF_VARIABLE: Final = "CTXSPEC_CORPUS_CACHE"
_KEEP: Final = 8  # cached corpora kept (several checkouts may share the cache)
# what a loaded case depends on, besides the corpus: the code that parses and expands it
_CODE: Final = ("corpus/cases.py", "corpus/builders.py", "protocol.py", "errors.py")

T = TypeVar("T")


def _files(folder: Traversable, prefix: str) -> Iterator[tuple[str, Traversable]]:
    for entry in sorted(folder.iterdir(), key=lambda t: t.name):
        name = f"{prefix}/{entry.name}"
        if entry.is_dir():
            if entry.name != "__pycache__":
                yield from _files(entry, name)
        elif not entry.name.endswith((".pyc", ".pyo")):
            yield name, entry


def corpus_key(corpus: Traversable | None = None) -> str:
    """sha256 over every input of the loaded corpus (`corpus`: the `corpora` folder)."""
    corpus = corpus if corpus is not None else resources.files("ctxspec.corpora")
    package = resources.files("ctxspec.conformance")
    digest = hashlib.sha256(
        f"ctxspec {__version__} python {sys.version} pickle {pickle.HIGHEST_PROTOCOL}".encode()
    )
    inputs = [*_files(corpus, "corpora"), *_files(package.joinpath("schemas"), "schemas")]
    inputs += [(f"conformance/{name}", package.joinpath(name)) for name in _CODE]
    for name, file in inputs:
        digest.update(name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_file(key: str) -> Path:
    return cache_root() / "corpus" / f"{key}.pickle"


def _read(path: Path, check: Callable[[Any], bool]) -> Any | None:
    try:
        with path.open("rb") as file:
            loaded = pickle.load(file)
    except Exception:  # missing, truncated, from another layout: a miss
        return None
    return loaded if check(loaded) else None


def _write(path: Path, value: object) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=".corpus-", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as file:
                pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
        kept = sorted(path.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime)
        for old in kept[:-_KEEP]:
            with contextlib.suppress(OSError):
                old.unlink()


def load(corpus: Traversable, parse: Callable[[], T], check: Callable[[Any], bool]) -> T:
    """`parse()` of the `corpus` folder (`corpora/`), or what an earlier `parse()` of the
    same inputs left in the cache (`check`: whether a value read back is one `parse` could
    return)."""
    if os.environ.get(OFF_VARIABLE, "").lower() in ("off", "0", "no"):
        return parse()
    try:
        path = cache_file(corpus_key(corpus))
    except OSError:
        return parse()
    cached = _read(path, check)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    value = parse()
    _write(path, value)
    return value
