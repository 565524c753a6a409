"""The results of a run: statuses, one record per test, divergence classes, the reports.

A *record* is one golden case or property of a run, as the `--json` file holds it: who
it is (`id`, `kind`, `boundary`, `op`, `rule`, `level`, `source`), its `status` (one of
`STATUSES`), its `duration`, and for a failing one its `message` (the text report). A
record whose answer was compared and differs (status `failed`, or `expected-failure`)
also has its `differences` in structured form (`path`, `kind`, short rendered `expected`
and `actual`; the first `SHOWN_DIFFERENCES`), their `differenceCount`, and the `classes`
it belongs to. An *error* record has the `request` that was pending when the
implementation broke the protocol, timed out or crashed (`{op, args}`, or past
`_REQUEST_KEPT` chars `{shortened: text}`), as its message shows it.

A *divergence class* groups the differences of every record by `(op, path, kind)`: the
op answered, the JSON path with list indices elided (`$.skills[*].baseDir`), and the
kind, one of `KINDS`: `missing` (a field the implementation left out), `extra` (a field
Pi does not have), `differs` (another value, type or list length) or `refused` (an error
where Pi answers a result, a result where Pi refuses, or another error type). A port
that never computes one field fails every case that has it, for one reason: one class.
The reports list the classes by count, each with one example case, so that a port
author sees the few things to fix before the many cases they break.

Functions: `describe` and `classify` read a pytest item and report; `record` builds the
record; `divergence_classes` groups records; `terminal_lines`, `results_document` and
`markdown` are the three renderers (`ctxspec.conformance.tools.matrix` renders several runs).
docs/results.md says what each status means and where *error* ends and *failure* begins.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import pytest

from ctxspec.conformance.corpus.cases import Case
from ctxspec.conformance.errors import (
    AdapterError,
    CorpusError,
    EnvironmentMissing,
    StopAfterTimeout,
)
from ctxspec.conformance.judging.compare import (
    Difference,
    elide_indices,
    render_value,
    shorten,
    string_windows,
)

__all__ = [
    "FAILING",
    "KINDS",
    "LISTED",
    "NOT_APPLICABLE",
    "REPORT_CHARS",
    "SHOWN_DIFFERENCES",
    "SHOWN_WINDOWS",
    "STATUSES",
    "Finding",
    "Findings",
    "class_key",
    "class_path",
    "classify",
    "describe",
    "divergence_classes",
    "findings_of",
    "markdown",
    "pi_line",
    "record",
    "rerun_command",
    "results_document",
    "slug",
    "status_table",
    "terminal_lines",
]

STATUSES: Final = (
    "passed",
    "failed",
    "error",
    "unsupported",
    "not-applicable",
    "failed-as-pi",
    "expected-failure",
    "unexpected-pass",
)
# the skip reason that makes a test *not applicable* (its profile's `not_applicable`)
NOT_APPLICABLE: Final = "not applicable"
FAILING: Final = frozenset({"failed", "error", "unexpected-pass"})  # these fail the run
LISTED: Final = frozenset({"failed", "error", "unexpected-pass", "expected-failure"})
# the statuses whose differences are classed
CLASSED: Final = ("failed", "failed-as-pi", "expected-failure")
KINDS: Final = ("missing", "extra", "differs", "refused")
REPORT_CHARS: Final = 16000  # a failure report keeps its head and tail within this
SHOWN_DIFFERENCES: Final = 50  # structured differences kept in one record
SHOWN_WINDOWS: Final = 20  # differing windows kept of one string difference
TERMINAL_CLASSES: Final = 20  # classes the terminal summary shows (the files show all)
_VALUE_CHARS: Final = 200  # a rendered value in a structured difference
_REQUEST_KEPT: Final = 20000  # an error record's pending request, kept whole up to this size
_KIND_LABEL: Final = {"case": "cases", "property": "properties"}


def slug(name: str) -> str:
    """A file-name-safe form of an implementation's name.

    >>> slug("pi@0.85.0"), slug("python3 my_port.py --fast")
    ('pi-0.85.0', 'python3-my-port.py-fast')
    """
    return re.sub(r"[^A-Za-z0-9.]+", "-", name).strip("-").lower() or "impl"


def rerun_command(impl: str, case_id: str) -> str:
    return f"ctxspec conform --impl {shlex.quote(impl)} --case {case_id}"


def _rerun(impl: str, entry: Mapping[str, Any]) -> str:
    if entry["kind"] == "case":
        return rerun_command(impl, entry["id"])
    return f"ctxspec conform --impl {shlex.quote(impl)} -k {shlex.quote(entry['id'])}"


# --- differences and their classes ------------------------------------------------------


def class_path(path: str) -> str:
    """`path` with every list index elided: the same field of any item is one path.

    >>> class_path("$.skills[3].baseDir"), class_path("$.messages[0].content[12].text")
    ('$.skills[*].baseDir', '$.messages[*].content[*].text')
    """
    return elide_indices(path, "[*]")


def class_key(op: str, path: str, kind: str) -> str:
    """The key of a divergence class, as reports print it: `op path kind`.

    >>> class_key("truncate.tail", "$.firstLineExceedsLimit", "missing")
    'truncate.tail $.firstLineExceedsLimit missing'
    """
    if kind not in KINDS and not kind.startswith("violates:"):
        raise ValueError(f"unknown difference kind {kind!r}; kinds: {KINDS}")
    return f"{op} {class_path(path)} {kind}"


def _short(value: Any) -> str:
    return shorten(render_value(value), _VALUE_CHARS)


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One difference of a record, small: its path, kind and both sides rendered short."""

    path: str
    kind: str
    expected: str | None  # None: the expected side has nothing here (an extra field)
    actual: str | None  # None: the actual side has nothing here (a missing field)
    # a string difference: every differing window, [expected lo, hi, actual lo, hi] in
    # code points (compare.string_windows), the first SHOWN_WINDOWS of them
    windows: tuple[tuple[int, int, int, int], ...] | None = None
    window_count: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "kind": self.kind,
                               "expected": self.expected, "actual": self.actual}  # fmt: skip
        if self.windows is not None:
            out["windows"] = [list(window) for window in self.windows]
            out["windowCount"] = self.window_count
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Findings:
    """Every difference of one answer: the first ones shown, the count, every class key.

    Built when the answer is judged and kept on the failure it raises; it holds rendered
    text only, never the answer, whatever its size.
    """

    op: str
    shown: tuple[Finding, ...]
    total: int
    classes: tuple[str, ...]

    @classmethod
    def of(cls, op: str, found: Sequence[Difference]) -> Findings:
        """The findings of `compare.differences(expected, actual)` for an answer of `op`."""
        shown = tuple(_finding(d) for d in found[:SHOWN_DIFFERENCES])
        keys = sorted({class_key(op, d.path, d.kind) for d in found})
        return cls(op=op, shown=shown, total=len(found), classes=tuple(keys))

    @classmethod
    def refusal(cls, op: str, expected: str, actual: str) -> Findings:
        """An error where a result was due, a result where an error was, or another error."""
        finding = Finding(path="$", kind="refused", expected=expected, actual=actual)
        return cls(op=op, shown=(finding,), total=1, classes=(class_key(op, "$", "refused"),))

    def to_record(self) -> dict[str, Any]:
        return {
            "differences": [_stable(f.to_json()) for f in self.shown],
            "differenceCount": self.total,
            "classes": list(self.classes),
        }


def _finding(d: Difference) -> Finding:
    if isinstance(d.expected, str) and isinstance(d.actual, str) and d.check is None:
        windows = string_windows(d.expected, d.actual)
        first = windows[0] if windows else None
        return Finding(
            path=d.path,
            kind=d.kind,
            expected=_short_at(d.expected, first.e_lo if first else None),
            actual=_short_at(d.actual, first.a_lo if first else None),
            windows=tuple((w.e_lo, w.e_hi, w.a_lo, w.a_hi) for w in windows[:SHOWN_WINDOWS]),
            window_count=len(windows),
        )
    return Finding(
        path=d.path,
        kind=d.kind,
        expected=None if d.extra else _short(d.expected),
        actual=None if d.missing else _short(d.actual),
    )


def _short_at(text: str, at: int | None) -> str:
    return shorten(render_value(text, around=at), _VALUE_CHARS)


def _stable(difference: dict[str, Any]) -> dict[str, Any]:
    return {k: stable_text(v) if isinstance(v, str) else v for k, v in difference.items()}


def findings_of(error: BaseException | None) -> Findings | None:
    """The findings a judged failure carries (merged over an exception group), or None."""
    found: list[Findings] = []
    pending = [error]
    while pending:
        current = pending.pop(0)
        if isinstance(current, BaseExceptionGroup):
            pending += current.exceptions
        elif isinstance(getattr(current, "findings", None), Findings):
            found.append(current.findings)  # type: ignore[union-attr]
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    shown = tuple(f for item in found for f in item.shown)[:SHOWN_DIFFERENCES]
    keys = tuple(sorted({key for item in found for key in item.classes}))
    op = found[0].op if len({item.op for item in found}) == 1 else "*"
    return Findings(op=op, shown=shown, total=sum(i.total for i in found), classes=keys)


# --- the record -------------------------------------------------------------------------


def describe(item: pytest.Item) -> dict[str, Any]:
    """Who a test is: a golden case or a ctxspec property ({} for any other test)."""
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get("golden_case") if callspec is not None else None
    if isinstance(case, Case):
        return {
            "id": case.id,
            "kind": "case",
            "boundary": case.boundary,
            "op": case.op,
            "rule": case.rule,
            "level": case.level,
            "source": case.source,
        }
    marker = item.get_closest_marker("ctxspec_property")
    if marker is not None:
        return {
            "id": item.name,
            "kind": "property",
            "boundary": marker.kwargs.get("boundary"),
            "op": marker.kwargs.get("op"),
            "rule": marker.kwargs.get("rule"),
            "level": marker.kwargs.get("level", "invariant"),
        }
    return {}


def classify(report: pytest.TestReport, call: pytest.CallInfo[None]) -> str:
    """The status of one report: an implementation that broke the protocol, a machine
    that lacks what it needs, or the suite's own data at fault (stale examples) is an
    *error*."""
    excinfo = call.excinfo
    if excinfo is not None and isinstance(
        excinfo.value, AdapterError | StopAfterTimeout | EnvironmentMissing | CorpusError
    ):
        return "error"
    if report.skipped:
        if hasattr(report, "wasxfail"):
            return "expected-failure"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        if reason.removeprefix("Skipped: ").startswith(NOT_APPLICABLE):
            return "not-applicable"
        return "unsupported"
    if report.failed:
        return "unexpected-pass" if excinfo is None else "failed"
    return "unexpected-pass" if hasattr(report, "wasxfail") else "passed"


_ADDRESS: Final = re.compile(r" at 0x[0-9a-f]+")
# a run's private temp dirs (processes.run_dir, an implementation's `impl-*` inside it, and
# what the implementation makes there), as an implementation's answers may show them
_RUN_PATH: Final = re.compile(
    r"/[^\s\"'<>]*?ctxspec-run-[A-Za-z0-9_]+(?:/(?:impl-|ctxspec-[a-z]+-)[A-Za-z0-9_]+)*"
)


def stable_text(message: str) -> str:
    """A failure message without what differs from run to run while the verdict does
    not: object addresses (pytest's reprs show them) and the run's temp dirs (`<run>`)."""
    return _RUN_PATH.sub("<run>", _ADDRESS.sub(" at 0x…", message))


def policy_line(policy: Mapping[str, Any]) -> str:
    """The example policy of a run (plugin.example_policy), for every report's header."""
    return (
        f"property examples: {policy['policy']}, {policy['maxExamples']} per property, "
        f"seed {policy['seed']}, hypothesis {policy['hypothesis']} ({policy['statement']})"
    )


def record(
    described: Mapping[str, Any],
    *,
    status: str,
    duration: float,
    message: str | None = None,
    findings: Findings | None = None,
    request: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of one test; `findings` are kept for the statuses in `CLASSED` only,
    the pending `request` for an error only."""
    entry = dict(described, status=status, duration=round(duration, 6))
    if message is not None:
        entry["message"] = stable_text(message[:20000])
    if findings is not None and status in CLASSED:
        entry.update(findings.to_record())
    if request is not None and status == "error":
        text = json.dumps(request, ensure_ascii=True)
        short = len(text) > _REQUEST_KEPT
        entry["request"] = {"shortened": shorten(text, _REQUEST_KEPT)} if short else dict(request)
    return entry


# --- divergence classes -----------------------------------------------------------------


def divergence_classes(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The classes of the records' differences, largest first.

    Each: `key`, `op`, `path`, `kind`, `count` (records in it), `failed` and
    `expectedFailures` (of those, by status), `example` (a case id, a property's only
    when no case is in it) and `cases` (every id, sorted).
    """
    members: dict[str, list[Mapping[str, Any]]] = {}
    for entry in records:
        if entry.get("status") in CLASSED:
            for key in entry.get("classes", ()):
                members.setdefault(key, []).append(entry)
    classes: list[dict[str, Any]] = []
    for key, entries in members.items():
        op, _, rest = key.partition(" ")
        path, _, kind = rest.rpartition(" ")
        ids = sorted(str(e["id"]) for e in entries)
        cases = sorted(str(e["id"]) for e in entries if e.get("kind") == "case")
        statuses = Counter(str(e["status"]) for e in entries)
        classes.append(
            {
                "key": key,
                "op": op,
                "path": path,
                "kind": kind,
                "count": len(entries),
                "failed": statuses["failed"],
                "failedAsPi": statuses["failed-as-pi"],
                "expectedFailures": statuses["expected-failure"],
                "example": (cases or ids)[0],
                "cases": ids,
            }
        )
    classes.sort(key=lambda c: (-c["count"], c["key"]))
    return classes


def _unclassed(records: Sequence[Mapping[str, Any]]) -> int:
    return sum(1 for r in records if r["status"] in FAILING and not r.get("classes"))


def class_rows(classes: Sequence[Mapping[str, Any]]) -> list[tuple[str, ...]]:
    """Header and one row per class: count, failed, expected, class key, example."""
    rows: list[tuple[str, ...]] = [("records", "failed", "as-pi", "expected", "class", "example")]
    rows += [
        (str(c["count"]), str(c["failed"]), str(c["failedAsPi"]), str(c["expectedFailures"]),
         c["key"], c["example"])
        for c in classes
    ]  # fmt: skip
    return rows


# --- renderers ----------------------------------------------------------------------------


def status_rows(records: Iterable[Mapping[str, Any]]) -> list[tuple[str, ...]]:
    """Header, one row per (boundary, op, kind), and a total row of status counts."""
    counts: dict[tuple[str, str, str], Counter[str]] = {}
    for entry in records:
        key = (str(entry.get("boundary")), str(entry.get("op")), _KIND_LABEL[entry["kind"]])
        counts.setdefault(key, Counter())[entry["status"]] += 1
    rows: list[tuple[str, ...]] = [("boundary", "op", "kind", *STATUSES)]
    total: Counter[str] = Counter()
    for key, counter in sorted(counts.items()):
        rows.append((*key, *(str(counter[s]) for s in STATUSES)))
        total.update(counter)
    rows.append(("total", "", "", *(str(total[s]) for s in STATUSES)))
    return rows


def _aligned(rows: Sequence[tuple[str, ...]], *, indent: str = "") -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        indent + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
        for row in rows
    ]
    lines.insert(1, indent + "  ".join("-" * w for w in widths))
    return lines


def status_table(records: Iterable[Mapping[str, Any]]) -> list[str]:
    return _aligned(status_rows(records))


def terminal_lines(records: Sequence[Mapping[str, Any]], impl: str) -> list[str]:
    """The terminal summary: statuses per op, the classes, and how to rerun failures."""
    records = _sorted(records)
    lines = status_table(records)
    classes = divergence_classes(records)
    if classes:
        lines += ["", f"{len(classes)} divergence classes (op, path, kind), largest first:"]
        lines += _aligned(class_rows(classes[:TERMINAL_CLASSES]), indent="  ")
        if len(classes) > TERMINAL_CLASSES:
            more = len(classes) - TERMINAL_CLASSES
            lines.append(f"  … and {more} more classes (every one in --json and --md)")
    if unclassed := _unclassed(records):
        lines.append(f"{unclassed} failing records belong to no class (errors and the like)")
    if as_pi := [r for r in records if r["status"] == "failed-as-pi"]:
        lines += ["", pi_line(len(as_pi))]
        lines += [f"  [failed-as-pi] {r['id']}: {_first_words(str(r['piFails']))}" for r in as_pi]
    failing = [r for r in records if r["status"] in FAILING]
    if failing:
        lines += ["", f"{len(failing)} failing; rerun one with:"]
        lines += [f"  [{r['status']}] {_rerun(impl, r)}" for r in failing[:20]]
    return lines


def _first_words(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: text.rfind(" ", 0, limit)] + " …"


def pi_line(count: int) -> str:
    """The summary line of the records the pinned Pi fails too."""
    return (
        f"{count} failed as Pi itself does: the pinned Pi breaks these invariants too, so "
        "they do not fail the run (`--level invariant` gates on them)"
    )


def _sorted(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return sorted(records, key=lambda r: (r["kind"], r["id"]))


def results_document(
    header: Mapping[str, Any], records: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    """The `--json` file: the header, the divergence classes and the records, sorted."""
    ordered = _sorted(records)
    return {"header": dict(header), "classes": divergence_classes(ordered), "records": ordered}


def _md_table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    cells = [tuple(c.replace("|", "\\|") for c in row) for row in rows]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * len(cells[0])]
    return lines + ["| " + " | ".join(row) + " |" for row in cells[1:]]


def markdown(header: Mapping[str, Any], records: Iterable[Mapping[str, Any]]) -> str:
    """The `--md` file: statuses per op, every divergence class, then each failing record."""
    lines = [
        f"# ctxspec: {header['implementation']}",
        "",
        f"data {header['dataVersion']}, protocol {header['protocol']}, pinned to pi "
        f"{header['piVersion']}, corpus `{header['corpusSha256'][:16]}`",
        "",
    ]
    if "examples" in header:
        lines += [policy_line(header["examples"]), ""]
    if confinement := header.get("confinement"):
        left = "; left behind: " + ", ".join(confinement["left"]) if confinement["left"] else ""
        lines += [f"confinement: {confinement['means']}{left}", ""]
    if "startupFailed" in header:
        lines += ["## start-up failed: no case was run", "", "```", header["startupFailed"], "```"]
        return "\n".join(lines) + "\n"
    ordered = _sorted(records)
    lines += _md_table(status_rows(ordered))
    classes = divergence_classes(ordered)
    if classes:
        lines += ["", f"## divergence classes ({len(classes)}, largest first)", ""]
        rows = [(r[0], r[1], r[2], f"`{r[3]}`", f"`{r[4]}`") for r in class_rows(classes)[1:]]
        lines += _md_table([class_rows([])[0], *rows])
    if as_pi := [r for r in ordered if r["status"] == "failed-as-pi"]:
        lines += ["", f"## failed as Pi ({len(as_pi)})", "", pi_line(len(as_pi)), ""]
        lines += [f"- `{r['id']}`: {r['piFails']}" for r in as_pi]
    for entry in ordered:
        if entry["status"] not in FAILING:
            continue
        lines += ["", f"## {entry['status']}: `{entry['id']}`", ""]
        if entry.get("classes"):
            lines += ["classes: " + ", ".join(f"`{key}`" for key in entry["classes"]), ""]
        lines += ["```", str(entry.get("message", "")), "```"]
    return "\n".join(lines) + "\n"
