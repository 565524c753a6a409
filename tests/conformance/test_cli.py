"""`ctxspec conform` end to end, against the reference and the scripted fakes."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conform import conform, statuses

from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.runner.expectations import default_expectations_file

pytestmark = pytest.mark.slow  # each test runs ctxspec conform as a process

Fake = Callable[..., list[str]]
# a small, fixed selection keeps these fast: the first cases of the tail op
TAIL_CASES = [c.id for c in load_cases() if c.op == "truncate.tail" and c.expect_error is None][:3]


def select(*ids: str) -> list[str]:
    return [arg for case_id in ids for arg in ("--case", case_id)]


def command(argv: list[str]) -> str:
    return shlex.join(argv)


class TestConform:
    """Exit status, statuses and messages of whole runs."""

    def test_reference_passes_every_case(self, tmp_path: Path) -> None:
        """The embedded reference passes the whole corpus and prints the summary table; the
        agent cases are not applicable to it (Pi's profile says why)."""
        code, output, data = conform(tmp_path, "--profile", "ci", "-k", "test_case")
        assert code == 0, output
        assert "ctxspec summary: reference" in output
        found = set(statuses(data).values())
        assert found <= {"passed", "failed-as-pi", "not-applicable"}
        not_applicable = {r["op"] for r in data["records"] if r["status"] == "not-applicable"}
        assert not_applicable and all(op.startswith("agent.") for op in not_applicable)
        assert len(data["records"]) == sum(c.status == "active" for c in load_cases())

    def test_the_directory_it_runs_in_loads_no_conftest(self, tmp_path: Path) -> None:
        """A project's own conftest.py (pytest looks in ./ and ./test*/) neither breaks the
        run nor changes the verdict."""
        for folder in (tmp_path, tmp_path / "tests"):
            folder.mkdir(exist_ok=True)
            (folder / "conftest.py").write_text("raise RuntimeError('a project conftest')\n")
        status, output, data = conform(tmp_path, "--impl", "reference", *select(*TAIL_CASES))
        assert status == 0, output
        assert set(statuses(data).values()) == {"passed"}

    def test_wire_reference_gives_the_same_results(self, tmp_path: Path) -> None:
        """The reference over the wire reports exactly what the in-process reference does."""
        over_wire = command([sys.executable, "-m", "ctxspec.conformance.engines.reference"])
        listed = default_expectations_file("reference")
        assert listed is not None
        args = ["--impl", over_wire, "--expectations", listed, "-k", "test_case"]
        code, output, wire = conform(tmp_path, *args)
        assert code == 0, output
        _, _, local = conform(tmp_path, "-k", "test_case")
        assert statuses(wire) == statuses(local)
        assert wire["header"]["hello"]["implementation"]["name"] == "ctxspec-reference"

    def test_wrong_implementation_fails_with_readable_diffs(
        self, tmp_path: Path, fake: Fake
    ) -> None:
        """A fake answering truncatedBy "lines" everywhere fails, showing the field and a rerun."""
        code, output, data = conform(tmp_path, "--impl", command(fake("wrong")), "-k", "test_case")
        assert code == 1
        assert "failed" in statuses(data).values()
        assert '$.truncatedBy: expected "bytes", actual "lines"' in output
        assert "rerun: ctxspec conform --impl" in output

    def test_string_diff_shows_the_bytes(self, tmp_path: Path, fake: Fake) -> None:
        """A port that cuts mid-character sees both strings escaped, with their UTF-8 bytes."""
        case = "tail-cut-inside-4-byte-sequence-after-byte-2"
        code, output, _ = conform(tmp_path, "--impl", command(fake("lossy-cut")), *select(case))
        assert code == 1
        assert 'actual   "⟦\\ufffd\\ufffd⟧🙂"' in output
        assert "actual 3 cp, 4 cu, 10 B" in output
        assert "UTF-8 from byte 0: ef bf bd ef bf bd f0 9f 99 82" in output

    @pytest.mark.parametrize("mode", ["hang", "crash", "garbage", "wrong-id", "wrong-type"])
    def test_broken_implementation_is_an_error_per_case(
        self, tmp_path: Path, fake: Fake, mode: str
    ) -> None:
        """Each selected case is reported as an error, and the run goes on to the end."""
        args = ["--impl", command(fake(mode)), "--timeout", "1", *select(*TAIL_CASES)]
        code, output, data = conform(tmp_path, *args)
        assert code == 1, output
        assert statuses(data) == dict.fromkeys(TAIL_CASES, "error")

    def test_stderr_tail_reaches_the_report(self, tmp_path: Path, fake: Fake) -> None:
        """A crash shows what the implementation last wrote to stderr."""
        code, output, _ = conform(
            tmp_path, "--impl", command(fake("crash")), *select(TAIL_CASES[0])
        )
        assert code == 1
        assert "about to crash on purpose" in output

    def test_undeclared_ops_are_unsupported(self, tmp_path: Path, fake: Fake) -> None:
        """Ops missing from hello are reported unsupported, which does not fail the run."""
        args = ["--impl", command(fake("no-hello-ops")), *select(*TAIL_CASES)]
        code, output, data = conform(tmp_path, *args)
        assert code == 0, output
        assert set(statuses(data).values()) == {"unsupported"}

    def test_listed_case_that_passes_is_an_unexpected_pass(self, tmp_path: Path) -> None:
        """An expectations entry for a case the implementation passes fails the run."""
        listing = tmp_path / "expect.yaml"
        listing.write_text(f"cases:\n  {TAIL_CASES[0]}: thought to fail\n")
        args = ["--expectations", str(listing), *select(TAIL_CASES[0])]
        code, _, data = conform(tmp_path, *args)
        assert code == 1
        assert statuses(data) == {TAIL_CASES[0]: "unexpected-pass"}

    def test_listed_case_that_fails_is_an_expected_failure(
        self, tmp_path: Path, fake: Fake
    ) -> None:
        """A listed failure fails as expected and the run passes."""
        listing = tmp_path / "expect.yaml"
        listing.write_text("cases:\n" + "".join(f"  {i}: answers lines\n" for i in TAIL_CASES))
        args = [
            "--impl",
            command(fake("wrong")),
            "--expectations",
            str(listing),
            *select(*TAIL_CASES),
        ]
        code, output, data = conform(tmp_path, *args)
        changed = {i for i, s in statuses(data).items() if s == "expected-failure"}
        assert code == (0 if changed == set(TAIL_CASES) else 1), output

    def test_expectations_naming_unknown_cases_are_refused(self, tmp_path: Path) -> None:
        """A listed id the corpus does not have is an error naming it."""
        listing = tmp_path / "expect.yaml"
        listing.write_text("cases:\n  no-such-case: whatever\n")
        code, output, _ = conform(tmp_path, "--expectations", str(listing), *select(TAIL_CASES[0]))
        assert code != 0
        assert "no-such-case" in output

    def test_junit_and_markdown_reports(self, tmp_path: Path, fake: Fake) -> None:
        """JUnit XML and the Markdown summary are written, the latter with each failure."""
        args = [
            "--impl",
            command(fake("wrong")),
            "--junit",
            str(tmp_path / "j.xml"),
            "--md",
            str(tmp_path / "s.md"),
            *select(*TAIL_CASES),
        ]
        conform(tmp_path, *args)
        assert "<testsuite" in (tmp_path / "j.xml").read_text()
        markdown = (tmp_path / "s.md").read_text()
        assert "| multibyte_cuts | truncate.tail | cases |" in markdown
        assert "## failed:" in markdown
