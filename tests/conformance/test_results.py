"""Results: judging field by field (no masking), divergence classes, and every report."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from conform import conform
from paths import FAKE_IMPL

from ctxspec.conformance.corpus.cases import Case, load_cases
from ctxspec.conformance.engines.reference import HELLO, handle
from ctxspec.conformance.errors import ProtocolViolation
from ctxspec.conformance.judging.check import CaseMismatch, check_case
from ctxspec.conformance.judging.compare import differences
from ctxspec.conformance.protocol import result_kinds, validate_shape
from ctxspec.conformance.runner.results import (
    Findings,
    class_key,
    class_path,
    divergence_classes,
    markdown,
    results_document,
)
from ctxspec.conformance.tools.matrix import build_matrix, render_html
from ctxspec.conformance.transport.base import Implementation, Reply

pytestmark = pytest.mark.slow  # the reports of whole conform runs

Fake = Callable[..., list[str]]
MISSING = "truncate.tail $.firstLineExceedsLimit missing"
TRUNCATED_BY = "truncate.tail $.truncatedBy differs"
TAIL = [c for c in load_cases() if c.op == "truncate.tail" and c.expect_error is None]
# some cases Pi answers truncatedBy "lines" (the `wrong` fake's answer), some not
LINES = [c.id for c in TAIL if c.expect_result["truncatedBy"] == "lines"][:2]
OTHER = [c.id for c in TAIL if c.expect_result["truncatedBy"] != "lines"][:3]


class Dropping(Implementation):
    """The reference in process, its answers passed through `change`."""

    name = "dropping"

    def __init__(self, change: Callable[[Any], Any]) -> None:
        self.hello = HELLO
        self.change = change

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        reply = handle(op, args)
        return reply if reply.error is not None else Reply(result=self.change(reply.result))


def _without_flag(result: Any) -> Any:
    return {k: v for k, v in result.items() if k != "firstLineExceedsLimit"}


def _case(case_id: str) -> Case:
    return next(c for c in load_cases() if c.id == case_id)


class TestClassKeys:
    """The key of a divergence class: op, path with indices elided, kind."""

    def test_indices_are_elided(self) -> None:
        """Every list index becomes [*], however deep; object keys stay."""
        assert class_path("$.skills[12].baseDir") == "$.skills[*].baseDir"
        assert class_path("$.a[0].b[3][41].c") == "$.a[*].b[*][*].c"
        assert class_path("$.entries.length") == "$.entries.length"

    def test_key_names_op_path_and_kind(self) -> None:
        """The key reads `op path kind`, and an unknown kind is refused."""
        assert class_key("skills.load", "$.skills[0].baseDir", "missing") == (
            "skills.load $.skills[*].baseDir missing"
        )
        with pytest.raises(ValueError, match="unknown difference kind"):
            class_key("skills.load", "$", "wrong")

    def test_findings_of_one_answer_name_each_class_once(self) -> None:
        """The same field missing in three list items is three differences, one class."""
        expected = {"skills": [{"name": n, "baseDir": "/s"} for n in "abc"], "n": 1}
        actual = {"skills": [{"name": n} for n in "abd"], "n": 1, "x": True}
        findings = Findings.of("skills.load", differences(expected, actual))
        assert findings.total == 5
        assert findings.classes == (
            "skills.load $.skills[*].baseDir missing",
            "skills.load $.skills[*].name differs",
            "skills.load $.x extra",
        )
        kinds = [(f.path, f.kind, f.expected, f.actual) for f in findings.shown]
        assert ("$.skills[0].baseDir", "missing", '"/s"', None) in kinds
        assert ("$.x", "extra", None, "true") in kinds

    def test_classes_group_records_largest_first(self) -> None:
        """Classes count failed and expected-failure records; a case is the example."""
        records = [
            {"id": "p", "kind": "property", "status": "failed", "classes": ["o $.a missing"]},
            {"id": "c2", "kind": "case", "status": "failed", "classes": ["o $.a missing"]},
            {"id": "c1", "kind": "case", "status": "expected-failure",
             "classes": ["o $.a missing", "o $.b[*] differs"]},
            {"id": "c0", "kind": "case", "status": "error", "classes": ["o $.c extra"]},
        ]  # fmt: skip
        classes = divergence_classes(records)
        assert [(c["key"], c["count"]) for c in classes] == [
            ("o $.a missing", 3),
            ("o $.b[*] differs", 1),
        ]
        first = classes[0]
        assert (first["op"], first["path"], first["kind"]) == ("o", "$.a", "missing")
        assert (first["failed"], first["expectedFailures"]) == (2, 1)
        assert first["example"] == "c1" and first["cases"] == ["c1", "c2", "p"]


class TestTopLevelType:
    """Only a result of a top-level type its op does not allow breaks the protocol."""

    def test_kinds_come_from_the_schemas(self) -> None:
        assert result_kinds("truncate.tail") == {"object"}
        assert result_kinds("compaction.prepare") == {"object", "null"}
        assert result_kinds("compaction.failure") == {"string", "null"}
        assert result_kinds("tokens.estimate") == {"number"}
        assert result_kinds("messages.convert") == {"array"}

    def test_wrong_top_level_type_is_a_protocol_violation(self) -> None:
        validate_shape("compaction.prepare", None)
        validate_shape("tokens.estimate", 2.5)  # a wrong number is a difference, not this
        for op, result in (("truncate.tail", []), ("truncate.tail", None), ("format.size", 3)):
            with pytest.raises(ProtocolViolation, match=f"{op} result must be"):
                validate_shape(op, result)

    def test_a_missing_field_is_a_difference_not_an_error(self) -> None:
        """The case fails with the missing field and every other difference."""
        case = _case(OTHER[0])

        def change(result: Any) -> Any:
            return dict(_without_flag(result), truncatedBy="lines", extra=1)

        with pytest.raises(CaseMismatch) as caught:
            check_case(Dropping(change), case)
        assert set(caught.value.findings.classes) == {
            MISSING,
            TRUNCATED_BY,
            "truncate.tail $.extra extra",
        }
        assert "$.firstLineExceedsLimit: missing (expected" in str(caught.value)
        assert "$.truncatedBy: expected" in str(caught.value)

    def test_an_expected_error_answered_with_a_malformed_result_fails(self) -> None:
        """A case expecting an error gets a result lacking fields: refused, a failure."""
        case = next(c for c in load_cases() if c.expect_error and c.op.startswith("truncate."))
        wrong = Dropping(lambda result: result)
        wrong.call = lambda op, args: Reply(result={"content": "x"})  # type: ignore[method-assign]
        with pytest.raises(CaseMismatch) as caught:
            check_case(wrong, case)
        assert caught.value.findings.classes == (f"{case.op} $ refused",)
        (finding,) = caught.value.findings.shown
        assert finding.expected == f"error {case.expect_error}"

    def test_a_wrong_top_level_type_is_an_error(self) -> None:
        with pytest.raises(ProtocolViolation, match="must be object"):
            check_case(Dropping(lambda result: [result]), _case(OTHER[0]))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any], Path]:
    """One run of a fake that drops firstLineExceedsLimit and answers truncatedBy "lines"."""
    tmp_path = tmp_path_factory.mktemp("results")
    fake = [sys.executable, str(FAKE_IMPL)]
    impl = shlex.join([*fake, "no-first-line-flag", "wrong"])
    select = [arg for case_id in LINES + OTHER for arg in ("--case", case_id)]
    args = ["--impl", impl, "--expectations", "none", "--md", str(tmp_path / "r.md")]
    code, output, data = conform(tmp_path, *args, *select)
    assert code == 1, output
    return output, data, tmp_path


class TestReports:
    """A port that never sends firstLineExceedsLimit: failures, one class in every report."""

    def test_failures_not_errors_each_with_every_difference(
        self, run: tuple[str, dict[str, Any], Path]
    ) -> None:
        _, data, _ = run
        records = {r["id"]: r for r in data["records"]}
        assert {r["status"] for r in records.values()} == {"failed"}
        for case_id in LINES:
            assert records[case_id]["classes"] == [MISSING]
            (only,) = records[case_id]["differences"]
            assert (only["path"], only["kind"], only["actual"]) == (
                "$.firstLineExceedsLimit", "missing", None,
            )  # fmt: skip
        for case_id in OTHER:
            assert records[case_id]["classes"] == [MISSING, TRUNCATED_BY]
            paths = {d["path"]: d for d in records[case_id]["differences"]}
            assert paths["$.truncatedBy"]["actual"] == '"lines"'
            assert "$.firstLineExceedsLimit: missing" in records[case_id]["message"]
            assert "$.truncatedBy: expected" in records[case_id]["message"]

    def test_json_has_one_class_for_the_missing_field(
        self, run: tuple[str, dict[str, Any], Path]
    ) -> None:
        _, data, _ = run
        missing = [c for c in data["classes"] if c["key"] == MISSING]
        assert len(missing) == 1
        assert missing[0]["count"] == len(LINES + OTHER)
        assert missing[0]["cases"] == sorted(LINES + OTHER)
        assert missing[0]["example"] in LINES + OTHER
        assert [c["key"] for c in data["classes"]] == [MISSING, TRUNCATED_BY]  # by count

    def test_terminal_and_markdown_have_one_class_line(
        self, run: tuple[str, dict[str, Any], Path]
    ) -> None:
        output, _, tmp_path = run
        lines = [line for line in output.splitlines() if MISSING in line]
        assert len(lines) == 1 and lines[0].split()[:2] == [str(len(LINES + OTHER))] * 2
        assert "2 divergence classes" in output
        table = [
            line for line in (tmp_path / "r.md").read_text().splitlines()
            if line.startswith("| ") and MISSING in line
        ]  # fmt: skip
        assert len(table) == 1 and table[0].startswith(f"| {len(LINES + OTHER)} |")

    def test_matrix_has_one_class_line(self, run: tuple[str, dict[str, Any], Path]) -> None:
        _, data, _ = run
        matrix = build_matrix([data])
        (impl,) = matrix["implementations"]
        assert [c["key"] for c in impl["classes"]].count(MISSING) == 1
        table = render_html(matrix).split("<table class='classes'>")[1].split("</table>")[0]
        rows = [row for row in table.split("<tr>") if "$.firstLineExceedsLimit" in row]
        assert len(rows) == 1 and "missing" in rows[0] and f"#case-{impl['slug']}-" in rows[0]

    def test_the_renderers_agree_on_the_same_records(
        self, run: tuple[str, dict[str, Any], Path]
    ) -> None:
        """The JSON document and the Markdown are built from the records alone."""
        _, data, _ = run
        again = results_document(data["header"], data["records"])
        assert again["classes"] == data["classes"]
        assert MISSING in markdown(data["header"], data["records"])


def test_bad_shape_is_a_failure_and_wrong_type_an_error(tmp_path: Path, fake: Fake) -> None:
    """A result lacking a field fails; a result of the wrong top-level type is an error."""
    select = ["--case", OTHER[0], "--expectations", "none"]
    code, output, data = conform(tmp_path, "--impl", shlex.join(fake("bad-shape")), *select)
    (record,) = data["records"]
    assert (code, record["status"]) == (1, "failed"), output
    assert record["classes"] == ["truncate.tail $.totalBytes missing"]
    code, output, data = conform(tmp_path, "--impl", shlex.join(fake("wrong-type")), *select)
    (record,) = data["records"]
    assert (code, record["status"]) == (1, "error"), output
    assert "must be object at its top level" in record["message"] and "classes" not in record


def test_a_differential_property_fails_with_its_differences(tmp_path: Path, fake: Fake) -> None:
    """A property meeting a missing field fails (never an error), its record classed."""
    impl = shlex.join(fake("no-first-line-flag"))
    args = ["--impl", impl, "--expectations", "none", "--profile", "ci"]
    code, output, data = conform(tmp_path, *args, "-k", "test_truncate_matches_reference")
    records = {r["id"]: r for r in data["records"]}
    assert code == 1 and len(records) == 2, output
    for op in ("truncate.head", "truncate.tail"):
        entry = records[f"test_truncate_matches_reference[{op}]"]
        assert entry["status"] == "failed"
        assert entry["classes"] == [f"{op} $.firstLineExceedsLimit missing"]
        assert entry["differences"][0]["kind"] == "missing"
