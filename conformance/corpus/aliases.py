"""Renamed case ids: the alias table `corpora/aliases.yaml` and its one warning.

A case id is permanent, but an id that contradicts its own case (or names how the case
was found) is renamed; the table keeps every old id, so an expectations file, a change
catalogue or a `--case` that names an old id still works:

    aliases:
      tail-last-line-exactly-max-bytes-marked-partial:
        id: tail-last-line-exactly-max-bytes-kept-whole
        renamed: 2026-12-04 (ctxspec 0.1.0)
        why: the case expects the last line whole and lastLinePartial false

`new_id(old)` follows the table (an id that is not an old one comes back unchanged).
Whoever reads an old id reports it with `renamed_message` once per old id: the suite as a
`RenamedCaseWarning` in pytest's warnings summary, the other commands on stderr
(`warn_renamed`). `lint` is the table's part of `ctxspec cases lint`: an alias must lead
to a live id, and an old id must not be a live id.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import yaml

from ctxspec.conformance.errors import CorpusError
from ctxspec.corpora import cases_root

__all__ = [
    "Alias",
    "RenamedCaseWarning",
    "lint",
    "load_aliases",
    "new_id",
    "rename_keys",
    "renamed_message",
    "renamed_messages",
    "warn_renamed",
]

_FIELDS: Final = {"id", "renamed", "why"}


class RenamedCaseWarning(UserWarning):
    """An expectations file or `--case` names a case by its old id."""


@dataclass(frozen=True, slots=True)
class Alias:
    old: str
    new: str
    renamed: str  # when, and in which version: "2026-12-04 (ctxspec 0.1.0)"
    why: str


@cache
def load_aliases() -> dict[str, Alias]:
    """Old id -> its `Alias`, from `corpora/aliases.yaml`. Raises `CorpusError` if malformed."""
    where = "corpora/aliases.yaml"
    try:
        text = cases_root().joinpath("..", "aliases.yaml").read_text("utf-8")
        data: Any = yaml.safe_load(text) or {}
    except FileNotFoundError:
        return {}
    except (OSError, yaml.YAMLError) as error:
        raise CorpusError(f"{where}: cannot read the alias table: {error}") from None
    table = data.get("aliases") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise CorpusError(f"{where}: `aliases` maps each old id to {{id, renamed, why}}")
    aliases = {}
    for old, entry in table.items():
        if not (
            isinstance(old, str)
            and isinstance(entry, dict)
            and set(entry) == _FIELDS
            and all(isinstance(entry[key], str) and entry[key].strip() for key in _FIELDS)
        ):
            raise CorpusError(f"{where}: {old!r} needs exactly id, renamed and why (strings)")
        aliases[old] = Alias(old, entry["id"], entry["renamed"], " ".join(entry["why"].split()))
    return aliases


def new_id(case_id: str) -> str:
    """The id a case has now: `case_id` itself unless the table renamed it (followed through
    renames of renames)."""
    aliases, seen = load_aliases(), {case_id}
    while case_id in aliases:
        case_id = aliases[case_id].new
        if case_id in seen:
            raise CorpusError(f"corpora/aliases.yaml: the renames of {case_id!r} go round")
        seen.add(case_id)
    return case_id


def rename_keys(entries: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """`entries` (case id -> reason) under the ids the cases have now, and the old ids met.
    Where an old id and its new id are both listed, the new id's entry wins."""
    renamed = [key for key in entries if new_id(key) != key]
    moved = {new_id(key): value for key, value in entries.items() if key in renamed}
    kept = {key: value for key, value in entries.items() if key not in renamed}
    return {**moved, **kept}, renamed


def renamed_message(old: str, source: str) -> str:
    """The one line naming the new id of `old`, met in `source` (a file, or `--case`)."""
    alias = load_aliases()[old]
    return (
        f"{source}: case {old!r} is now {new_id(old)!r} (renamed {alias.renamed}: "
        f"{alias.why}); it applies to the new id: name that instead"
    )


def renamed_messages(expectations: Any, case_option: Iterable[str], config: Any) -> list[str]:
    """The suite's warnings: one `renamed_message` per old id that the expectations file
    (an `Expectations`) or `--case` names. None on an xdist worker (pytest's `config` has
    `workerinput`): the controller warns, once."""
    if hasattr(config, "workerinput"):
        return []
    named = dict.fromkeys(expectations.renamed, expectations.source)
    for old in case_option:
        if new_id(old) != old:
            named.setdefault(old, "--case")
    return [renamed_message(old, source) for old, source in named.items()]


_warned: set[str] = set()


def warn_renamed(olds: Iterable[str], source: str) -> None:
    """Print `renamed_message` for each old id to stderr, once per old id per process."""
    for old in olds:
        if old not in _warned:
            _warned.add(old)
            print(f"ctxspec: warning: {renamed_message(old, source)}", file=sys.stderr)


def lint(case_ids: Iterable[str]) -> list[str]:
    """The alias table's problems: an old id that is still a live id, or a rename leading
    to no case. Empty when the table is sound."""
    live = set(case_ids)
    problems = []
    for old, alias in sorted(load_aliases().items()):
        if old in live:
            problems.append(f"corpora/aliases.yaml: old id {old!r} is a live case id")
        try:
            target = new_id(old)
        except CorpusError as error:
            problems.append(str(error))
            continue
        if target not in live:
            problems.append(f"corpora/aliases.yaml: {old!r} -> {alias.new!r}: no case has that id")
    return problems
