"""The one way a black-box harness runs an agent's CLI: its outputs, its deadline."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ctxspec.conformance.harnesses.kit.cli import DeadlinePassed, deadline, run_cli, stderr_tail


def test_a_run_gives_its_status_and_outputs(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.write(sys.stdin.read()); sys.stderr.write('e'); sys.exit(3)"
    done = run_cli([sys.executable, "-c", code], cwd=tmp_path, env={}, limit=30, stdin=b"in")
    assert (done.returncode, done.stdout, done.stderr) == (3, b"in", b"e")


def test_a_run_past_its_deadline_is_killed_with_what_it_wrote(tmp_path: Path) -> None:
    code = "import sys, time; sys.stderr.write('started'); sys.stderr.flush(); time.sleep(60)"
    with pytest.raises(DeadlinePassed, match=r"ran past its 0\.5 s deadline") as passed:
        run_cli([sys.executable, "-c", code], cwd=tmp_path, env={}, limit=0.5)
    assert passed.value.stderr == b"started"


def test_the_deadline_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXSPEC_X_TIMEOUT", "7")
    assert deadline("CTXSPEC_X_TIMEOUT", 40.0) == 7.0
    monkeypatch.setenv("CTXSPEC_X_TIMEOUT", "soon")
    assert deadline("CTXSPEC_X_TIMEOUT", 40.0) == 40.0


def test_the_tail_keeps_the_last_lines() -> None:
    assert stderr_tail(b"".join(b"%d\n" % i for i in range(20))) == "\n".join(
        str(i) for i in range(8, 20)
    )
    assert stderr_tail(b"") == "(nothing on stderr)"
