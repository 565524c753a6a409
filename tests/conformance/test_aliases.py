"""Renamed case ids (conformance/corpus/aliases.py, corpora/aliases.yaml): old ids keep working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ctxspec.cli import main
from ctxspec.conformance.cli_args import check_selection
from ctxspec.conformance.corpus import aliases
from ctxspec.conformance.corpus.aliases import Alias, load_aliases, new_id
from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.runner.expectations import default_expectations_file, load_expectations
from ctxspec.conformance.tools.expectations_write import load_changes, write_expectations

OLD, NEW = "negative-max-chars-keeps-nothing", "negative-max-chars-counts-from-end"
CONFORM = [sys.executable, "-m", "ctxspec", "conform", "--impl", "reference"]
SHIPPED = sorted(Path(str(default_expectations_file("reference"))).parent.glob("*.yaml"))


def test_the_table_is_sound() -> None:
    """Every old id leads to a live case and is not itself a live id; the table is used."""
    live = {case.id for case in load_cases()}
    table = load_aliases()
    assert table[OLD].new == NEW and new_id(OLD) == NEW and new_id(NEW) == NEW
    assert aliases.lint(live) == []
    assert not set(table) & live and {new_id(old) for old in table} <= live


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_expectations_use_the_new_ids(path: Path) -> None:
    """Our own expectations files name no old id, so they produce no warning."""
    assert load_expectations(str(path), path.stem).renamed == ()


def test_an_old_id_in_expectations_applies_to_the_new_id(tmp_path: Path) -> None:
    """An expectations entry under an old id is the new id's entry, and is reported."""
    path = tmp_path / "old.yaml"
    path.write_text(f"implementation: x\ncases:\n  {OLD}: known\n  other-id: kept\n")
    loaded = load_expectations(str(path), "x")
    assert loaded.cases == {NEW: "known", "other-id": "kept"} and loaded.renamed == (OLD,)
    message = aliases.renamed_message(OLD, str(path))
    assert NEW in message and OLD in message and str(path) in message


def test_old_ids_in_a_change_catalogue_and_a_rewritten_file(tmp_path: Path) -> None:
    """`expectations write` keeps an old entry under the new id; a change naming an old id
    explains the new one."""
    catalogue = tmp_path / "pi.yaml"
    catalogue.write_text(
        yaml.safe_dump([{"name": "c", "since": "1.0.0", "reason": "r", "cases": [OLD]}])
    )
    (change,) = load_changes("pi", str(catalogue))
    assert change.cases == (NEW,)
    target = tmp_path / "impl.yaml"
    target.write_text(f"implementation: x\ncases:\n  {OLD}: known\n")
    write_expectations(target, "x", {"records": []})
    assert yaml.safe_load(target.read_text())["cases"] == {NEW: "known"}


def test_case_option_accepts_an_old_id() -> None:
    """`--case OLD` selects the renamed case (the CLI's check does not refuse it)."""
    check_selection([OLD], [], [])


@pytest.mark.slow
def test_conform_warns_once_per_old_id_and_applies_the_entry(tmp_path: Path) -> None:
    """The suite applies an old-id entry to the new case (here an unexpected pass, since the
    reference passes it) and names the new id in one warning of pytest's summary."""
    path = tmp_path / "old.yaml"
    path.write_text(f"implementation: reference\ncases:\n  {OLD}: an old id\n")
    run = subprocess.run(
        [*CONFORM, "--case", OLD, "--expectations", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1 and "expected failure (an old id), yet it passed" in out, out
    assert out.count(f"RenamedCaseWarning: {path}: case '{OLD}' is now '{NEW}'") == 1, out
    assert f"--case: case '{OLD}'" not in out  # once per old id, whoever names it


@pytest.mark.parametrize(
    "table, problem",
    [
        ({"gone": Alias("gone", "no-such-case", "today", "x")}, "no case has that id"),
        ({NEW: Alias(NEW, OLD, "today", "x")}, "is a live case id"),
    ],
)
def test_lint_refuses_a_broken_table(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    table: dict[str, Alias],
    problem: str,
) -> None:
    """An alias to a missing id, or an old id that is live, is a `ctxspec cases lint` error."""
    monkeypatch.setattr(aliases, "load_aliases", lambda: table)
    assert any(problem in p for p in aliases.lint(case.id for case in load_cases()))
    assert main(["cases", "lint"]) == 1
    assert problem in capsys.readouterr().out
