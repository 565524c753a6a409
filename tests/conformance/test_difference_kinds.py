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
from paths import FAKE_IMPL

pytestmark = pytest.mark.slow  # whole conform runs


def conform(tmp_path: Path, mode: str, *args: str) -> tuple[dict[str, Any], str]:
    results = tmp_path / f"{mode}.json"
    command = shlex.join([sys.executable, str(FAKE_IMPL), mode])
    completed = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "conform", "--impl", command,
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
