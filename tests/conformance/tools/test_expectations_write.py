"""`ctxspec expectations write`: entries from a run, reasons from the catalogue or kept."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxspec.conformance.tools.changelog import (
    Outcome,
    _stable,
    bisect_changes,
    parse_range,
    render,
)
from ctxspec.conformance.tools.expectations_write import (
    UNEXPLAINED,
    Change,
    load_changes,
    match_change,
    write_expectations,
)


def record(case_id: str, status: str, *diff: str, op: str = "truncate.line") -> dict[str, Any]:
    message = "\n".join(["case ...", *(f"  {line}" for line in diff), "  rerun: ctxspec ..."])
    return {"id": case_id, "kind": "case", "op": op, "status": status, "message": message}


CHANGES = [
    Change("named", "1.3.0", "named by id", cases=("a-*",)),
    Change("by-diff", "0.86.1", "max tokens gone", diff=r"maxTokens: expected \d+, actual null"),
    Change("undone", "0.86.1", "only for a while", diff="gone", until="1.0.0"),
]


class TestMatching:
    def test_by_id_pattern(self) -> None:
        assert match_change(record("a-1", "failed"), CHANGES, "1.6.0") is CHANGES[0]

    def test_by_diff_line(self) -> None:
        failing = record("x", "failed", "$.requests[0].maxTokens: expected 800, actual null")
        assert match_change(failing, CHANGES, "1.6.0") is CHANGES[1]

    def test_a_change_applies_only_in_its_releases(self) -> None:
        assert match_change(record("a-1", "failed"), CHANGES, "1.0.3") is None
        gone = record("y", "failed", "$.x: gone")
        assert match_change(gone, CHANGES, "0.99.1") is CHANGES[2]
        assert match_change(gone, CHANGES, "1.0.0") is None

    def test_the_shipped_catalogue_loads(self) -> None:
        changes = load_changes("pi")
        assert changes and all(change.reason and change.since for change in changes)
        assert len({change.name for change in changes}) == len(changes)


class TestWrite:
    def results(self, *records: dict[str, Any]) -> dict[str, Any]:
        return {"header": {}, "records": list(records)}

    def test_reasons_kept_new_ones_explained_passes_dropped(self, tmp_path: Path) -> None:
        target = tmp_path / "x.yaml"
        target.write_text(
            "implementation: pi@1.6.0\ncases:\n  kept: a reason a person wrote\n"
            "  now-passes: old\n  b: 'UNEXPLAINED (failed): was a draft'\n"
        )
        results = self.results(
            record("kept", "failed", "$.x: anything"),
            record("a-1", "failed"),
            record("b", "failed", "$.requests[0].maxTokens: expected 800, actual null"),
            record("c", "failed", '$.text: expected "\\u200b", actual ""'),
            record("now-passes", "passed"),
        )
        counts = write_expectations(target, "pi@1.6.0", results, CHANGES, version="1.6.0")
        data = yaml.safe_load(target.read_text())
        assert data["cases"]["kept"] == "a reason a person wrote"
        assert data["cases"]["a-1"] == "1.3.0: named by id"
        assert data["cases"]["b"] == "0.86.1: max tokens gone"  # a draft is not kept
        assert data["cases"]["c"].startswith(f"{UNEXPLAINED} (failed): $.text: expected")
        assert "now-passes" not in data["cases"]
        assert counts == {"kept": 1, "explained": 2, "unexplained": 1, "dropped": 1}

    def test_inherited_failures_keep_the_pinned_reason(self, tmp_path: Path) -> None:
        target = tmp_path / "x.yaml"
        baseline = {"old-quirk": ("as in 0.85.0", "the window is cut per append")}
        results = self.results(record("old-quirk", "failed", "$.x: 1"))
        write_expectations(target, "pi@1.6.0", results, CHANGES, baseline=baseline)
        data = yaml.safe_load(target.read_text())
        assert data["cases"]["old-quirk"] == "as in 0.85.0: the window is cut per append"

    def test_invisible_characters_survive_the_round_trip(self, tmp_path: Path) -> None:
        target = tmp_path / "x.yaml"
        odd = Change("odd", "1.0.0", "keeps \u200b and a lone \ud83d  twice", cases=("z",))
        write_expectations(target, "p", self.results(record("z", "failed")), [odd])
        assert yaml.safe_load(target.read_text())["cases"]["z"] == "1.0.0: " + odd.reason


class TestChangelog:
    VERSIONS = ("1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0")

    def test_each_case_gets_its_first_changed_release(self) -> None:
        # case "x" changes at 1.2.0, "y" at 1.4.0, "z" never
        def truth(version: str, case_id: str) -> Outcome:
            first = {"x": "1.2.0", "y": "1.4.0", "z": "9.9.9"}[case_id]
            changed = tuple(map(int, version.split("."))) >= tuple(map(int, first.split(".")))
            return Outcome("failed", ("$.a: 1",)) if changed else Outcome("passed")

        asked: list[tuple[str, int]] = []

        def run(impl: str, ids: list[str] | None) -> dict[str, Outcome]:
            version = impl.split("@")[1]
            chosen = ids if ids is not None else ["x", "y", "z"]
            asked.append((version, len(chosen)))
            return {case_id: truth(version, case_id) for case_id in chosen}

        changes, runs = bisect_changes("pi", self.VERSIONS, run)  # type: ignore[arg-type]
        assert [(c.case_id, c.first_version) for c in changes] == [("x", "1.2.0"), ("y", "1.4.0")]
        assert asked[:2] == [("1.0.0", 3), ("1.4.0", 3)]  # only the ends run everything
        assert all(count <= 2 for _, count in asked[2:])
        page = render("pi", self.VERSIONS, changes, runs, {"x": "truncate.line", "y": "tool.grep"})
        assert "## 1.2.0" in page and "`x` (truncate.line): passed → failed" in page

    def test_only_the_runs_own_temp_dirs_are_masked(self) -> None:
        """Two runs' temp dirs read alike; a case's path under /tmp keeps its name."""
        temp = tempfile.gettempdir()
        lines = [
            f"$.text: '{temp}/ctxspec-run-ab_12xy/impl-k3j_9q0p/pi-bash-1.log'",
            f"$.message: 'Failed to read {temp}/ws/AGENTS.md'",
        ]
        assert _stable(lines) == (
            "$.text: '<tmp>/pi-bash-1.log'",
            f"$.message: 'Failed to read {temp}/ws/AGENTS.md'",
        )

    @pytest.mark.parametrize("text", ["pi@1.6.0..pi@0.85.0", "pi@1.0.0", "pi@1.0.0..x@2.0.0"])
    def test_bad_ranges_are_named(self, text: str) -> None:
        with pytest.raises(ValueError, match="range"):
            parse_range(text)


def test_a_parametrized_property_is_listed_by_the_ops_it_fails(tmp_path: Path) -> None:
    """`test_x[truncate.head]` failing and `test_x[truncate.tail]` passing list the head's
    parameter alone (a bare `test_x` would make the tail an unexpected pass); the reason
    the file gave the bare name is kept for it. Failing on every op: the bare name."""
    target = tmp_path / "x.yaml"
    target.write_text("implementation: x\ncases: {}\nproperties:\n  test_x: counts lines\n")
    records = [
        {"id": f"test_x[{op}]", "kind": "property", "status": status, "message": "m"}
        for op, status in (
            ("truncate.head", "expected-failure"),
            ("truncate.tail", "unexpected-pass"),
        )
    ]
    counts = write_expectations(target, "x", {"records": records})
    written = yaml.safe_load(target.read_text())["properties"]
    assert written == {"test_x[truncate.head]": "counts lines"}
    assert counts["kept"] == 1
    both = [dict(r, status="failed") for r in records]
    counts = write_expectations(target, "x", {"records": both})
    assert yaml.safe_load(target.read_text())["properties"] == {"test_x": "counts lines"}
    assert counts["kept"] == 1  # the op's reason, under the bare name now every op fails
