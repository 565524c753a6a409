"""The universal checks of instruction files and trust, in the agent's declared terms.

From the case's tree, cwd and home, the profile's `instructions` terms (global files,
names per directory, the walk and its markers, the order, the budget and its marker)
select the files the agent's own rules load, in the order they declare; its `trust.gates`
say what an untrusted project may not inject. The agent's answer is the instruction text
the model sees: each selected file must be in it whole, in that order, or a declared
marker must say it was cut. A file is found by its text with outer whitespace trimmed
(agents trim and wrap files); the cases give every file a distinct text.
"""

from __future__ import annotations

import base64
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ctxspec.conformance.judging.compare import Difference
from ctxspec.conformance.judging.universal.units import lone_surrogates, replacements, size

__all__ = ["CHECKS", "Selected", "select"]

Terms = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Selected:
    """A file the agent's rules load: its virtual path, text, and whether it is the
    project's (not the user's global file)."""

    path: str
    text: str
    project: bool

    @property
    def key(self) -> str:
        return self.text.strip()


def _files(tree: Mapping[str, Any]) -> tuple[dict[str, str], set[str]]:
    """The tree's regular files (virtual path -> text) and every directory in it."""
    files: dict[str, str] = {}
    dirs = {"/"}
    for raw, value in tree.items():
        path = "/" + raw.strip("/")
        parent = posixpath.dirname(path)
        while parent not in dirs:
            dirs.add(parent)
            parent = posixpath.dirname(parent)
        if raw.endswith("/"):
            dirs.add(path)
        elif isinstance(value, str):
            files[path] = value
        elif isinstance(value, dict) and "content" in value:
            files[path] = value["content"]
        elif isinstance(value, dict) and "contentB64" in value:
            files[path] = base64.b64decode(value["contentB64"]).decode("utf-8", "replace")
    return files, dirs


def _ancestors(path: str) -> list[str]:
    """`/`, ..., `path`: every directory from the root down to `path`."""
    chain = [path]
    while chain[-1] != "/":
        chain.append(posixpath.dirname(chain[-1]))
    return chain[::-1]


def _project_dirs(terms: Terms, cwd: str, files: Mapping[str, str], dirs: set[str]) -> list[str]:
    chain = _ancestors(cwd)
    walk = terms["walk"]
    if walk == "cwd-only":
        return [cwd]
    if walk == "up-to-marker":
        for index in range(len(chain) - 1, -1, -1):
            here = chain[index]
            if any(posixpath.join(here, m) in files or posixpath.join(here, m) in dirs
                   for m in terms.get("markers", [])):  # fmt: skip
                return chain[index:]
        if terms.get("no_marker", "cwd-only") == "cwd-only":
            return [cwd]
    return chain


def _in_dir(terms: Terms, folder: str, files: Mapping[str, str]) -> list[str]:
    found: list[str] = []
    for name in terms["names"]:
        if name.endswith("/*.md"):
            rules = posixpath.join(folder, name[: -len("/*.md")])
            found += sorted(p for p in files
                            if posixpath.dirname(p) == rules and p.endswith(".md"))  # fmt: skip
        elif posixpath.join(folder, name) in files:
            found.append(posixpath.join(folder, name))
        if found and terms.get("first_name_only"):
            break
    return found


def select(terms: Terms, args: Mapping[str, Any]) -> list[Selected]:
    """The files the agent's declared rules load for this tree, in their declared order
    (trust aside: `untrusted-gated` and `selected-files-present` apply it)."""
    files, dirs = _files(args["tree"])
    home = args["home"]
    globals_ = [Selected(posixpath.join(home, g), files[posixpath.join(home, g)], False)
                for g in terms["global"] if posixpath.join(home, g) in files]  # fmt: skip
    folders = _project_dirs(terms, args["cwd"], files, dirs)
    if terms["order"] == "leaf-to-root":
        folders = folders[::-1]
    project = [Selected(p, files[p], True) for folder in folders
               for p in _in_dir(terms, folder, files)
               if p not in {g.path for g in globals_}]  # fmt: skip
    if terms.get("global_position", "first") == "last":
        return project + globals_
    return globals_ + project


def _gated(profile_trust: Terms | None, args: Mapping[str, Any]) -> bool:
    gates = (profile_trust or {}).get("gates", [])
    return args.get("trust") == "untrusted" and "project-instructions" in gates


def _kept(key: str, text: str) -> str:
    """The longest prefix of `key` that `text` holds (all of it when it is there)."""
    if key in text:
        return key
    low, high = 0, len(key)
    while low < high:
        middle = (low + high + 1) // 2
        if key[:middle] in text:
            low = middle
        else:
            high = middle - 1
    return key[:low]


def _violation(check: str, rule: str, actual: str) -> Difference:
    return Difference("$.text", rule, actual, check=check)


def _expected(terms: Terms, trust: Terms | None, args: Mapping[str, Any]) -> list[Selected]:
    gated = _gated(trust, args)
    return [f for f in select(terms, args) if f.key and not (gated and f.project)]


def selected_files_present(
    terms: Terms, args: Mapping[str, Any], result: Any, trust: Terms | None = None
) -> list[Difference]:
    """Every selected file reaches the prompt whole, or a declared marker says it was cut."""
    text = result["text"]
    marker = terms.get("cut_marker")
    marked_cut = marker is not None and re.search(marker, text) is not None
    found = []
    for file in _expected(terms, trust, args):
        kept = _kept(file.key, text)
        if kept == file.key or marked_cut:
            continue
        what = "dropped" if len(kept) < min(8, len(file.key)) else f"cut to {len(kept)} of"
        found.append(_violation(
            "selected-files-present",
            f"{file.path} reaches the prompt whole, or a marker says it was cut"
            + ("" if marker else " (the agent declares no marker)"),
            f"{what} {len(file.key)} code points, no marker",
        ))  # fmt: skip
    return found


def declared_order(
    terms: Terms, args: Mapping[str, Any], result: Any, trust: Terms | None = None
) -> list[Difference]:
    """The files that reach the prompt come in the declared order."""
    text = result["text"]
    placed = []
    for file in _expected(terms, trust, args):
        kept = _kept(file.key, text)
        if len(kept) >= min(8, len(file.key)):
            placed.append((text.find(kept), file.path))
    for (before, first), (after, second) in pairwise(placed):
        if after < before:
            return [_violation(
                "declared-order",
                f"{terms['order']}, global files {terms.get('global_position', 'first')}: "
                f"{first} before {second}",
                f"{second} comes first",
            )]  # fmt: skip
    return []


def whole_characters(
    terms: Terms, args: Mapping[str, Any], result: Any, trust: Terms | None = None
) -> list[Difference]:
    """No file is cut inside a character: no lone surrogate or U+FFFD the files lacked."""
    text = result["text"]
    files = select(terms, args)
    found = []
    if replacements(text) > sum(replacements(f.text) for f in files):
        found.append(_violation(
            "whole-characters", "no U+FFFD the instruction files lacked",
            f"{replacements(text)} U+FFFD, first at code point {text.index(chr(0xFFFD))}",
        ))  # fmt: skip
    if len(lone_surrogates(text)) > sum(len(lone_surrogates(f.text)) for f in files):
        found.append(_violation("whole-characters", "no lone surrogate the files lacked",
                                f"{len(lone_surrogates(text))} lone surrogate(s)"))  # fmt: skip
    return found


def fits_budget(
    terms: Terms, args: Mapping[str, Any], result: Any, trust: Terms | None = None
) -> list[Difference]:
    """What the budget covers of the files that reached the prompt fits the budget."""
    budget = terms.get("budget")
    if not budget:
        return []
    limit = budget["limit"] if args.get("budget") is None else args["budget"]
    covered = [f for f in _expected(terms, trust, args)
               if f.project or budget["covers"] == "all"]  # fmt: skip
    used = sum(size(_kept(f.key, result["text"]), budget["unit"]) for f in covered)
    if used > limit:
        return [_violation("fits-budget", f"at most {limit:g} {budget['unit']} of files",
                           f"{used} {budget['unit']}")]  # fmt: skip
    return []


def untrusted_gated(
    terms: Terms, args: Mapping[str, Any], result: Any, trust: Terms | None = None
) -> list[Difference]:
    """An untrusted project injects nothing the agent says trust gates."""
    if not _gated(trust, args):
        return []
    text = result["text"]
    leaked = [f.path for f in select(terms, args) if f.project and f.key and f.key in text]
    if leaked:
        return [_violation("untrusted-gated",
                           "an untrusted project's instruction files do not reach the prompt",
                           f"{', '.join(leaked)} reached it")]  # fmt: skip
    return []


CHECKS = {
    "selected-files-present": selected_files_present,
    "declared-order": declared_order,
    "whole-characters": whole_characters,
    "fits-budget": fits_budget,
    "untrusted-gated": untrusted_gated,
}
