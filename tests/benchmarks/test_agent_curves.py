"""`ctxspec bench --op`: agent cost curves, their exponents, findings and baseline gate.

The end-to-end tests run the fake agent (`tests/support/fake_agent/agent.py`), whose bench
ops time its own code in process: `quadratic` looks each line of a tool output up in a
list of the lines it kept, `memory-hungry` holds 16 copies of it. No test asserts a time;
each asserts what the fit concluded from the times (an exponent near 2 is a ratio of
times, not one).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import FAKE_AGENT

from ctxspec.benchmarks import agents, curve_gate
from ctxspec.benchmarks.curves import OPS, Curve, Point, sizes
from ctxspec.benchmarks.scaling import SLOPE_LIMIT, findings, fit, slope
from ctxspec.cli import main
from ctxspec.corpora.generators import agent_inputs


def fake(*modes: str) -> str:
    return " ".join([sys.executable, str(FAKE_AGENT), *modes])


def bench(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *argv: str
) -> tuple[int, dict[str, Any]]:
    """One `ctxspec bench` run in `tmp_path`; its exit status and results.json."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CTXSPEC_CACHE", str(tmp_path / "cache"))
    status = main(["bench", "-q", *argv])
    reports = sorted((tmp_path / "reports").glob("bench-*/results.json"))
    return status, json.loads(reports[-1].read_text()) if reports else {}


def curve_of(results: dict[str, Any], op: str = "agent_tool_output") -> dict[str, Any]:
    (curve,) = results["agents"][op].values()
    return curve


def test_sizes_double_and_end_at_the_largest() -> None:
    assert sizes(OPS["agent_instructions"])[-3:] == [2560, 5120, 10_000]
    assert sizes(OPS["agent_tool_output"])[:3] == [1024, 2048, 4096]
    assert sizes(OPS["agent_tool_output"])[-1] == 256 << 20
    assert len(sizes(OPS["agent_tool_output"])) == 19
    assert sizes(OPS["agent_compaction"], up_to=1000) == [100, 200, 400, 800, 1000]
    assert sizes(OPS["agent_compaction"], only=5) == [5]


def test_slope_of_a_power_law() -> None:
    xs = [2**k for k in range(10, 20)]
    assert math.isclose(slope(xs, [3e-9 * x**2 for x in xs]), 2.0)
    assert math.isclose(slope(xs, [5e-6 * x for x in xs]), 1.0)


def _curve(times: dict[int, float], base: float = 1.0, spread: float = 0.01) -> Curve:
    curve = Curve("agent@1", "agent_tool_output")
    for size, seconds in times.items():
        curve.points.append(
            Point(size, size, seconds=seconds, base_seconds=base, spread=spread, timing="turn")
        )
    return curve


def test_points_within_the_base_noise_are_not_fitted() -> None:
    """A black box's turn of 1 s moves by 5 %: 10 ms more is not growth."""
    flat = _curve({2**k: 0.01 for k in range(10, 20)})
    fitted = fit(flat)
    assert fitted.exponent is None and fitted.why is not None and "flat" in fitted.why
    rising = _curve({2**k: 1e-9 * 4**k for k in range(10, 20)})
    assert fit(rising).exponent == pytest.approx(2.0)
    assert [f.kind for f in findings(rising, fit(rising), "bytes")] == ["time"]


def test_a_heavy_memory_point_is_a_finding_with_its_reproducer() -> None:
    curve = _curve({1 << 20: 0.1, 64 << 20: 0.2})
    curve.points[-1].peak_kib, curve.points[-1].base_peak_kib = 900 << 10, 100 << 10
    (finding,) = findings(curve, fit(curve), "bytes")
    assert finding.kind == "memory" and finding.size == 64 << 20
    assert (
        finding.reproducer == "ctxspec bench --impl agent@1 --op agent_tool_output --size 67108864"
    )


def test_the_deliberately_quadratic_agent_is_flagged_near_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, results = bench(
        tmp_path, monkeypatch, "--impl", fake("quadratic"), "--op", "agent_tool_output",
        "--up-to", "256KiB", "--rounds", "5",
    )  # fmt: skip
    curve = curve_of(results)
    assert status == 0
    assert 1.6 <= curve["fit"]["exponent"] <= 2.5, curve["fit"]
    (finding,) = results["findings"]
    assert finding["kind"] == "time" and finding["impl"] == fake("quadratic")
    assert finding["reproducer"].endswith(f"--op agent_tool_output --size {256 << 10}")
    report = next((tmp_path / "reports").glob("bench-*/report.md")).read_text()
    assert finding["reproducer"] in report
    assert (next((tmp_path / "reports").glob("bench-*")) / "agent_tool_output.png").stat().st_size


def test_the_linear_agent_is_not_flagged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, results = bench(
        tmp_path, monkeypatch, "--impl", fake(), "--op", "agent_tool_output", "--up-to", "8MiB"
    )
    exponent = curve_of(results)["fit"]["exponent"]
    assert exponent is None or exponent < SLOPE_LIMIT
    assert results["findings"] == []


def test_memory_over_ten_times_the_input_is_flagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, results = bench(
        tmp_path, monkeypatch, "--impl", fake("memory-hungry"), "--op", "agent_tool_output",
        "--up-to", "8MiB",
    )  # fmt: skip
    (finding,) = results["findings"]
    assert finding["kind"] == "memory"
    assert curve_of(results)["points"][-1]["memoryPerByte"] >= 14  # 16 copies, allocator aside


def test_size_runs_one_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finding's reproducer: one size, the base beside it, no fit."""
    _, results = bench(
        tmp_path, monkeypatch, "--impl", fake(), "--op", "agent_compaction", "--size", "300"
    )
    curve = curve_of(results, "agent_compaction")
    (point,) = curve["points"]
    assert point["size"] == 300 and point["answer"] == {"compact": False, "keep": None}
    assert curve["fit"]["exponent"] is None


def test_an_op_the_harness_does_not_list_has_no_curve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, results = bench(
        tmp_path, monkeypatch, "--impl", fake(), "--op", "agent_instructions", "--up-to", "20"
    )
    curve = curve_of(results, "agent_instructions")
    assert curve["points"] == [] and "bench.agent_instructions" in curve["unsupported"]


def test_a_curve_past_its_deadline_stops_and_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, results = bench(
        tmp_path, monkeypatch, "--impl", fake("quadratic"), "--op", "agent_tool_output",
        "--up-to", "4MiB", "--deadline", "0.5", "--rounds", "1",
    )  # fmt: skip
    curve = curve_of(results)
    assert curve["stopped"].startswith("at ") and "deadline" in curve["stopped"]
    assert curve["points"][-1]["size"] < 4 << 20


def test_compare_gates_a_curve_on_its_own_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A linear curve saved as the baseline; the same label turned quadratic fails it."""
    baseline = tmp_path / "curves.json"
    linear = fake()
    args = ("--op", "agent_tool_output", "--up-to", "256KiB", "--baseline", str(baseline))
    status, _ = bench(tmp_path, monkeypatch, "--impl", linear, *args, "--save-baseline")
    assert status == 0
    status, _ = bench(tmp_path, monkeypatch, "--impl", linear, *args, "--compare")
    saved = json.loads(baseline.read_text())
    assert status == 0, saved
    # the baseline's label, now measured on the quadratic agent
    entry = saved["curves"]["agent_tool_output"][linear]
    quadratic = _curve(
        {int(s): 1e-12 * int(s) ** 2 for s in entry["seconds"]}, base=1e-6, spread=1e-7
    )
    quadratic.impl = linear
    fitted = fit(quadratic)
    results = {"agents": {"agent_tool_output": {linear: {
        **quadratic.to_json(), "fit": fitted.to_json(), "findings": []}}}}  # fmt: skip
    regressions, text = curve_gate.gate(results, saved["curves"], 0.3)
    assert any("exponent" in r for r in regressions), text


def test_instruction_tree_holds_the_files_asked_for() -> None:
    args = agent_inputs.instruction_tree(100, "GEMINI.md")
    files = [p for p in args["tree"] if p.endswith("/GEMINI.md")]
    assert len(files) == 100
    chain = [p for p in files if args["cwd"].startswith("/" + p.rsplit("/", 1)[0])]
    assert len(chain) == agent_inputs.DEPTH  # one on every directory from the root to the cwd
    assert agent_inputs.instruction_name(["CLAUDE.md", ".claude/rules/*.md"]) == "CLAUDE.md"
    assert agent_inputs.instruction_name(["QWEN.md", "AGENTS.md"]) == "AGENTS.md"


def test_history_never_ends_on_a_call() -> None:
    for count in (1, 2, 3, 6, 100):
        messages = agent_inputs.history(count)["messages"]
        assert len(messages) == count and not messages[-1].get("toolCall")


def test_runs_merge_into_one_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Curves drawn in separate runs (one agent at a time) read as one report."""
    _, linear = bench(tmp_path, monkeypatch, "--impl", fake(), "--op", "agent_compaction",
                      "--up-to", "400")  # fmt: skip
    _, quadratic = bench(tmp_path, monkeypatch, "--impl", fake("quadratic"), "--op",
                         "agent_tool_output", "--up-to", "64KiB")  # fmt: skip
    merged = agents.merge([linear, quadratic])
    assert set(merged["agents"]) == {"agent_compaction", "agent_tool_output"}
    assert merged["implementations"] == [fake(), fake("quadratic")]
    assert merged["seconds"] == linear["seconds"] + quadratic["seconds"]
    assert merged["agents"]["agent_tool_output"] == quadratic["agents"]["agent_tool_output"]
    assert agents.main([*map(str, sorted(tmp_path.glob("reports/*/results.json"))),
                              "--out", str(tmp_path / "merged")]) == 0  # fmt: skip
    assert (tmp_path / "merged" / "agent_tool_output.png").exists()


def test_a_step_where_the_agent_begins_to_compact_is_not_growth() -> None:
    """Pi 0.85.0's curve: a cheap estimate below 12,800 messages, the cut point above it,
    linear in both; fitted from the step on, the exponent is 1, not a finding."""
    times = {100 * 2**k: (1e-8 if k < 7 else 1e-6) * 100 * 2**k for k in range(11)}
    curve = _curve(times, base=1e-6, spread=1e-7)
    for point in curve.points:
        point.answer = {"compact": point.size >= 12_800, "keep": None}
    fitted = fit(curve)
    assert fitted.exponent == pytest.approx(1.0) and fitted.used[0] == 12_800
    assert findings(curve, fitted, "messages") == []
