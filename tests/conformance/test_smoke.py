"""`ctxspec smoke`: one request per listed op, framing and shape, the table and the status."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxspec.conformance.engines.reference import HELLO as REFERENCE_HELLO
from ctxspec.conformance.protocol import OPS, STDOUT_RULE, validate_args
from ctxspec.conformance.runner.smoke import (
    EXIT_STATUS,
    STATUSES,
    STRAY_RULE,
    Row,
    Smoke,
    requests_by_op,
    smoke,
    summary,
    table,
)

Fake = Callable[..., list[str]]
ROOT = Path(__file__).resolve().parents[2]


def ctxspec(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    """`ctxspec ARGS` as a user runs it, in a scratch directory: status, stdout, stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "ctxspec", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def row(op: str, status: str) -> Row:
    return Row(op=op, id=2, status=status, ms=1.0, note="")


class TestRequests:
    """Every op of the protocol but `hello` has one valid request to send."""

    def test_one_valid_request_per_op(self, tmp_path: Path) -> None:
        """Cases for the ordinary ops, bench's own requests for the bench ops."""
        requests = requests_by_op(tmp_path)
        assert set(requests) == set(OPS) - {"hello"}
        for op, (case, args) in requests.items():
            assert validate_args(op, args) is None, (op, case)
            assert (case is None) == op.startswith("bench."), op

    def test_a_case_expecting_a_result_is_preferred(self, tmp_path: Path) -> None:
        """Where an op has cases expecting a result, one of them is sent."""
        from ctxspec.conformance.corpus.cases import load_cases  # noqa: PLC0415

        by_id = {case.id: case for case in load_cases()}
        for op, (case, _) in requests_by_op(tmp_path).items():
            if case is not None and any(c.op == op and not c.expects_error for c in by_id.values()):
                assert not by_id[case].expects_error, (op, case)


class TestStatus:
    """The exit status reads the rows: a typed error is an answer in shape."""

    def test_statuses(self) -> None:
        """0 all in shape, 1 a broken answer, 6 no start; each status documented."""
        hello = {"protocol": 1, "implementation": {}, "ops": []}
        fine = (row("hello", "ok"), row("a", "ok"), row("b", "internal"), row("c", "not run"))
        assert Smoke(implementation="x", command="x", hello=hello, rows=fine).status == 0
        broken = (*fine, row("d", "timeout"))
        assert Smoke(implementation="x", command="x", hello=hello, rows=broken).status == 1
        failed = Smoke(implementation="x", command="x", hello=None, startup_failed="no")
        assert failed.status == 6
        assert {0, 1, 2, 6} == set(EXIT_STATUS)
        assert {"ok", "timeout", "protocol violation", "crashed", "internal"} <= set(STATUSES)

    def test_table_and_summary(self) -> None:
        """A header, a line per row, a summary naming each op out of shape."""
        rows = (row("hello", "ok"), row("truncate.head", "ok"), row("truncate.tail", "timeout"))
        result = Smoke(implementation="x", command="x", hello={}, rows=rows, seconds=1.25)
        lines = list(table(result))
        assert lines[0].split() == ["op", "id", "status", "ms", "note"]
        assert len(lines) == 5
        assert summary(result) == (
            "1 of 2 listed ops did not answer in shape in 1.2 s: truncate.tail (timeout)"
        )


@pytest.mark.slow
class TestSmokeRuns:
    """Whole smoke runs: the reference over the wire, and fakes that break the protocol."""

    def test_reference_is_green(self, tmp_path: Path) -> None:
        """Every op the reference lists answers in shape; the JSON holds the table."""
        code, out, err = ctxspec(tmp_path, "smoke", "--impl", "reference", "--json", "s.json")
        assert code == 0, out + err
        assert out.splitlines()[1].split() == ["op", "id", "status", "ms", "note"]
        listed = len(REFERENCE_HELLO["ops"])
        assert out.rstrip().splitlines()[-1].startswith(f"all {listed} listed ops answered in")
        document = json.loads((tmp_path / "s.json").read_text())
        assert document["status"] == 0 and document["startupFailed"] is None
        assert [r["op"] for r in document["rows"]][:2] == ["hello", "bench.open"]
        assert all(r["status"] == "ok" for r in document["rows"])
        assert str(tmp_path) not in (tmp_path / "s.json").read_text()  # no machine path

    def test_first_port_is_green(self, tmp_path: Path, fake: Fake) -> None:
        """A port of two ops: the hello and two rows, with the case each request came from."""
        command = shlex.join(fake("only-truncate"))
        code, out, err = ctxspec(tmp_path, "smoke", "--impl", command)
        assert code == 0, out + err
        rows = [" ".join(line.split()[:3]) for line in out.splitlines()[2:5]]
        assert rows == ["hello 1 ok", "truncate.head 2 ok", "truncate.tail 3 ok"]
        assert "case " in out

    @pytest.mark.parametrize(
        ("mode", "status", "note"),
        [
            ("wrong-type", "protocol violation", "result must be object at its top level"),
            ("duplicate", "protocol violation", f"a second line after the answer ({STRAY_RULE})"),
            ("garbage", "protocol violation", "not a JSON line"),
            ("wrong-id", "protocol violation", "answers no pending request"),
            ("crash", "crashed", "exited with status 3"),
        ],
    )
    def test_broken_answers_exit_1(self, fake: Fake, mode: str, status: str, note: str) -> None:
        """Each op broken the same way: its status and note in the table, exit status 1."""
        result = smoke(shlex.join(fake("only-truncate", mode)), timeout=5)
        assert result.status == 1
        for op_row in result.rows[1:]:
            assert (op_row.status, op_row.op) == (status, op_row.op)
            assert note in op_row.note and "\n" not in op_row.note

    def test_hang_is_a_timeout(self, fake: Fake) -> None:
        """A hang costs one --timeout per op, and the table says timeout."""
        result = smoke(shlex.join(fake("only-truncate", "hang")), timeout=0.5)
        assert [r.status for r in result.rows] == ["ok", "timeout", "timeout"]
        assert result.status == 1

    @pytest.mark.parametrize(
        ("mode", "said"),
        [
            ("typo-op", '"truncate.tial" (did you mean "truncate.tail"?)'),
            ("stdout-log", f'"[debug] fake: listening on stdin"; {STDOUT_RULE}'),
            ("crash-at-start", "cannot start on purpose"),
        ],
    )
    def test_startup_failure_exits_6(
        self, tmp_path: Path, fake: Fake, mode: str, said: str
    ) -> None:
        """A broken start: no table, the cause on stderr, exit 6, the JSON says why."""
        command = shlex.join(fake(mode))
        code, out, err = ctxspec(tmp_path, "smoke", "--impl", command, "--json", "s.json")
        assert code == 6, out + err
        assert out == ""
        assert said in err and f"command: {command}" in err
        document = json.loads((tmp_path / "s.json").read_text())
        assert document["status"] == 6 and said in document["startupFailed"]
