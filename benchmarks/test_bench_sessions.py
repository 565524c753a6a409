"""Session helpers on long sessions and deep trees, the reference against Pi in one run.

A session of N entries is one chain (so the tree is N deep) of user / assistant-with-
tool-call / tool-result turns with provider usage on each assistant reply, plus a side
branch leaving the chain at entry 10, so the LCA walk crosses the whole chain. Timed:
`buildSessionContext` (leaf = end of the chain), `estimateContextTokens` of its messages,
`findCutPoint` over all entries (keep 20000), `collectEntriesForBranchSummary` from the
chain's end to the side branch's leaf. Pi is timed inside Node (`pi_sessions.mjs`).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reference.branch import collect_entries_for_branch_summary
from reference.compaction import find_cut_point
from reference.session import build_session_context
from reference.tokens import estimate_context_tokens

HERE = Path(__file__).resolve().parent
SIZES = [int(n) for n in os.environ.get("CTXSPEC_BENCH_SESSION_SIZES", "1000,10000").split(",")]
KEEP = 20000
USAGE = {
    "input": 900,
    "output": 100,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1000,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def make_session(size: int) -> dict[str, Any]:
    entries: list[dict[str, Any]] = []
    parent = None
    for n in range(size):
        kind = n % 3
        if kind == 0:
            message: dict[str, Any] = {
                "role": "user",
                "content": f"step {n}: run the tests",
                "timestamp": n,
            }
        elif kind == 1:
            message = {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "running them"},
                    {
                        "type": "toolCall",
                        "id": f"c{n}",
                        "name": "bash",
                        "arguments": {"command": f"pytest -k case_{n}"},
                    },
                ],
                "provider": "anthropic",
                "model": "m",
                "api": "anthropic-messages",
                "usage": USAGE,
                "stopReason": "toolUse",
                "timestamp": n,
            }
        else:
            message = {
                "role": "toolResult",
                "toolCallId": f"c{n - 1}",
                "toolName": "bash",
                "content": [{"type": "text", "text": "ok\n" * 40}],
                "isError": False,
                "timestamp": n,
            }
        entry_id = f"{n:08x}"
        entries.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-12-02T00:00:00.000Z",
                "message": message,
            }
        )
        parent = entry_id
    side = {
        "type": "message",
        "id": "side0001",
        "parentId": entries[10]["id"],
        "timestamp": "2026-12-02T00:00:00.000Z",
        "message": {"role": "user", "content": "another way", "timestamp": 0},
    }
    entries.append(side)
    return {
        "entries": entries,
        "leafId": entries[-2]["id"],
        "otherLeafId": side["id"],
        "keepRecentTokens": KEEP,
    }


@pytest.fixture(scope="module", params=SIZES, ids=lambda n: f"{n}-entries")
def session(request: pytest.FixtureRequest) -> dict[str, Any]:
    return make_session(request.param)


def test_reference_build_session_context(benchmark: Any, session: dict[str, Any]) -> None:
    context = benchmark(build_session_context, session["entries"], session["leafId"])
    assert len(context.messages) == len(session["entries"]) - 1


def test_reference_estimate_context_tokens(benchmark: Any, session: dict[str, Any]) -> None:
    messages = build_session_context(session["entries"], session["leafId"]).messages
    assert benchmark(estimate_context_tokens, messages).tokens > 0


def test_reference_find_cut_point(benchmark: Any, session: dict[str, Any]) -> None:
    entries = session["entries"]
    benchmark(find_cut_point, entries, 0, len(entries), KEEP)


def test_reference_collect_entries_for_branch_summary(
    benchmark: Any, session: dict[str, Any]
) -> None:
    found = benchmark(
        collect_entries_for_branch_summary,
        session["entries"],
        session["leafId"],
        session["otherLeafId"],
    )
    assert len(found.entries) == len(session["entries"]) - 12


def test_pi_session_helpers(benchmark: Any, session: dict[str, Any], tmp_path: Path) -> None:
    pi = pytest.importorskip("conformance.adapters.pi")
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
    assert report["check"]["collected"] == len(session["entries"]) - 12
