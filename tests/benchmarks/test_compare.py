"""The benchmark regression gate compares ratios against the `--ratio-to` one, never times."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxspec.benchmarks import compare


def figure(seconds: float | None, verdict: str = "ok") -> dict[str, Any]:
    return {"via": "bench", "seconds": seconds, "wallSeconds": seconds, "verdict": verdict}


RESULTS = {
    "stream": {
        "64MiB": {
            "measures": {
                "mixed": {
                    "reference": figure(0.5),
                    "fastengine": figure(0.25),
                    "pi@0.85.0": figure(1.5),
                }
            }
        }
    },
    "truncate": {
        "1GiB": {
            "measures": {
                "head": {
                    "reference": figure(2.0),
                    "fastengine": figure(1.0),
                    "pi@0.85.0": figure(None, "error"),
                }
            }
        }
    },
    "sessions": {
        "1000": {
            "measures": {
                "findCutPoint": {
                    "reference": figure(4.0),
                    "fastengine": figure(2.0, "wrong"),
                    "pi@0.85.0": figure(1.0),
                },
                "navigation": {"reference": figure(1.0), "fastengine": None, "pi@0.85.0": None},
            }
        }
    },
}


def test_ratios_are_the_base_time_over_each_and_skip_what_cannot_be_taken() -> None:
    """Higher is better; an error, a wrong answer or no figure gives no ratio."""
    assert compare.ratios(RESULTS, "pi@0.85.0") == {
        "stream 64MiB: mixed reference / pi@0.85.0": 3.0,
        "stream 64MiB: mixed fastengine / pi@0.85.0": 6.0,
        "sessions 1000: findCutPoint reference / pi@0.85.0": 0.25,
    }
    assert compare.ratios(RESULTS, "reference")["truncate 1GiB: head fastengine / reference"] == 2


def test_gated_from_16mib_and_100k_entries_mixed_only_not_the_estimate_nor_reference() -> None:
    baseline = {
        "sessions 100000: buildSessionContext fastengine / pi@0.85.0": 1.0,
        "sessions 1000000: navigation fastengine / pi@0.85.0": 1.0,
        "sessions 10000: buildSessionContext fastengine / pi@0.85.0": 1.0,
        "sessions 100000: estimateContextTokens fastengine / pi@0.85.0": 1.0,
        "stream 16MiB: mixed fastengine / pi@0.85.0": 1.0,
        "stream 16MiB: crlf fastengine / pi@0.85.0": 1.0,
        "stream 1MiB: mixed fastengine / pi@0.85.0": 1.0,
        "truncate 64MiB: head fastengine / pi@0.85.0": 1.0,
        "truncate 1MiB: head fastengine / pi@0.85.0": 1.0,
        "stream 16MiB: mixed reference / pi@0.85.0": 1.0,
        "sessions 100000: findCutPoint reference / pi@0.85.0": 1.0,
    }
    current = dict.fromkeys(baseline, 0.1)
    regressions = compare.compare(current, baseline, tolerance=0.3)
    assert sorted(r.name for r in regressions) == [
        "sessions 1000000: navigation fastengine / pi@0.85.0",
        "sessions 100000: buildSessionContext fastengine / pi@0.85.0",
        "stream 16MiB: mixed fastengine / pi@0.85.0",
        "truncate 64MiB: head fastengine / pi@0.85.0",
    ]


def test_only_a_fall_beyond_the_tolerance_is_a_regression() -> None:
    small = "sessions 1000: findCutPoint fastengine / pi@0.85.0"
    a, b = (f"truncate 16MiB: {side} fastengine / pi@0.85.0" for side in ("head", "tail"))
    baseline = {a: 10.0, b: 10.0, "gone": 1.0, small: 1.0}
    current = {a: 7.4, b: 7.6, "new": 3.0, small: 0.1}
    regressions = compare.compare(current, baseline, tolerance=0.25)
    assert [r.name for r in regressions] == [a]  # small session sizes are listed, not gated
    table = compare.render(current, baseline, regressions)
    assert "REGRESSION" in table and "not measured in this run" in table and "no baseline" in table
    assert "(listed)" in table


def test_the_baseline_of_several_runs_is_their_per_ratio_minimum(tmp_path: Any) -> None:
    runs = []
    for n, ratios in enumerate([{"a": 2.0, "b": 1.0}, {"a": 1.5, "c": 4.0}]):
        run = tmp_path / f"bench-{n}" / "results.json"
        run.parent.mkdir()
        run.write_text(json.dumps({"ratios": ratios}))
        runs.append(str(run))
    out = tmp_path / "baseline.json"
    assert compare.main([*runs, "--out", str(out)]) == 0
    assert compare.load_baseline(out) == {"a": 1.5, "b": 1.0, "c": 4.0}
    assert "bench-0, bench-1" in out.read_text()
    (tmp_path / "other.json").write_text("{}")
    assert compare.main([str(tmp_path / "other.json"), "--out", str(tmp_path / "x.json")]) == 2


def test_a_saved_baseline_loads_back(tmp_path: Any) -> None:
    path = tmp_path / "baseline.json"
    compare.save_baseline({"a": 1.5}, path, note="--entries 100")
    assert compare.load_baseline(path) == {"a": 1.5}
    assert "--entries 100" in path.read_text()


def test_ratio_to_must_be_one_of_the_implementations(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    """Refused before anything runs or is written: one line, exit status 2."""
    from ctxspec.cli import main  # noqa: PLC0415

    monkeypatch.chdir(tmp_path)
    assert main(["bench", "--impl", "fastengine", "--ratio-to", "pi@0.85.0", "-q"]) == 2
    assert "--ratio-to pi@0.85.0 is not among the implementations" in capsys.readouterr().err
    assert not (tmp_path / "reports").exists()


def test_the_tolerance_has_one_default_the_help_shows(capsys: Any) -> None:
    from ctxspec.cli import main, parser  # noqa: PLC0415

    assert parser().parse_args(["bench"]).tolerance == 0.3
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "below the baseline (0.3)" in " ".join(capsys.readouterr().out.split())
