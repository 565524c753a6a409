"""tool.read, tool.bash, tool.grep: the tool result texts, rendered by `reference.tools`.

The handler plays the part of the machine: it reads the case's virtual tree (no temp
directory), replays the bash output through the persisting accumulator of
`reference.edge.persist` (a real temp file, hashed and deleted; its path shown as
`<fullOutputPath>`), and searches the tree for grep with Python's `re` (or a literal
search) line by line, files in path order. That search stands in for ripgrep only for
the simple patterns the cases use: no .gitignore, no binary detection, and ripgrep's own
output order is unspecified (cases search one file). A `glob` is a gitignore-style
pattern (`pathspec`), as ripgrep's `--glob` is: without a "/" it matches a file name at any
depth; with one it is anchored at the session's cwd, where Pi's ripgrep runs (GREP-6).
"""

from __future__ import annotations

import base64
import posixpath
import re
from collections.abc import Mapping
from typing import Any, Final

import pathspec

from conformance.adapters.ops import Handler
from conformance.adapters.ops.stream import chunks_of, read_back
from conformance.adapters.tree import validate_tree
from reference import tools
from reference.edge.persist import PersistingAccumulator
from reference.errors import InvalidInput

FULL_OUTPUT_PATH: Final = "<fullOutputPath>"


def _files(tree: Mapping[str, Any]) -> dict[str, bytes]:
    """Every file of the wire tree, by virtual absolute path, as bytes."""
    files: dict[str, bytes] = {}
    for raw, entry in validate_tree(tree).items():
        if raw.endswith("/") or (isinstance(entry, Mapping) and "symlink" in entry):
            continue
        if isinstance(entry, str):
            data = entry.encode("utf-8", "surrogatepass")
        elif "contentB64" in entry:
            data = base64.b64decode(entry["contentB64"])
        else:
            data = str(entry.get("content", "")).encode("utf-8", "surrogatepass")
        files["/" + raw] = data
    return files


def _is_directory(tree: Mapping[str, Any], files: Mapping[str, bytes], path: str) -> bool:
    inside = path.rstrip("/") + "/"
    named = any(
        ("/" + str(raw)).rstrip("/") == path.rstrip("/") for raw in tree if str(raw).endswith("/")
    )
    return named or path == "/" or any(p.startswith(inside) for p in files)


def _resolve(args: Mapping[str, Any], path: str) -> str:
    cwd = str(args.get("cwd") or "/")
    path = path.removeprefix("@")
    return posixpath.normpath(path if path.startswith("/") else posixpath.join(cwd, path))


def read(args: Mapping[str, Any]) -> dict[str, Any]:
    path = args["path"]
    if not isinstance(path, str):
        raise InvalidInput("path", "must be a string")
    files = _files(args.get("tree") or {})
    target = _resolve(args, path)
    if target not in files:
        tree = args.get("tree") or {}
        rejection = tools.read_directory() if _is_directory(tree, files, target) else None
        return (rejection or tools.read_missing(target)).to_pi()
    return tools.read_result(
        files[target], path=path, offset=args.get("offset"), limit=args.get("limit")
    ).to_pi()


def bash(args: Mapping[str, Any]) -> dict[str, Any]:
    sink = PersistingAccumulator(prefix="pi-bash")
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


def grep(args: Mapping[str, Any]) -> dict[str, Any]:
    pattern = args["pattern"]
    if not isinstance(pattern, str):
        raise InvalidInput("pattern", "must be a string")
    files = _files(args.get("tree") or {})
    root = _resolve(args, str(args.get("path") or "."))
    limit = args.get("limit")
    effective = max(1, tools.DEFAULT_GREP_LIMIT if limit is None else int(limit))
    context = int(args.get("context") or 0)
    if root in files:
        searched = {posixpath.basename(root): files[root]}
    elif _is_directory(args.get("tree") or {}, files, root):
        prefix = root.rstrip("/") + "/"
        searched = {p.removeprefix(prefix): d for p, d in files.items() if p.startswith(prefix)}
    else:
        return tools.grep_path_missing(root).to_pi()
    glob = args.get("glob")
    if glob is not None:
        if not isinstance(glob, str):
            raise InvalidInput("glob", "must be a string")
        spec = pathspec.PathSpec.from_lines("gitignore", [glob])
        cwd = _resolve(args, ".")
        base = root if root not in files else posixpath.dirname(root)
        searched = {
            rel: data
            for rel, data in searched.items()
            if spec.match_file(posixpath.relpath(posixpath.join(base, rel), cwd))
        }
    flags = re.IGNORECASE if args.get("ignoreCase") else 0
    expression = re.compile(re.escape(pattern) if args.get("literal") else pattern, flags)
    matches: list[tools.GrepMatch] = []
    for rel, data in sorted(searched.items()):
        text = data.decode("utf-8", "replace")
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        reread = tools.context_lines(data) if context > 0 else ()
        for number, line in enumerate(lines, 1):
            if len(matches) < effective and expression.search(line):
                matches.append(tools.GrepMatch(rel=rel, line=number, text=line, file_lines=reread))
    return tools.grep_result(matches, limit=limit, context=context).to_pi()


HANDLERS: Final[dict[str, Handler]] = {"tool.read": read, "tool.bash": bash, "tool.grep": grep}
