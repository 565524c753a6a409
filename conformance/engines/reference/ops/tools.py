"""tool.read, tool.bash, tool.grep: the tool result texts, rendered by `ctxspec.reference.tools`.

The handler plays the part of the machine. read works on the case's virtual tree in
memory; bash replays the output through the persisting accumulator of
`ctxspec.reference.edge.persist` (a real temp file, hashed and deleted; its path shown as
`<fullOutputPath>`).

grep runs ripgrep, as Pi does, rather than imitating it. Which lines match is decided by
ripgrep's rules (ignore files and whether the tree is a git repository, binary detection
by file kind, BOM sniffing and UTF-16, `--glob` with braces, negations and slashes, the
Rust regex dialect and its error messages): a Python emulation of all that would be a
second, unchecked implementation of ripgrep, while the `rg` binary *is* what Pi runs
(the ripgrep 14.1.0 wheel, found as the Pi adapter finds it; without it the op raises
`EnvironmentMissing` naming ripgrep, never a guessed result). The handler lays the
tree out in a temp directory (text as Node writes it: lone surrogates as U+FFFD),
resolves `cwd` and `path` as Pi does, and runs rg with exactly Pi 0.85.0's arguments
(`ctxspec.reference.grep.grep_ripgrep_args`) from the session's cwd, where Pi's rg runs
(GREP-6). What Pi does with rg's output (the count, the limit, the rejection, shown
paths, re-read context lines) is `ctxspec.reference.grep.grep_from_ripgrep`.

ripgrep is a tool the reference's grep runs, not an implementation: it is started here,
not in `ctxspec.conformance.transport`, which starts the implementations under test.

Two inputs are pinned so the answer does not depend on the machine: rg gets no
`$RIPGREP_CONFIG_PATH`, and its home is the tree's `/` (a global gitignore is the
tree's `/.config/git/ignore`); the Pi adapter runs Pi's grep under the same
environment. Ripgrep's order across files depends on its threads: the reference takes
the order Pi's ripgrep prints most often (`_in_walk_order`), which depends on the order
the file system lists a directory but not on chance; golden cases match in one file.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import posixpath
import re
import stat
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.engines.reference.ops import Engine, Handler
from ctxspec.conformance.engines.reference.ops.stream import chunks_of, read_back
from ctxspec.conformance.errors import EnvironmentMissing
from ctxspec.conformance.harnesses.kit.tree import (
    make_removable,
    materialize,
    real_path,
    validate_tree,
    virtualize,
)
from ctxspec.conformance.transport import ripgrep as rg_finder
from ctxspec.reference import _utf8, tools
from ctxspec.reference import grep as grep_text
from ctxspec.reference.edge.persist import PersistingAccumulator
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.tool_result import ToolResult
from ctxspec.reference.tree import Directory, File, Listing

FULL_OUTPUT_PATH: Final = "<fullOutputPath>"


def _resolve(args: Mapping[str, Any], path: str) -> str:
    cwd = str(args.get("cwd") or "/")
    path = path.removeprefix("@")
    return posixpath.normpath(path if path.startswith("/") else posixpath.join(cwd, path))


def read(args: Mapping[str, Any]) -> dict[str, Any]:
    path = args["path"]
    if not isinstance(path, str):
        raise InvalidInput("path", "must be a string")
    listing = Listing.from_wire(args.get("tree") or {})
    target = _resolve(args, path)
    if "\x00" in target:  # READ-5: Node refuses the string before any lookup
        return tools.read_nul_refused().to_pi()
    real, error = listing.lookup(target)  # READ-5: links followed as the kernel does
    entry = listing.entries.get(real) if real is not None else None
    if isinstance(entry, Directory):
        return tools.read_directory().to_pi()
    if not isinstance(entry, File):
        return tools.read_failed(error or "ENOENT", target).to_pi()
    return tools.read_result(
        entry.data, path=path, offset=args.get("offset"), limit=args.get("limit")
    ).to_pi()


def bash(engine: Engine, args: Mapping[str, Any]) -> dict[str, Any]:
    sink = PersistingAccumulator(prefix="pi-bash", walks=engine.walks)
    try:
        for chunk in chunks_of(args):
            sink.append(chunk)
        sink.finish()
        snapshot = sink.snapshot()
    finally:
        sink.close()
    exit_code = args.get("exitCode", 0)
    if isinstance(exit_code, bool) or not isinstance(exit_code, int) or not 0 <= exit_code < 256:
        raise InvalidInput("exitCode", "must be an integer 0..255")
    timed_out = args.get("timedOut") is True
    result = tools.bash_result(
        snapshot,
        full_output_path=FULL_OUTPUT_PATH,
        exit_code=exit_code,
        timed_out_after=args.get("timeout", 1) if timed_out else None,
        aborted=args.get("aborted") is True,
    ).to_pi()
    result["persisted"] = sink.path is not None
    result.update(read_back(sink.path))
    return result


@dataclass(frozen=True, slots=True)
class _GrepCall:
    """The grep tool's parameters, checked."""

    pattern: str
    cwd: str
    path: str
    glob: str | None
    ignore_case: bool
    literal: bool
    limit: float | None
    context: int


def _grep_call(args: Mapping[str, Any]) -> _GrepCall:
    pattern = args["pattern"]
    if not isinstance(pattern, str):
        raise InvalidInput("pattern", "must be a string")
    glob = args.get("glob")
    if glob is not None and not isinstance(glob, str):
        raise InvalidInput("glob", "must be a string")
    limit = args.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int | float)):
        raise InvalidInput("limit", "must be a number")
    context = args.get("context") or 0
    if isinstance(context, bool) or not isinstance(context, int):
        raise InvalidInput("context", "must be an integer")
    return _GrepCall(
        pattern=pattern,
        cwd=str(args.get("cwd") or "/"),
        path=str(args.get("path") or "."),
        glob=glob,
        ignore_case=bool(args.get("ignoreCase")),
        literal=bool(args.get("literal")),
        limit=limit,
        context=max(context, 0),
    )


def grep(args: Mapping[str, Any]) -> dict[str, Any]:
    call = _grep_call(args)
    rg = ripgrep()
    tree = _as_node_writes(validate_tree(args.get("tree") or {}))
    with tempfile.TemporaryDirectory(prefix="ctxspec-tree-") as scratch:
        root = Path(os.path.realpath(scratch)) / "tree"
        root.mkdir()
        materialize(tree, root)
        try:
            result: dict[str, Any] = virtualize(_grep_in(root, rg, call), root)
            return result
        finally:
            make_removable(root)


def ripgrep() -> str:
    """The `rg` Pi's grep runs (`transport.ripgrep.ripgrep_dir`: the wheel's, else PATH's).

    Without one the op cannot answer: `EnvironmentMissing`, an error naming ripgrep, never
    a result computed some other way.
    """
    found = rg_finder.ripgrep_dir()
    if found is None:
        raise EnvironmentMissing("tool.grep", rg_finder.RIPGREP_MISSING)
    return str(next((found / n for n in ("rg", "rg.exe") if (found / n).is_file()), found / "rg"))


def _grep_in(root: Path, rg: str, call: _GrepCall) -> dict[str, Any]:
    """Pi's grep on the laid-out tree: resolve, stat, spawn rg as Pi does, render."""
    # resolved in the virtual tree, where ".." stops at "/" (nothing outside it is searched)
    virtual_cwd = _resolved(call.cwd)
    search = _pi_path(call.path)
    virtual_search = _resolved(search if search.startswith("/") else f"{virtual_cwd}/{search}")
    cwd = real_path(root, virtual_cwd)
    search_path = real_path(root, virtual_search)
    try:
        is_directory = stat.S_ISDIR(os.stat(search_path).st_mode)
    except (OSError, ValueError):
        return grep_text.grep_path_missing(search_path).to_pi()
    refused = grep_text.spawn_refusal(call.pattern, glob=call.glob)  # Node checks them first
    if refused is not None:
        return ToolResult(text=refused, rejected=True).to_pi()
    rg_args = grep_text.grep_ripgrep_args(
        call.pattern,
        search_path,
        glob=call.glob,
        ignore_case=call.ignore_case,
        literal=call.literal,
    )
    # Pi runs rg in its own process directory, the session's cwd (GREP-6); one that is not
    # a directory leaves it where the host runs, outside the tree
    run_in = cwd if os.path.isdir(cwd) else str(root.parent)
    done = subprocess.run(
        [rg, *(_utf8.encode(arg) for arg in rg_args)],  # lone surrogates as U+FFFD, as Node
        cwd=run_in,
        env=_ripgrep_env(root),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    events = _utf8.decode(done.stdout).split("\n")
    output = _in_walk_order(events, search_path, is_directory=is_directory)
    return grep_text.grep_from_ripgrep(
        output,
        exit_code=done.returncode,
        stderr=_utf8.decode(done.stderr),
        search_path=search_path,
        is_directory=is_directory,
        read_file=_read_bytes,
        limit=call.limit,
        context=call.context,
    ).to_pi()


def _in_walk_order(lines: list[str], search_path: str, *, is_directory: bool) -> list[str]:
    """rg's events with its files in the order ripgrep's parallel walk most often prints them.

    Ripgrep's order across files depends on its threads. Run by Pi (seen on 2 cores), it
    is most often a depth-first walk that takes each directory's entries in the reverse of
    the order the file system lists them (its work stack), which `_walk_order` computes
    from the laid-out tree: that order is deterministic for a tree on a given file
    system, and is the one Pi shows unless its threads raced. Each file's events
    (`begin` .. `end`) stay together and in order; a file the walk did not meet follows,
    in path order.
    """
    rank = _walk_order(search_path) if is_directory else {}
    files: list[tuple[tuple[int, tuple[str, ...]], list[str]]] = []
    tail: list[str] = []
    current: list[str] | None = None
    for line in lines:
        try:
            event = json.loads(line) if line.strip() else None
        except ValueError:
            event = None
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "begin" and isinstance(event, dict):
            path = event.get("data", {}).get("path", {})
            name = path.get("text") or base64.b64decode(path.get("bytes", "")).decode(
                "utf-8", "surrogateescape"
            )
            current = []
            files.append(((rank.get(name, len(rank)), tuple(name.split("/"))), current))
        (current if current is not None else tail).append(line)
        if kind == "end":
            current = None
    files.sort(key=lambda item: item[0])
    return [line for _, events in files for line in events] + tail


def _walk_order(top: str) -> dict[str, int]:
    """Each file under `top` by its place in a depth-first walk, entries last-listed first."""
    order: dict[str, int] = {}
    stack = [top]
    while stack:
        path = stack.pop()
        if path != top and (os.path.islink(path) or not os.path.isdir(path)):
            order.setdefault(path, len(order))
            continue
        with contextlib.suppress(OSError):
            stack.extend(os.path.join(path, entry.name) for entry in os.scandir(path))
    return order


def _read_bytes(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _ripgrep_env(root: Path) -> dict[str, str]:
    """The host's environment, with rg's per-user inputs moved into the tree (GREP-7).

    No `$RIPGREP_CONFIG_PATH`, and the home directory is the tree's `/`, so a global
    gitignore (`~/.config/git/ignore`, `core.excludesFile` in `~/.gitconfig`) is the
    tree's own; the Pi adapter runs Pi's grep the same way.
    """
    env = {k: v for k, v in os.environ.items() if k not in _USER_RIPGREP_ENV}
    env["HOME"] = str(root)
    return env


_USER_RIPGREP_ENV: Final = frozenset({"RIPGREP_CONFIG_PATH", "XDG_CONFIG_HOME", "HOME"})
_UNICODE_SPACES: Final = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


def _pi_path(path: str) -> str:
    """Pi's `normalizePath` of the tool's `path`: unicode spaces, "@", "~" (the tree's `/`)."""
    path = _UNICODE_SPACES.sub(" ", _node_string(path)).removeprefix("@")
    if path == "~" or path.startswith("~/"):
        return "/" + path[2:]
    return path


def _resolved(path: str) -> str:
    """`path.resolve` of an absolute path: "." and ".." folded, one leading "/"."""
    return "/" + posixpath.normpath(path).lstrip("/")


def _node_string(text: str) -> str:
    """A JS string as Node hands it to the OS: lone surrogates become U+FFFD."""
    return _utf8.encode(text).decode("utf-8")


def _as_node_writes(tree: Mapping[str, Any]) -> dict[str, Any]:
    """The tree as Pi's adapter writes it: text entries and names with lone surrogates as U+FFFD."""
    written: dict[str, Any] = {}
    for raw, entry in tree.items():
        value = entry
        if isinstance(entry, str):
            value = _node_string(entry)
        elif isinstance(entry, Mapping) and isinstance(entry.get("content"), str):
            value = {**entry, "content": _node_string(entry["content"])}
        elif isinstance(entry, Mapping) and isinstance(entry.get("symlink"), str):
            value = {"symlink": _node_string(entry["symlink"])}
        written[_node_string(str(raw))] = value
    return written


def handlers(engine: Engine) -> dict[str, Handler]:
    """The tool ops; bash's output goes through the engine's accumulator (its walks)."""
    return {"tool.read": read, "tool.bash": partial(bash, engine), "tool.grep": grep}
