"""Progress of the long commands (fuzz, matrix, changelog, sweep, installs) on stderr.

Under pytest stderr is not a terminal, so each command writes plain progress lines there
(`label: done/total note (elapsed...)`) and leaves its stdout as it was; `-q` silences
fuzz's. The terminal path (a rich bar or spinner) is checked on a stream that says it is
a TTY and on a forced rich Console.
"""

from __future__ import annotations

import io
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from paths import FAKE_IMPL
from rich.console import Console

from ctxspec.cli import main
from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.engines.reference import ReferenceImplementation
from ctxspec.conformance.harnesses import pi
from ctxspec.conformance.runner.progress import status
from ctxspec.conformance.runner.suite_run import Results
from ctxspec.conformance.tools import changelog, fuzz, sweep
from ctxspec.conformance.tools.matrix import run_matrix
from ctxspec.conformance.transport import cache, npm_lock, npm_registry, pyvenv
from ctxspec.conformance.transport.named import InstallError

TIMING = r"\(\d+s(, about \d+s left)?\)"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _not_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def test_fuzz_counts_each_ops_requests_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fuzz", "--impl", "reference", "--against", "reference", "--seed", "3"]
    args += ["--op", "format.size", "--op", "truncate.line", "--examples", "5"]
    assert main(args) == 0
    shown = capsys.readouterr()
    assert main([*args, "-q"]) == 0
    quiet = capsys.readouterr()
    for op in ("format.size", "truncate.line"):
        last = [line for line in shown.err.splitlines() if line.startswith(f"fuzz {op}: ")][-1]
        assert re.fullmatch(rf"fuzz {op}: (\d+)/\1 {TIMING}", last), last
    assert "\x1b[" not in shown.err
    assert shown.out == quiet.out and "format.size" in shown.out  # stdout: the same report
    assert quiet.err == ""


def test_fuzz_draws_a_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Tty()
    monkeypatch.setattr(sys, "stderr", terminal)
    reference = ReferenceImplementation()
    fuzz.fuzz_op("format.size", reference, reference, examples=4, seed=1, quiet=False)
    drawn = terminal.getvalue()
    assert "\x1b[" in drawn and "fuzz format.size" in drawn
    assert re.search(r"(\d+)/\1", drawn)


@pytest.mark.slow
def test_matrix_counts_the_implementations_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = next(c.id for c in load_cases() if c.op == "truncate.tail" and c.expect_error is None)
    wrong = shlex.join([sys.executable, str(FAKE_IMPL), "wrong"])
    results = run_matrix(["reference", wrong], tmp_path, timeout=10, extra=["--case", case])
    assert [r["exitStatus"] for r in results] == [0, 1]
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "matrix: 0/2 running reference (0s)"
    assert re.fullmatch(rf"matrix: 2/2 .*fake_impl\.py wrong: conform exited 1 {TIMING}", lines[-1])


def test_changelog_counts_its_conform_runs_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Five releases, one case that changes at 1.0.3: the two ends, then two bisection steps."""
    case = load_cases()[0].id
    versions = ["1.0.0", "1.0.1", "1.0.2", "1.0.3", "1.0.4"]
    asked: list[str] = []

    def run_cases(impl: str, ids: Sequence[str] | None, *, jobs: str) -> dict[str, Any]:
        asked.append(impl)
        version = impl.split("@")[1]
        changed = changelog._version_key(version) >= (1, 0, 3)
        return {case: changelog.Outcome("failed" if changed else "passed", ("x",))}

    monkeypatch.setattr(changelog, "published_versions", lambda *_: versions)
    monkeypatch.setattr(changelog, "run_cases", run_cases)
    assert changelog.main_changelog("pi@1.0.0..pi@1.0.4", None, "0") == 0
    out, err = capsys.readouterr()
    assert asked == ["pi@1.0.0", "pi@1.0.4", "pi@1.0.2", "pi@1.0.3"]
    assert out.startswith("#") and "changelog conform runs" not in out
    lines = [line for line in err.splitlines() if line.startswith("changelog conform runs: ")]
    assert lines[0] == "changelog conform runs: 0 running pi@1.0.0: all cases (0s)"
    assert re.fullmatch(
        r"changelog conform runs: 4 pi@1\.0\.3: 1 cases \(bisection\) done \(\d+s\)", lines[-1]
    )


def test_sweep_counts_the_seeds_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole command, with each seed's conform child faked (a real seed takes ~15 s)."""

    def run_suite(impl: str, **_: Any) -> Results:
        return Results(impl, {"records": []}, 0)

    monkeypatch.setattr(sweep, "run_suite", run_suite)
    record = tmp_path / "requests.jsonl"
    args = ["sweep", "--impl", "reference", "--against", "reference", "--seeds", "3"]
    assert main([*args, "--record", str(record)]) == 0
    out, err = capsys.readouterr()
    assert "seeds 1..3" in out and "sweep seeds" not in out
    lines = err.splitlines()
    assert lines[0] == "sweep seeds: 1/3 seed 1: 0 failing (0s, about 0s left)"
    assert re.fullmatch(rf"sweep seeds: 3/3 seed 3: 0 failing {TIMING}", lines[-1])


def test_an_install_says_once_what_it_installs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One plain line per install (none from the cache, none when quiet)."""
    monkeypatch.setenv("CTXSPEC_CACHE", str(tmp_path))
    ran: list[str] = []

    def run_logged(command: Sequence[str], *, cwd: Path, quiet: bool, what: str) -> None:
        ran.append(what)
        python = cwd / "venv" / "bin" / "python"
        python.parent.mkdir(parents=True, exist_ok=True)
        python.touch()

    monkeypatch.setattr(pyvenv, "run_logged", run_logged)
    pyvenv.ensure_venv("demo-1.0", ["demo==1.0", "dep==2"])
    pyvenv.ensure_venv("demo-1.0", ["demo==1.0", "dep==2"])  # cached: says nothing
    pyvenv.ensure_venv("demo-2.0", ["demo==2.0"], quiet=True)
    assert ran == ["venv", "pip install for demo-1.0", "venv", "pip install for demo-2.0"]
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "ctxspec: installing demo-1.0 into the cache: a private venv, "
        "pip install demo==1.0 (2 pinned packages) ...\n"
    )


def test_the_pi_install_line_names_the_release_and_the_npm_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(npm_registry, "npm", lambda _: "npm")
    monkeypatch.setattr(npm_lock, "run_logged", lambda *_, **__: None)
    pi.HARNESS.build("0.85.0", tmp_path, quiet=False)
    pi.HARNESS.build("0.85.0", tmp_path, quiet=True)
    assert capsys.readouterr() == (
        "",
        "ctxspec: installing pi@0.85.0 into the cache: npm ci of "
        "@earendil-works/pi-coding-agent@0.85.0 and Node 22 (from the committed lock; once, "
        "about 30 s and 350 MB) ...\n",
    )


def test_status_on_a_terminal_is_a_transient_spinner() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with status("ctxspec: installing pi@1.6.0 into the cache: npm ci ...", console=console):
        pass
    drawn = out.getvalue()
    assert "\x1b[" in drawn and "installing pi@1.6.0" in drawn
    assert drawn.endswith("\x1b[2K")  # transient: the line is cleared when done
    silent = io.StringIO()
    with status("x", quiet=True, stream=Tty()), status("y", quiet=True, stream=silent):
        pass
    assert silent.getvalue() == ""


def test_on_a_terminal_an_install_steps_output_goes_into_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the spinner npm's output would tear the display: it is kept for the error."""
    terminal = Tty()
    monkeypatch.setattr(sys, "stderr", terminal)
    fails = [sys.executable, "-c", "print('npm ERR! no such package'); raise SystemExit(3)"]
    with pytest.raises(InstallError, match="no such package"):
        cache.run_logged(fails, cwd=tmp_path, quiet=False, what="npm install of demo")
    assert terminal.getvalue() == ""
