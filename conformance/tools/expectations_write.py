"""`ctxspec expectations write`: an expectations file made from a run, reasons kept.

The failing records of a results file (`--json`) become entries; an entry already in
the file keeps its reason, a case that ran and passed is dropped, and an entry the run
did not select (a partial run, `--case`) stays as it is. A new entry takes its
reason from the family's change catalogue (`expectations/changes/<family>.yaml`): each
change names the release that made it, what changed, and how to recognise it (case ids,
or a pattern on the diff lines of the failure message), so one change is described in
one place and every version's file says the same thing about it. A failure that no
change matches gets its first diff line as the reason (what the implementation answered
against what was expected), flagged so that a person writes the real one.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

import yaml

from ctxspec.conformance.corpus.aliases import new_id, rename_keys, warn_renamed
from ctxspec.conformance.errors import CorpusError

__all__ = [
    "Change",
    "diff_lines",
    "load_changes",
    "match_change",
    "match_changes",
    "write_expectations",
]

UNEXPLAINED: Final = "UNEXPLAINED"
_FAILING: Final = frozenset({"failed", "error", "expected-failure", "unexpected-pass"})


@dataclass(frozen=True, slots=True)
class Change:
    """One behaviour change of a family's releases, and how to recognise its failures."""

    name: str
    since: str
    reason: str
    cases: tuple[str, ...] = ()  # ids or fnmatch patterns
    diff: str | None = None  # a regex searched in the failure's diff lines
    ops: tuple[str, ...] = ()  # restricts `diff` to these ops
    until: str | None = None  # the first release without the change, if it was undone

    def text(self) -> str:
        return f"{self.since}: {self.reason}"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def load_changes(family: str, path: str | None = None) -> list[Change]:
    """The change catalogue of a family (`pi`), empty where there is none."""
    source = (
        Path(path)
        if path
        else Path(str(resources.files("ctxspec.conformance").joinpath("expectations", "changes")))
        / f"{family}.yaml"
    )
    if not source.is_file():
        return []
    try:
        data: Any = yaml.safe_load(source.read_text("utf-8")) or []
    except yaml.YAMLError as error:
        raise CorpusError(f"{source}: {error}") from None
    if not isinstance(data, list):
        raise CorpusError(f"{source}: a change catalogue is a list of changes")
    changes = []
    for item in data:
        if not isinstance(item, dict) or not {"name", "since", "reason"} <= item.keys():
            raise CorpusError(f"{source}: each change has name, since and reason: {item!r}")
        if not item.get("cases") and not item.get("diff"):
            raise CorpusError(f"{source}: change {item['name']} names no cases and no diff")
        changes.append(
            Change(
                name=str(item["name"]),
                since=str(item["since"]),
                reason=" ".join(str(item["reason"]).split()),
                cases=tuple(new_id(case_id) for case_id in item.get("cases") or ()),
                diff=item.get("diff"),
                ops=tuple(item.get("ops") or ()),
                until=item.get("until"),
            )
        )
    return changes


def diff_lines(message: str) -> list[str]:
    """The `$.path: ...` lines of a failure message (what differed), without the rerun line."""
    return [line.strip() for line in message.splitlines() if line.lstrip().startswith("$")]


def _applies(change: Change, version: str | None) -> bool:
    if version is None:
        return True
    if _version_key(version) < _version_key(change.since):
        return False
    return change.until is None or _version_key(version) < _version_key(change.until)


def match_changes(
    record: Mapping[str, Any],
    changes: Iterable[Change],
    version: str | None = None,
    *,
    by: str = "any",
) -> list[Change]:
    """Every change (in catalogue order) that explains a failing record.

    `by` is "id" (only changes naming the case), "diff" (only diff patterns) or "any".
    """
    lines = diff_lines(str(record.get("message", "")))
    found = []
    for change in changes:
        if not _applies(change, version):
            continue
        named = any(fnmatch.fnmatchcase(record["id"], pattern) for pattern in change.cases)
        in_scope = not change.ops or record.get("op") in change.ops
        by_diff = change.diff is not None and in_scope and by in ("diff", "any")
        if (named and by in ("id", "any")) or (
            by_diff and any(re.search(str(change.diff), line) for line in lines)
        ):
            found.append(change)
    return found


def match_change(
    record: Mapping[str, Any],
    changes: Iterable[Change],
    version: str | None = None,
    *,
    by: str = "any",
) -> Change | None:
    """The first change (in catalogue order) that explains a failing record."""
    found = match_changes(record, changes, version, by=by)
    return found[0] if found else None


def _fallback(record: Mapping[str, Any]) -> str:
    lines = diff_lines(str(record.get("message", "")))
    first = lines[0] if lines else str(record.get("message", "")).splitlines()[0:1]
    shown = first if isinstance(first, str) else " ".join(first)
    return f"{UNEXPLAINED} ({record['status']}): {shown[:300]}"


def write_expectations(
    path: Path,
    implementation: str,
    results: Mapping[str, Any],
    changes: Iterable[Change] = (),
    *,
    version: str | None = None,
    baseline: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, int]:
    """Write `path` from `results`; returns counts: kept, explained, unexplained, dropped.

    `baseline` maps ids the family's pinned release already failed to (label, reason):
    such a failure keeps that reason unless a change names the case.
    """
    old: dict[str, Any] = {}
    if path.is_file():
        old = yaml.safe_load(path.read_text("utf-8")) or {}
    old_cases, renamed = rename_keys(old.get("cases") or {})  # written back under the new ids
    warn_renamed(renamed, str(path))
    old_reasons = {**old_cases, **(old.get("properties") or {})}
    changes = list(changes)
    sections: dict[str, dict[str, str]] = {"cases": {}, "properties": {}}
    counts = {"kept": 0, "explained": 0, "unexplained": 0, "dropped": 0}
    failing_ids = set()
    records = _listed_ids(results.get("records", []))
    for record in records:
        if record["status"] not in _FAILING or record["status"] == "unexpected-pass":
            continue
        if record["id"] in failing_ids:  # another parameter of the same property
            continue
        failing_ids.add(record["id"])
        section = "cases" if record["kind"] == "case" else "properties"
        old_reason = _old_reason(old_reasons, record["id"])
        if old_reason is not None and UNEXPLAINED not in str(old_reason):
            sections[section][record["id"]] = " ".join(str(old_reason).split())
            counts["kept"] += 1
            continue
        found = match_changes(record, changes, version, by="id")
        inherited = (baseline or {}).get(record["id"])
        if inherited is None or found:
            found += [c for c in match_changes(record, changes, version) if c not in found]
        if found:
            # several changes can meet in one case: each is named, newest first
            ordered = sorted(found, key=lambda c: _version_key(c.since), reverse=True)
            sections[section][record["id"]] = "; ".join(c.text() for c in ordered)
            counts["explained"] += 1
        elif inherited is not None:
            sections[section][record["id"]] = f"{inherited[0]}: {inherited[1]}"
            counts["explained"] += 1
        else:
            sections[section][record["id"]] = _fallback(record)
            counts["unexplained"] += 1
    # a property that ran ran under its bare name too: an old bare entry is rewritten
    ran = {str(record["id"]) for record in results.get("records", [])} | {
        str(record["id"]).split("[", 1)[0] for record in records if record["kind"] == "property"
    }
    for entry_id, reason in old_reasons.items():  # not run this time (a partial run): kept
        if entry_id not in ran:
            section = "cases" if entry_id in old_cases else "properties"
            sections[section][entry_id] = " ".join(str(reason).split())
            counts["kept"] += 1
    counts["dropped"] = len((set(old_reasons) & ran) - failing_ids)
    _dump(path, implementation, sections)
    return counts


def _old_reason(old_reasons: Mapping[str, Any], entry_id: str) -> str | None:
    """The reason the file already gives an entry: under its own id; a property's op
    under the bare name listed before; a bare name under its ops' entries (their reasons
    joined, each once), when every op of it now fails."""
    if entry_id in old_reasons:
        return str(old_reasons[entry_id])
    bare = entry_id.split("[", 1)[0]
    if bare != entry_id:
        return str(old_reasons[bare]) if bare in old_reasons else None
    per_op = [str(reason) for key, reason in old_reasons.items() if key.startswith(f"{bare}[")]
    return "; ".join(dict.fromkeys(" ".join(r.split()) for r in per_op)) or None


def _listed_ids(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The records under the ids an expectations file lists. A property parametrized by
    op is listed by its bare name when every parameter that ran fails
    (`test_x[truncate.head]` and `test_x[truncate.tail]` as `test_x`), else each failing
    parameter by its full name (`test_x[truncate.head]`), so the other op still passes."""
    records = list(records)
    outcomes: dict[str, set[bool]] = {}
    for record in records:
        if record.get("kind") == "property":
            bare = str(record["id"]).split("[", 1)[0]
            failing = record["status"] in _FAILING and record["status"] != "unexpected-pass"
            outcomes.setdefault(bare, set()).add(failing)
    listed = []
    for record in records:
        entry_id = str(record["id"])
        bare = entry_id.split("[", 1)[0]
        if record.get("kind") == "property" and outcomes.get(bare) == {True}:
            entry_id = bare
        listed.append(dict(record, id=entry_id))
    return listed


def _dump(path: Path, implementation: str, sections: Mapping[str, Mapping[str, str]]) -> None:
    lines = [
        f"# The cases and properties {implementation} fails, each with the reason.",
        "# Written by `ctxspec expectations write`; reasons are kept across rewrites.",
        "# A listed entry that passes is an unexpected pass (the run fails): keep this list true.",
        f"implementation: {implementation}",
    ]
    for name in ("cases", "properties"):
        entries = sections[name]
        lines.append(f"{name}:" + ("" if entries else " {}"))
        for key in sorted(entries):
            text = entries[key]
            if text.isprintable() and "  " not in text and text == text.strip() and text:
                lines.append(f"  {key}: >-")
                lines += [f"    {chunk}" for chunk in _wrap(text)]
            else:  # a reason quoting invisible characters: one JSON (= YAML) string
                lines.append(f"  {key}: {json.dumps(text)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", "utf-8")
    back = yaml.safe_load(path.read_text("utf-8"))
    if any((back.get(name) or {}) != dict(sections[name]) for name in sections):
        raise CorpusError(f"{path}: the written expectations do not read back as written")


def _wrap(text: str, width: int = 92) -> list[str]:
    words, lines, line = text.split(" "), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines or [""]
