"""The benchmark regression gate compares ratios, never times."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import compare  # a script beside the benchmarks, not a package

RESULTS = {
    "throughputMiBs": {
        "reference tail + persist": {"64MiB": 300.0},
        "reference tail": {"64MiB": 400.0},
        "Pi 0.85.0 (tail + persist)": {"64MiB": 50.0},
        "cat | dd of=FILE bs=1M": {"64MiB": 500.0},
        "cat | tail -c": {"64MiB": 1000.0},
    },
    "batchNs": {
        "64MiB": {"reference": {"headNs": 1, "tailNs": 2}, "pi": {"headNs": 3, "tailNs": 4}},
        "1GiB": {"reference": {"headNs": 1, "tailNs": 2}, "pi": {"error": "ERR_STRING_TOO_LONG"}},
    },
    "sessionsMs": {"reference find_cut_point": {"1000": 2.0}, "Pi findCutPoint": {"1000": 1.0}},
}


def test_ratios_are_higher_is_better_and_skip_what_pi_cannot_do() -> None:
    ratios = compare.ratios(RESULTS)
    assert ratios == {
        "stream 64MiB: tail + persist / Pi": 6.0,
        "stream 64MiB: tail + persist / cat | dd": 0.6,
        "stream 64MiB: tail / cat | tail -c": 0.4,
        "batch 64MiB: head reference / Pi": 3.0,
        "batch 64MiB: tail reference / Pi": 2.0,
        "sessions 1000: find_cut_point reference / Pi (separate runs)": 0.5,
    }


def test_interleaved_session_ratios_replace_the_separate_ones() -> None:
    """A run's session_figures ratios are taken as they are, the sessionsMs ones dropped."""
    interleaved = {"ratios": {"sessions 100000: find_cut_point reference / Pi": 3.0}}
    ratios = compare.ratios({**RESULTS, "sessions": interleaved})
    assert ratios["sessions 100000: find_cut_point reference / Pi"] == 3.0
    assert not any(name.endswith(compare.SEPARATE) for name in ratios)


def test_session_ratios_are_gated_from_100k_entries_when_interleaved() -> None:
    """Interleaved ratios from 100k entries are gated; small sizes and µs helpers are not."""
    baseline = {
        "sessions 100000: build_session_context reference / Pi": 1.0,
        "sessions 1000000: navigate_tree reference / Pi": 1.0,
        "sessions 10000: build_session_context reference / Pi": 1.0,
        "sessions 100000: estimate_context_tokens reference / Pi": 1.0,
        "sessions 100000: build_session_context reference / Pi (separate runs)": 1.0,
    }
    current = dict.fromkeys(baseline, 0.1)
    regressions = compare.compare(current, baseline, tolerance=0.3)
    assert sorted(r.name for r in regressions) == [
        "sessions 1000000: navigate_tree reference / Pi",
        "sessions 100000: build_session_context reference / Pi",
    ]


def test_only_a_fall_beyond_the_tolerance_is_a_regression() -> None:
    small = "sessions 1000: f reference / Pi"
    baseline = {"a": 10.0, "b": 10.0, "gone": 1.0, small: 1.0}
    current = {"a": 7.4, "b": 7.6, "new": 3.0, small: 0.1}
    regressions = compare.compare(current, baseline, tolerance=0.25)
    assert [r.name for r in regressions] == ["a"]  # small session sizes are listed, not gated
    table = compare.render(current, baseline, regressions)
    assert "REGRESSION" in table and "not measured in this run" in table and "no baseline" in table
