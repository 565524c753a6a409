"""`ctxspec changelog pi@A..pi@B`: what changed in Pi's context layer, by bisection.

Both ends run the whole suite against the corpus alone (no expectations file). A case
whose outcome differs between the ends (its status, or for a failure the diff lines) is
bisected over the releases in between: the middle release runs only the cases still
open there, so each release runs a handful of cases, not the whole suite. Bisection
assumes a case changes once in the range; a case that changes and changes back between
two probes is not seen, so the page states which releases were run.

The output is a Markdown page: per release, the cases it changed, each with its status
before and after and the diff lines at the first changed release. While it works, a count
of the conform runs so far (the two ends, then each bisection step) shows on stderr
(`ctxspec.conformance.runner.progress`), with no total: the steps depend on what changed.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.harnesses import pi
from ctxspec.conformance.runner.progress import progress
from ctxspec.conformance.runner.suite_run import run_suite
from ctxspec.conformance.tools.expectations_write import (
    Change,
    diff_lines,
    load_changes,
    match_changes,
)
from ctxspec.conformance.transport.named import InstallError, parse_named

__all__ = ["Outcome", "bisect_changes", "main_changelog", "parse_range", "render", "run_cases"]


@dataclass(frozen=True, slots=True)
class Outcome:
    status: str
    diff: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        # a passing case has no diff; a failing one is "the same" only with the same diff
        return (self.status, self.diff if self.status != "passed" else ())


Runner = Callable[[str, Sequence[str] | None], dict[str, Outcome]]


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def parse_range(text: str) -> tuple[str, str, str]:
    """`pi@0.85.0..pi@1.6.0` -> ("pi", "0.85.0", "1.6.0")."""
    start, sep, end = text.partition("..")
    first, last = parse_named(start), parse_named(end)
    if not sep or first is None or last is None or first.family != last.family:
        raise ValueError(f"{text!r}: a range is FAMILY@A..FAMILY@B, e.g. pi@0.85.0..pi@1.6.0")
    if _version_key(first.version) >= _version_key(last.version):
        raise ValueError(f"{text!r}: the range must go from an older to a newer release")
    return first.family.name, first.version, last.version


def published_versions(family: str, first: str, last: str) -> list[str]:
    """The releases from `first` to `last` (inclusive) that the npm registry has."""
    if family != "pi":
        raise ValueError("the changelog walks Pi's releases (pi@A..pi@B)")
    versions = [v for v in pi.registry_versions(pi.package_name(last)) if "-" not in v]
    chosen = [v for v in versions if _version_key(first) <= _version_key(v) <= _version_key(last)]
    return sorted(set(chosen) | {first, last}, key=_version_key)


def run_cases(
    impl: str, case_ids: Sequence[str] | None, *, jobs: str = "auto"
) -> dict[str, Outcome]:
    """Run the suite (or just `case_ids`) against `impl` with no expectations file."""
    run = run_suite(impl, cases=case_ids or (), jobs=jobs, expectations="none")
    if run.data is None:
        raise InstallError(f"{impl}: the suite wrote no results: {run.problem()}")
    records = run.records
    return {
        r["id"]: Outcome(r["status"], _stable(diff_lines(r.get("message", ""))))
        for r in records
        if r["kind"] == "case"
    }


def _stable(lines: Sequence[str]) -> tuple[str, ...]:
    """Diff lines with the runs' own temp dirs masked, so two runs of one release compare
    equal: the run's dir and the dirs made in it (`ctxspec-*`, `impl-*`, random names),
    never a case's virtual path that merely lies under the temp dir (`/tmp/ws/a.md`)."""
    temp = re.escape(tempfile.gettempdir())
    own = temp + r"(?:/(?:ctxspec|impl)-[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*)+"
    return tuple(re.sub(own, "<tmp>", line) for line in lines)


@dataclass(frozen=True, slots=True)
class Changed:
    case_id: str
    first_version: str  # the first release whose outcome differs from the start's
    before: Outcome
    after: Outcome  # at first_version
    at_end: Outcome


def bisect_changes(
    family: str, versions: Sequence[str], run: Runner
) -> tuple[list[Changed], dict[str, int]]:
    """Per case whose outcome differs between the ends, the first release that changed it."""
    results: dict[str, dict[str, Outcome]] = {}

    def outcomes(version: str, ids: Sequence[str] | None) -> dict[str, Outcome]:
        known = results.setdefault(version, {})
        wanted = None if ids is None else [i for i in ids if i not in known]
        if wanted is None or wanted:
            known.update(run(f"{family}@{version}", wanted))
        return known

    start = outcomes(versions[0], None)
    end = outcomes(versions[-1], None)
    changed_ids = sorted(i for i in start if i in end and start[i].key != end[i].key)
    # per case, the open interval (lo, hi): outcome at lo is the start's, at hi it differs
    bounds = {case_id: (0, len(versions) - 1) for case_id in changed_ids}
    while True:
        by_middle: dict[int, list[str]] = {}
        for case_id, (lo, hi) in bounds.items():
            if hi - lo > 1:
                by_middle.setdefault((lo + hi) // 2, []).append(case_id)
        if not by_middle:
            break
        for middle, ids in sorted(by_middle.items()):
            got = outcomes(versions[middle], ids)
            for case_id in ids:
                lo, hi = bounds[case_id]
                same = case_id in got and got[case_id].key == start[case_id].key
                bounds[case_id] = (middle, hi) if same else (lo, middle)
    changes = [
        Changed(
            case_id,
            versions[hi],
            start[case_id],
            results[versions[hi]][case_id],
            end[case_id],
        )
        for case_id, (_, hi) in bounds.items()
    ]
    runs = {version: len(found) for version, found in results.items()}
    return sorted(changes, key=lambda c: (_version_key(c.first_version), c.case_id)), runs


def render(
    family: str,
    versions: Sequence[str],
    changes: Sequence[Changed],
    runs: Mapping[str, int],
    ops: Mapping[str, str],
    *,
    reasons: Mapping[str, Sequence[Change]] | None = None,
) -> str:
    """The Markdown page; `reasons` names the catalogued change(s) behind each case."""
    reasons = reasons or {}
    first, last = versions[0], versions[-1]
    lines = [
        f"# What changed in Pi's context layer since {first}",
        "",
        f"Written by `ctxspec changelog {family}@{first}..{family}@{last}`: every golden case",
        f"whose outcome differs between Pi {first} and Pi {last}, with the first release that",
        "changed it, found by bisection over the releases published in between. Outcomes are",
        "judged against the corpus alone (the expected values are Pi "
        f"{first}'s); a case's reason in each",
        "release's expectations file says what the change is.",
        "",
        "| release | cases changed | cases run there |",
        "|---|---|---|",
    ]
    per_release: dict[str, list[Changed]] = {}
    for change in changes:
        per_release.setdefault(change.first_version, []).append(change)
    for version in versions:
        count = len(per_release.get(version, []))
        lines.append(f"| {version} | {count} | {runs.get(version, 0)} |")
    lines += ["", f"{len(changes)} cases changed in all.", ""]
    for version in versions:
        found = per_release.get(version)
        if not found:
            continue
        lines += [f"## {version}", ""]
        named = {c.name: c for change in found for c in reasons.get(change.case_id, ())}
        for catalogued in named.values():
            lines.append(f"- **{catalogued.name}**: {catalogued.reason}")
        if named:
            lines += ["", "Cases:", ""]
        for change in found:
            op = ops.get(change.case_id, "?")
            tags = ", ".join(c.name for c in reasons.get(change.case_id, ())) or "unexplained"
            later = f"; changed again by {last}" if change.at_end != change.after else ""
            lines.append(
                f"- `{change.case_id}` ({op}): {change.before.status} → "
                f"{change.after.status} [{tags}]{later}"
            )
            shown = change.after.diff[:6]
            if shown:
                lines.append("")
                lines.append("  ```")
                lines += [f"  {line[:200]}" for line in shown]
                if len(change.after.diff) > len(shown):
                    lines.append(f"  … {len(change.after.diff) - len(shown)} more diff lines")
                lines.append("  ```")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _to_data(versions: Sequence[str], changes: Sequence[Changed], runs: Mapping[str, int]) -> Any:
    def outcome(o: Outcome) -> dict[str, Any]:
        return {"status": o.status, "diff": list(o.diff)}

    return {
        "versions": list(versions),
        "runs": dict(runs),
        "changes": [
            {
                "id": c.case_id,
                "firstVersion": c.first_version,
                "before": outcome(c.before),
                "after": outcome(c.after),
                "atEnd": outcome(c.at_end),
            }
            for c in changes
        ],
    }


def _from_data(data: Any) -> tuple[list[str], list[Changed], dict[str, int]]:
    def outcome(o: Any) -> Outcome:
        return Outcome(o["status"], tuple(o["diff"]))

    changes = [
        Changed(
            c["id"],
            c["firstVersion"],
            outcome(c["before"]),
            outcome(c["after"]),
            outcome(c["atEnd"]),
        )
        for c in data["changes"]
    ]
    return list(data["versions"]), changes, dict(data["runs"])


def explain(family: str, changes: Sequence[Changed]) -> dict[str, list[Change]]:
    """The catalogued changes behind each changed case, at the release that changed it."""
    catalogue = load_changes(family)
    ops = {case.id: case.op for case in load_cases()}
    explained = {}
    for change in changes:
        record = {
            "id": change.case_id,
            "op": ops.get(change.case_id, ""),
            "status": change.after.status,
            "message": "\n".join(change.after.diff),
        }
        explained[change.case_id] = match_changes(record, catalogue, change.first_version)
    return explained


def main_changelog(
    spec: str, out: str | None, jobs: str, *, data: str | None = None, rerender: bool = False
) -> int:
    """Run (or, with `rerender`, read back from `data`) the bisection and write the page."""
    family, first, last = parse_range(spec)
    if rerender:
        if not data:
            raise ValueError("--rerender needs --data FILE (written by an earlier run)")
        versions, changes, runs = _from_data(json.loads(Path(data).read_text()))
    else:
        versions = published_versions(family, first, last)
        print(f"ctxspec changelog: releases {' '.join(versions)}", file=sys.stderr)
        with progress(None, "changelog conform runs") as step:

            def run(impl: str, ids: Sequence[str] | None) -> dict[str, Outcome]:
                what = "all cases" if ids is None else f"{len(ids)} cases (bisection)"
                step(advance=0, note=f"running {impl}: {what}")
                found = run_cases(impl, ids, jobs=jobs)
                step(note=f"{impl}: {what} done")
                return found

            changes, runs = bisect_changes(family, versions, run)
        if data:
            Path(data).write_text(json.dumps(_to_data(versions, changes, runs), indent=1) + "\n")
    ops = {case.id: case.op for case in load_cases()}
    page = render(family, versions, changes, runs, ops, reasons=explain(family, changes))
    if out:
        Path(out).write_text(page, "utf-8")
        print(f"ctxspec changelog: {len(changes)} changed cases -> {out}", file=sys.stderr)
    else:
        sys.stdout.write(page)
    return 0
