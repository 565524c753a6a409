"""The verdict is a fact: the same examples and statuses whatever the machine, the `CI`
variable or the worker count; random examples only when asked for (`--explore`); and the
requests of a failing property's minimal example recorded for `ctxspec sweep`."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis.internal.conjecture import providers
from paths import FAKE_IMPL

from ctxspec.cli import parser
from ctxspec.conformance.cli import pytest_command
from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.runner.examples import (
    VERDICT_EXAMPLES,
    property_seed,
    without_local_constants,
)
from ctxspec.conformance.runner.recording import read_failures
from ctxspec.conformance.runner.results import stable_text
from ctxspec.conformance.tools.same_verdict import verdict

pytestmark = pytest.mark.slow  # whole conform runs, compared

# right on most inputs, wrong where a partial last line is cut (the properties find it
# on some examples only: the kind of implementation whose verdict used to wander)
LOSSY = shlex.join([sys.executable, str(FAKE_IMPL), "lossy-cut"])
PROPERTIES = ["-k", "test_head_is_a_prefix or test_output_within_limits or test_tail_is_a_suffix"]


def run(tmp_path: Path, name: str, *args: str, ci: bool) -> tuple[int, dict[str, Any]]:
    results = tmp_path / f"{name}.json"
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    completed = subprocess.run(
        [sys.executable, "-m", "ctxspec", "conform", "--json", str(results), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert results.exists(), completed.stdout + completed.stderr
    data: dict[str, Any] = json.loads(results.read_text())
    return completed.returncode, data


def test_same_verdict_with_and_without_ci_and_any_worker_count(tmp_path: Path) -> None:
    base = ["--impl", LOSSY, "--expectations", "none", *PROPERTIES]
    code_a, first = run(tmp_path, "a", *base, ci=False)
    code_b, second = run(tmp_path, "b", *base, "-n", "2", ci=True)
    assert verdict(first) == verdict(second)
    assert code_a == code_b == 1
    failed = {r["id"] for r in first["records"] if r["status"] == "failed"}
    assert failed, "the lossy fake should fail a property on the fixed examples"


@pytest.mark.parametrize(("workers", "passed"), [("1", None), ("0", None), ("2", "2")])
def test_one_worker_is_the_runners_process(workers: str, passed: str | None) -> None:
    """`-n 1` runs in the runner's process (the path the first test compares with -n 2)."""
    args = pytest_command(parser().parse_args(["conform", "-n", workers]))
    assert (args[args.index("-n") + 1] if "-n" in args else None) == passed


def test_every_report_states_the_example_policy(tmp_path: Path) -> None:
    first = next(c.id for c in load_cases() if c.op == "truncate.tail")
    _, data = run(tmp_path, "r", "--case", first, ci=False)
    policy = data["header"]["examples"]
    assert policy["policy"] == "fixed"
    assert policy["maxExamples"] == VERDICT_EXAMPLES


def test_explore_draws_random_examples_and_says_so(tmp_path: Path) -> None:
    _, data = run(tmp_path, "x", "--explore", "--seed", "5", "-k", "test_format_size", ci=True)
    assert data["header"]["examples"]["policy"] == "explore"
    assert data["header"]["examples"]["seed"] == "5"


def test_seed_without_explore_is_refused(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "ctxspec", "conform", "--seed", "5"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert completed.returncode == 2
    assert "--seed" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_seeds_depend_on_the_property_alone() -> None:
    assert property_seed("test_a") == property_seed("test_a")
    assert property_seed("test_a") != property_seed("test_b")


def test_failing_examples_are_recorded_for_the_sweep(tmp_path: Path) -> None:
    record = tmp_path / "requests.jsonl"
    args = ["--impl", LOSSY, "--expectations", "none", *PROPERTIES, "--"]
    run(tmp_path, "s", *args, "--record-requests", str(record), ci=False)
    failures = read_failures(record)
    assert failures
    for failure in failures:
        assert failure["requests"], failure
        assert {r["op"] for r in failure["requests"]} <= {"truncate.head", "truncate.tail"}


def test_messages_lose_what_differs_from_run_to_run() -> None:
    leaked = "cwd /tmp/ctxspec-run-msd2fi48/impl-5blk_4v2/ctxspec-run-xAXoAQ/a at 0x7f3a5f576690"
    assert stable_text(leaked) == "cwd <run>/a at 0x…"
    assert stable_text("/tmp/work/ws and /ws/a") == "/tmp/work/ws and /ws/a"


def test_no_constants_mined_from_loaded_modules() -> None:
    """The shipped examples' draws do not depend on which local modules a process loaded
    (`examples_write` turns the mining off while it draws, and back on after)."""
    original = providers._get_local_constants
    restore = without_local_constants()
    try:
        assert len(providers._get_local_constants()) == 0
    finally:
        restore()
    assert providers._get_local_constants is original
