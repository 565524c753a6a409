"""Bad input to ctxspec itself: one line on stderr naming the argument, exit status 2.

Each row runs the installed `ctxspec` command in a child process, as a user would, and
checks the status, that stderr is exactly that one line, and that no traceback or pytest
INTERNALERROR shows anywhere. The types behind the lines (`ctxspec.conformance.cli_args`) are
also checked in process, on what they must accept.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxspec import conformance
from ctxspec.conformance import cli_args
from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.transport.named import FAMILIES

SCRIPT = Path(sys.executable).parent / "ctxspec"
CTXSPEC = [str(SCRIPT)] if SCRIPT.is_file() else [sys.executable, "-m", "ctxspec"]
CHECKOUT = str(Path(conformance.__file__).resolve().parent.parent)  # the code under test
CASE = "tail-cut-inside-4-byte-sequence-after-byte-2"
GUARD = 120  # seconds; a refusal comes before anything runs


def ctxspec(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=CHECKOUT)
    return subprocess.run(
        [*CTXSPEC, *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=GUARD,
        check=False,
    )


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A working directory with the broken inputs the rows name."""
    (tmp_path / "a-file").write_text("")
    (tmp_path / "broken.yaml").write_text("cases: {a: [\n")
    (tmp_path / "unknown-case.yaml").write_text("cases:\n  no-such-case-at-all: fails\n")
    (tmp_path / "unknown-property.yaml").write_text("properties:\n  test_head_is_prefix: x\n")
    (tmp_path / "list.json").write_text("[]\n")
    (tmp_path / "results.json").write_text('{"header": {}, "records": [{"id": "x"}]}\n')
    return tmp_path


# (what, argv, the argument the line names, words it must hold)
BAD = [
    ("unknown case id", ["conform", "--case", "no-such-case-id"], "--case", "'no-such-case-id'"),
    ("case id typo", ["conform", "--case", CASE[:-1] + "9"], "--case", f"or '{CASE}'"),
    ("unknown op", ["conform", "--op", "truncate.tails"], "--op", "did you mean 'truncate.tail'"),
    ("-k matching nothing", ["conform", "-k", "no_item_has_this_name"], "-k", "matches no case"),
    ("-k not an expression", ["conform", "-k", "tail and"], "-k", "expected a pytest -k"),
    (
        "case outside the boundary",
        ["conform", "--boundary", "trust_denial", "--case", CASE],
        "--case/--boundary",
        "select no case",
    ),
    (
        "op outside the boundary",
        ["conform", "--boundary", "trust_denial", "--op", "truncate.tail"],
        "--boundary/--op",
        "select no case",
    ),
    ("unknown boundary", ["conform", "--boundary", "session_tree"], "--boundary", "choose from"),
    ("negative timeout", ["conform", "--timeout", "-5"], "--timeout", "seconds > 0, got '-5'"),
    ("zero timeout", ["conform", "--timeout", "0"], "--timeout", "seconds > 0"),
    ("NaN timeout", ["conform", "--timeout", "nan"], "--timeout", "seconds > 0"),
    ("infinite timeout", ["conform", "--timeout", "inf"], "--timeout", "seconds > 0"),
    ("zero answer bytes", ["conform", "--max-answer-bytes", "0"], "--max-answer-bytes", ">= 1"),
    ("workers not a number", ["conform", "-n", "many"], "-n", "auto, logical or a number"),
    (
        "missing expectations",
        ["conform", "--expectations", "missing.yaml"],
        "--expectations",
        "'missing.yaml' is no such file",
    ),
    (
        "expectations not YAML",
        ["conform", "--expectations", "broken.yaml"],
        "--expectations",
        "broken.yaml:2:1: expectations are not YAML",
    ),
    (
        "expectations with an unknown case",
        ["conform", "--expectations", "unknown-case.yaml"],
        "--expectations",
        "unknown-case.yaml lists the case 'no-such-case-at-all'",
    ),
    (
        "expectations with an unknown property",
        ["conform", "--expectations", "unknown-property.yaml"],
        "--expectations",
        "did you mean 'test_head_is_a_prefix'",
    ),
    (
        "unknown family",
        ["conform", "--impl", "nosuchfamily@1.0"],
        "--impl",
        f"families: {', '.join(sorted(FAMILIES))}",
    ),
    ("family with a bad version", ["conform", "--impl", "pi@x"], "--impl", "pi@MAJOR.MINOR"),
    ("empty --impl", ["conform", "--impl", " "], "--impl", "reference, fastengine, NAME@VERSION"),
    ("unclosed quote", ["conform", "--impl", "python 'x"], "--impl", "No closing quotation"),
    ("json under a file", ["conform", "--json", "a-file/r.json"], "--json", "not a directory"),
    ("json is a directory", ["conform", "--json", "."], "--json", "is a directory"),
    ("empty --md", ["conform", "--md", ""], "--md", "a file to write"),
    ("bench size", ["bench", "notasize"], "SIZE", "got 'notasize'"),
    ("bench batch", ["bench", "--batch", "16MiB,lots"], "--batch", "sizes such as"),
    ("bench rounds", ["bench", "--rounds", "0"], "--rounds", ">= 1"),
    ("bench flavour", ["bench", "--flavours", "mixed,nope"], "--flavours", "flavours among"),
    ("bench baseline", ["bench", "--compare", "--baseline", "no.json"], "--baseline", "no such"),
    ("fuzz examples", ["fuzz", "--impl", "reference", "--examples", "0"], "--examples", ">= 1"),
    ("fuzz shrink", ["fuzz", "--impl", "reference", "--shrink-calls", "-1"], "--shrink-calls", ""),
    ("fuzz seed", ["fuzz", "--impl", "reference", "--seed", "x"], "--seed", "got 'x'"),
    ("fuzz timeout", ["fuzz", "--impl", "reference", "--timeout", "-1"], "--timeout", "> 0"),
    ("fuzz op", ["fuzz", "--impl", "reference", "--op", "no.such"], "--op", "no strategy"),
    ("fuzz oracle", ["fuzz", "--impl", "reference", "--against", "pi@x"], "--against", "pi@"),
    ("matrix missing results", ["matrix", "--from", "none.json"], "--from", "no such file"),
    ("matrix not results", ["matrix", "--from", "list.json"], "--from", "not a results file"),
    ("matrix results shape", ["matrix", "--from", "results.json"], "--from", "each with id"),
    ("matrix out", ["matrix", "--impl", "reference", "--out", "a-file/m"], "--out", "a-file"),
    ("changelog version", ["changelog", "pi@x..pi@1.0.0"], "range", "FAMILY@A..FAMILY@B"),
    ("changelog order", ["changelog", "pi@1.0.0..pi@0.85.0"], "range", "older to a newer"),
    (
        "changelog rerender",
        ["changelog", "pi@0.85.0..pi@1.0.0", "--rerender"],
        "--rerender",
        "needs --data",
    ),
    ("cases root", ["cases", "lint", "--root", "missing"], "--root", "an existing directory"),
    (
        "expectations write results",
        ["expectations", "write", "--impl", "reference", "--from", "list.json"],
        "--from",
        "not a results file",
    ),
    (
        "expectations write changes",
        ["expectations", "write", "--impl", "reference", "--changes", "none.yaml"],
        "--changes",
        "no such file",
    ),
    (
        "impl install",
        ["impl", "install", "nosuchfamily@1.0"],
        "name",
        f"({', '.join(sorted(FAMILIES))}",
    ),
]


@pytest.mark.parametrize(
    ("argv", "argument", "words"), [r[1:] for r in BAD], ids=[r[0] for r in BAD]
)
@pytest.mark.slow
def test_bad_input_is_one_line_and_status_2(
    files: Path, argv: list[str], argument: str, words: str
) -> None:
    """The line names the command and the argument, says what was expected; status 2."""
    done = ctxspec(files, *argv)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output and "INTERNALERROR" not in output, output
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"ctxspec {argv[0]}: error: argument {argument}: "), lines[0]
    assert words in lines[0]


@pytest.mark.slow
def test_closed_pipe_is_no_traceback(tmp_path: Path) -> None:
    """`ctxspec cases list | head -1`: the reader leaves early, ctxspec ends quietly."""
    env = dict(os.environ, PYTHONPATH=CHECKOUT)
    argv = [*CTXSPEC, "cases", "list"]  # more than a pipe holds: it must write after the close
    with subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as child:
        assert child.stdout is not None and child.stderr is not None
        child.stdout.readline()
        child.stdout.close()
        error = child.stderr.read().decode()
        assert child.wait(timeout=GUARD) == 1
    assert "Traceback" not in error, error


@pytest.mark.slow
def test_op_selects_only_its_cases(tmp_path: Path) -> None:
    """`--op` (new on `conform`) runs the cases of that op and no other."""
    results = tmp_path / "r.json"
    argv = ["conform", "--op", "context.estimate", "-k", "test_case", "--json", str(results)]
    done = ctxspec(tmp_path, *argv)
    assert done.returncode == 0, done.stdout + done.stderr
    records = json.loads(results.read_text())["records"]
    cases = [r["id"] for r in records if r["kind"] == "case"]
    assert sorted(cases) == sorted(c.id for c in load_cases() if c.op == "context.estimate")


class TestTypes:
    """What the `type=` functions accept, and what they return."""

    @pytest.mark.parametrize(
        ("check", "text", "value"),
        [
            (cli_args.seconds, "0.5", 0.5),
            (cli_args.seconds, " 30 ", 30.0),
            (cli_args.positive_int, "1", 1),
            (cli_args.count, "0", 0),
            (cli_args.seed, "4294967295", 4294967295),
            (cli_args.fraction, "0", 0.0),
            (cli_args.workers, "auto", "auto"),
            (cli_args.workers, "0", "0"),
            (cli_args.size, "16MiB", "16MiB"),
            (cli_args.size, "4096", "4096"),
            (cli_args.sizes, "1KiB, 2GiB", "1KiB,2GiB"),
            (cli_args.lengths, "1000,10", "1000,10"),
            (cli_args.keyword, "test_case and not tail", "test_case and not tail"),
            (cli_args.impl_spec, "reference", "reference"),
            (cli_args.impl_spec, "fastengine", "fastengine"),
            (cli_args.impl_spec, "pi", "pi"),
            (cli_args.impl_spec, "pi@1.6.0", "pi@1.6.0"),
            (cli_args.impl_spec, "python3 -m my_port", "python3 -m my_port"),
            (cli_args.impl_spec, "/nonexistent/impl", "/nonexistent/impl"),  # fails to start
        ],
    )
    def test_accepts(self, check: Callable[[str], object], text: str, value: object) -> None:
        """A good value comes back converted."""
        assert check(text) == value

    def test_named_word_that_is_a_path_is_a_command(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`tool@1.0` is refused only when no such file or program exists."""
        monkeypatch.chdir(tmp_path)
        with pytest.raises(argparse.ArgumentTypeError, match="no family is named 'tool'"):
            cli_args.impl_spec("tool@1.0")
        (tmp_path / "tool@1.0").write_text("")
        assert cli_args.impl_spec("tool@1.0") == "tool@1.0"

    def test_output_file_in_a_directory_to_make(self, tmp_path: Path) -> None:
        """A report may go to a directory that does not exist yet (it is made at the end)."""
        target = str(tmp_path / "new" / "deeper" / "r.json")
        assert cli_args.output_file(target) == target
        assert not (tmp_path / "new").exists()

    def test_suite_properties_are_found(self) -> None:
        """The property names come from the suite's source, every one with its marker."""
        names = cli_args.suite_properties()
        assert {"test_head_is_a_prefix", "test_trust_matches_reference"} <= names
        assert "test_case" not in names


@pytest.mark.slow
def test_plugin_alone_refuses_a_broken_expectations_file(files: Path) -> None:
    """Run by pytest itself (no ctxspec to check first): pytest's usage error, no INTERNALERROR."""
    ini = str(Path(conformance.__file__).parent / "suite" / "pytest.ini")
    argv = [
        "-c",
        ini,
        "-p",
        "ctxspec.conformance.runner.plugin",
        "--pyargs",
        "ctxspec.conformance.suite",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *argv, "--expectations", "broken.yaml"],
        capture_output=True,
        text=True,
        cwd=files,
        env=dict(os.environ, PYTHONPATH=CHECKOUT),
        timeout=GUARD,
        check=False,
    )
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "INTERNALERROR" not in done.stdout + done.stderr
    assert "ERROR: broken.yaml:2:1: expectations are not YAML" in done.stderr
