"""Every difference shown, run through whole conform runs with fake ports (issue 32, part 3):
a second window in one string, list items past the shorter side, and a port that takes
message entries only still running the cases whose rule is not about another entry."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus_kinds import CORE, kinds_of, walking_ops
from paths import FAKE_IMPL

from ctxspec.conformance.corpus.cases import load_cases

pytestmark = pytest.mark.slow  # whole conform runs


def conform(tmp_path: Path, mode: str, *args: str) -> tuple[dict[str, Any], str]:
    results = tmp_path / f"{mode}.json"
    command = shlex.join([sys.executable, str(FAKE_IMPL), mode])
    completed = subprocess.run(
        [sys.executable, "-m", "ctxspec", "conform", "--impl", command,
         "--expectations", "none", "--json", str(results), *args],
        capture_output=True, text=True, timeout=900, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert results.exists(), completed.stdout + completed.stderr
    return json.loads(results.read_text()), completed.stdout


def _differences(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for r in data["records"] for d in r.get("differences", ())]


def test_a_second_change_in_the_same_string_is_shown(tmp_path: Path) -> None:
    data, out = conform(tmp_path, "two-changes", "--op", "truncate.tail", "-k", "golden")
    two = [d for d in _differences(data) if d.get("windowCount") == 2]
    assert two, "some truncate.tail content has its two changed letters as two windows"
    assert "strings differ in 2 places" in out
    assert "#2 at char" in out


def test_list_items_past_the_shorter_side_are_each_shown(tmp_path: Path) -> None:
    data, out = conform(tmp_path, "short-lists", "--op", "session.context", "-k", "golden")
    kinds = {(d["path"].split("[")[0], d["kind"]) for d in _differences(data)}
    assert ("$.messages", "missing") in kinds
    assert "$.messages.length" in {d["path"] for d in _differences(data)}
    assert "missing (expected" in out


def test_a_port_taking_message_entries_only_runs_every_case_not_about_another(
    tmp_path: Path,
) -> None:
    """Each case carries only what its rule needs: a port that answers `unsupported` to any
    entry but a message still runs every case whose rule is not about another entry type
    (`tests/corpora/test_case_inputs.py` keeps the inputs so), and is judged on it."""
    boundaries = ("lca_navigation", "compaction_threshold")
    args = [arg for boundary in boundaries for arg in ("--boundary", boundary)]
    data, _ = conform(tmp_path, "messages-only", *args, "-k", "golden")
    status = {r["id"]: r["status"] for r in data["records"]}
    walked = walking_ops()
    plain = [
        case.id
        for case in load_cases()
        if case.boundary in boundaries
        and case.status == "active"
        and case.op in walked
        and "entries" in case.args
        and kinds_of(case) <= CORE
    ]
    assert len(plain) > 100
    assert [case_id for case_id in plain if status.get(case_id) == "unsupported"] == []
    assert any(s == "unsupported" for s in status.values()), "the fake refuses the others"
