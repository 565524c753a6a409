"""The agent ops end to end: `ctxspec conform` against a fake agent and its profile, sound
and with one fault each, the way a user runs it on a real agent."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conform import conform
from paths import ROOT

AGENT = ROOT / "tests" / "support" / "fake_agent"

pytestmark = pytest.mark.slow


def _run(tmp_path: Path, *modes: str) -> tuple[int, str, dict]:
    command = " ".join([sys.executable, str(AGENT / "agent.py"), *modes])
    return conform(
        tmp_path, "--impl", command, "--agent-profile", str(AGENT / "profile.yaml"),
        "--expectations", "none", "-n", "1",
    )  # fmt: skip


def _classes(data: dict) -> set[str]:
    return {entry["key"] for entry in data["classes"]}


def test_a_sound_agent_passes_and_pi_s_ops_are_not_applicable(tmp_path: Path) -> None:
    code, output, data = _run(tmp_path)
    assert code == 0, output
    by_status: dict[str, set[str]] = {}
    for record in data["records"]:
        by_status.setdefault(record["status"], set()).add(record["op"])
    assert "agent.instructions" in by_status["passed"]
    assert "agent.tool_output" in by_status["passed"]
    assert "agent.resume" in by_status["passed"]
    assert "truncate.tail" in by_status["not-applicable"]
    assert not by_status.keys() & {"failed", "error"}
    assert data["header"]["profile"].endswith("profile.yaml")


@pytest.mark.parametrize(
    ("mode", "key", "case"),
    [
        ("split-pairs", "agent.tool_output $.content violates:whole-characters",
         "agent-output-emoji-run-odd-limit-kept-whole"),
        ("sorted-files", "agent.instructions $.text violates:declared-order",
         "agent-instructions-digit-named-directory-root-first"),
        ("late-compaction", "agent.compaction $.compact violates:trigger-usage",
         "agent-compaction-usage-at-half-window"),
        ("leaky-fork", "agent.resume $.original violates:fork-leaves-original",
         "agent-fork-leaves-original"),
    ],
)  # fmt: skip
def test_each_fault_is_one_class_with_its_case(
    tmp_path: Path, mode: str, key: str, case: str
) -> None:
    code, output, data = _run(tmp_path, mode)
    assert code == 1, output
    assert key in _classes(data), output
    member = next(entry for entry in data["classes"] if entry["key"] == key)
    assert case in member["cases"]
