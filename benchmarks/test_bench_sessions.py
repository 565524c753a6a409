"""Session helpers on long sessions and deep trees, under pytest-benchmark.

The session is `session_figures.make_session` (one chain of N entries, so the tree is N
deep, plus a side branch at entry 10). Timed: `build_session_context`,
`estimate_context_tokens`, `find_cut_point`, `prepare_compaction`,
`collect_entries_for_branch_summary` and `navigate_tree` (on a `RunTree`, as Pi's on
its `SessionManager`), all the fast engine's (`fastengine`, named `reference` in the test
names as ctxspec's engine), and Pi's same helpers inside Node (`pi_sessions.mjs`, medians of 5
rounds). Sizes: `CTXSPEC_BENCH_SESSION_SIZES` (default 1000,10000). The reference-against-
Pi ratios with interleaved rounds, and the 1M-entry sizes, come from `session_figures.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from session_figures import make_session, reference_check, reference_helpers

from fastengine import RunTree, build_session_path

HERE = Path(__file__).resolve().parent
SIZES = [int(n) for n in os.environ.get("CTXSPEC_BENCH_SESSION_SIZES", "1000,10000").split(",")]


@pytest.fixture(scope="module", params=SIZES, ids=lambda n: f"{n}-entries")
def session(request: pytest.FixtureRequest) -> dict[str, Any]:
    return make_session(request.param)


@pytest.fixture(scope="module")
def helpers(session: dict[str, Any]) -> dict[str, Any]:
    return reference_helpers(session)


def test_reference_build_session_context(
    benchmark: Any, helpers: dict[str, Any], session: dict[str, Any]
) -> None:
    context = benchmark(helpers["build_session_context"])
    assert len(context.messages) == len(session["entries"]) - 1


def test_reference_estimate_context_tokens(benchmark: Any, helpers: dict[str, Any]) -> None:
    helpers["build_session_context"]()
    assert benchmark(helpers["estimate_context_tokens"]).tokens > 0


def test_reference_find_cut_point(benchmark: Any, helpers: dict[str, Any]) -> None:
    assert benchmark(helpers["find_cut_point"]).first_kept_entry_index >= 0


def test_reference_prepare_compaction(
    benchmark: Any, helpers: dict[str, Any], session: dict[str, Any]
) -> None:
    prepared = benchmark(helpers["prepare_compaction"])
    path = build_session_path(RunTree.of(session["entries"]), session["leafId"])
    assert prepared is None or prepared.first_kept_entry_id in {e["id"] for e in path}


def test_reference_collect_entries_for_branch_summary(
    benchmark: Any, helpers: dict[str, Any], session: dict[str, Any]
) -> None:
    found = benchmark(helpers["collect_entries_for_branch_summary"])
    assert len(found.entries) == len(session["entries"]) - 12


def test_reference_navigate_tree(benchmark: Any, helpers: dict[str, Any]) -> None:
    result, context = benchmark(helpers["navigate_tree"])
    assert result.editor_text == "another way" and len(context.messages) == 11


def test_pi_session_helpers(benchmark: Any, session: dict[str, Any], tmp_path: Path) -> None:
    pi = pytest.importorskip("conformance.harnesses.pi")
    try:
        install = pi.ensure_installed(quiet=True)
    except pi.PiInstallError as error:
        pytest.skip(f"Pi 0.85.0 unavailable: {error}")
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session))
    argv = [
        str(install.node),
        str(HERE / "pi_sessions.mjs"),
        str(install.package_dir),
        str(path),
        "5",
    ]

    def run() -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(
            subprocess.run(argv, capture_output=True, check=True).stdout
        )
        return loaded

    report = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update({f"pi_{k}_median_ns": v for k, v in report.items() if k != "check"})
    helpers = reference_helpers(session)
    assert report["check"] == reference_check({name: run() for name, run in helpers.items()})
