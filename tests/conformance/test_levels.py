"""Levels that say what Pi does, and expectations per op (issue 32, parts 4 and 5).

A record the pinned Pi fails too is `failed-as-pi`: counted apart, never failing the run
unless `--level invariant`. A port that answers as Pi does passes with no expectations
file. A property parametrized by op can be listed for one op alone, and the file
`ctxspec expectations write` produces passes its own run.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from paths import FAKE_IMPL

from ctxspec.conformance.runner.plugin import pi_fails
from ctxspec.conformance.tools.expectations_write import write_expectations

pytestmark = pytest.mark.slow  # whole conform runs

# the reference over the wire: an external command that answers exactly as Pi 0.85.0
REFERENCE_COMMAND = shlex.join([sys.executable, "-m", "ctxspec.conformance.engines.reference"])
PI_BROKEN = ["--case", "unknown-leaf-invalid-input", "--case", "unknown-leaf-path-from-last-entry"]


def conform(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    results = tmp_path / "results.json"
    completed = subprocess.run(
        [sys.executable, "-m", "ctxspec", "conform", "--json", str(results), *args],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
        check=False,
    )
    assert results.exists(), completed.stdout + completed.stderr
    return completed.returncode, json.loads(results.read_text()), completed.stdout


def statuses(data: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["status"] for r in data["records"]}


def test_a_port_answering_as_pi_exits_0_with_no_expectations_file(tmp_path: Path) -> None:
    code, data, out = conform(
        tmp_path, "--impl", REFERENCE_COMMAND, "--expectations", "none", "--boundary",
        "lca_navigation",
    )  # fmt: skip
    assert code == 0, out
    found = statuses(data)
    assert found["unknown-leaf-invalid-input"] == "failed-as-pi"
    assert found["unknown-leaf-id-falls-back-to-last-entry"] == "passed"
    record = next(r for r in data["records"] if r["id"] == "unknown-leaf-invalid-input")
    assert record["piFails"] == pi_fails().cases["unknown-leaf-invalid-input"]
    assert record["classes"], "a failed-as-pi record keeps its differences"
    assert "failed as Pi itself does" in out


def test_level_invariant_gates_on_what_pi_breaks(tmp_path: Path) -> None:
    code, data, out = conform(
        tmp_path, "--impl", REFERENCE_COMMAND, "--expectations", "none", "--level", "invariant",
        *PI_BROKEN,
    )  # fmt: skip
    assert code == 1
    assert statuses(data)["unknown-leaf-invalid-input"] == "failed"
    assert "fails it too" in out


def test_a_case_pi_breaks_that_the_port_passes_is_a_pass(tmp_path: Path) -> None:
    """The reference answers a typed error where Pi crashes: better than Pi, a pass."""
    case = "head-negative-limit-on-empty-content-typed-error"
    assert case in pi_fails().cases
    code, data, _ = conform(tmp_path, "--impl", REFERENCE_COMMAND, "--case", case)
    assert code == 0
    assert statuses(data)[case] == "passed"


def test_expectations_name_one_op_of_a_property_and_write_passes_its_own_run(
    tmp_path: Path,
) -> None:
    command = shlex.join([sys.executable, str(FAKE_IMPL), "drop-head-char"])
    select = ["--boundary", "multibyte_cuts", "-k", "properties"]
    code, first, _ = conform(tmp_path, "--impl", command, "--expectations", "none", *select)
    assert code == 1
    failing = {r["id"] for r in first["records"] if r["status"] == "failed"}
    assert any(name.endswith("[truncate.head]") for name in failing)
    passing_tail = {
        r["id"]
        for r in first["records"]
        if r["status"] == "passed" and r["id"].endswith("[truncate.tail]")
    }
    assert passing_tail, "the tail's parameter of some property passes"
    target = tmp_path / "port.yaml"
    write_expectations(target, "port", first)
    written = yaml.safe_load(target.read_text())["properties"]
    assert any(key.endswith("[truncate.head]") for key in written)
    assert not any(key.split("[")[0] + "[truncate.tail]" in failing for key in written)
    code, second, out = conform(tmp_path, "--impl", command, "--expectations", str(target), *select)
    assert code == 0, out
    again = statuses(second)
    assert all(again[name] == "expected-failure" for name in written if name in again)
    assert all(again[name] == "passed" for name in passing_tail)


def test_an_unknown_property_in_expectations_is_refused_with_the_nearest_name(
    tmp_path: Path,
) -> None:
    target = tmp_path / "bad.yaml"
    target.write_text("implementation: x\nproperties:\n  test_tail_is_a_sufix: typo\n")
    completed = subprocess.run(
        [sys.executable, "-m", "ctxspec", "conform", "--expectations", str(target)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        check=False,
    )
    assert completed.returncode != 0
    assert "test_tail_is_a_sufix" in completed.stderr
    assert "Traceback" not in completed.stderr
