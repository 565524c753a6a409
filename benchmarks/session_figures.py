"""Session helpers, the fast engine against Pi 0.85.0 in one run, rounds interleaved.

    python benchmarks/session_figures.py [--sizes 1000,10000,100000] [--rounds 7] [--json FILE]

A session of N entries (`make_session`) is one chain, so the tree is N deep, of user /
assistant-with-tool-call / tool-result turns with provider usage on each reply, plus a
side branch leaving the chain at entry 10, so the LCA walk crosses the whole chain. It is
written once as JSON under `.cache/bench/` (git-ignored); the reference reads that file
with `json.loads` and Pi with `JSON.parse`, so both time the same input.

Timed (setup such as building the session's index or the AgentSession kept out):
`build_session_context` of the chain's end, `estimate_context_tokens` of its messages,
`find_cut_point` over all entries (keep 20000), `prepare_compaction` of the chain's path,
`collect_entries_for_branch_summary` from the chain's end to the side leaf (on a
`SessionTree`, as Pi's on its `SessionManager`), and `navigate_tree` there without a
summary, its context included (Pi's `navigateTree` rebuilds the agent's messages).

Pi runs in one Node process (`pi_sessions.mjs --serve`) beside this one. Each round calls
every helper once in each implementation, the two taking turns to go first, so both see
the same state of a shared machine; a figure is the median over the rounds and a ratio is
Pi's median over the reference's (higher is better for the reference). Before timing,
every answer is checked against Pi's (a fast wrong answer stops the run).

The engine raced is `fastengine` (docs/fast-engine.md); `reference/` is the oracle it is
checked against, not the one timed. The labels keep the name `reference` (the figures'
and the baseline's keys), which here means ctxspec's engine, the fast one.

`--json` writes `{"sizes", "rounds", "sessionsMs", "ratios"}`: `sessionsMs` maps
`"reference <helper>"` and `"Pi <helper in camelCase>"` to `{entries: median ms}` (the
shape `compare.ratios` and the report's scaling plot read), `ratios` maps
`"sessions <N>: <helper> reference / Pi"` to Pi's median over the reference's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from conformance.harnesses import pi as pi_adapter
from fastengine import (
    RunTree,
    build_session_context,
    build_session_path,
    collect_entries_for_branch_summary,
    find_cut_point,
    navigate_tree,
    prepare_compaction,
)
from reference.compaction import CompactionSettings
from reference.tokens import estimate_context_tokens

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".cache" / "bench"
DEFAULT_SIZES = (1000, 10000, 100000)
KEEP = 20000
USAGE = {
    "input": 900,
    "output": 100,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1000,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}
# the reference's helper -> Pi's (the camelCase of the same name)
HELPERS = {
    "build_session_context": "buildSessionContext",
    "estimate_context_tokens": "estimateContextTokens",
    "find_cut_point": "findCutPoint",
    "prepare_compaction": "prepareCompaction",
    "collect_entries_for_branch_summary": "collectEntriesForBranchSummary",
    "navigate_tree": "navigateTree",
}


def make_session(size: int) -> dict[str, Any]:
    """The benchmark session of `size` chain entries plus one side entry (see the docstring)."""
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


def session_file(size: int, cache: Path = CACHE) -> Path:
    """The session of `size` entries as JSON in the cache, written on first use."""
    path = cache / f"session-{size}.json"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps(make_session(size)), "utf-8")
        partial.replace(path)
    return path


def reference_helpers(session: Mapping[str, Any]) -> dict[str, Callable[[], Any]]:
    """One call of each timed helper, by the reference's name (setup done here)."""
    entries = session["entries"]
    leaf, other, keep = session["leafId"], session["otherLeafId"], session["keepRecentTokens"]
    tree = RunTree.of(entries)
    path = build_session_path(tree, leaf)
    settings = CompactionSettings(keep_recent_tokens=keep)
    last: dict[str, Any] = {}

    def context() -> Any:
        last["context"] = build_session_context(entries, leaf)
        return last["context"]

    def navigate() -> Any:
        result = navigate_tree(tree, leaf, other, new_ids=iter(()), timestamp="")
        return result, result.context()

    return {
        "build_session_context": context,
        "estimate_context_tokens": lambda: estimate_context_tokens(last["context"].messages),
        "find_cut_point": lambda: find_cut_point(entries, 0, len(entries), keep),
        "prepare_compaction": lambda: prepare_compaction(path, settings),
        "collect_entries_for_branch_summary": lambda: collect_entries_for_branch_summary(
            tree, leaf, other
        ),
        "navigate_tree": navigate,
    }


def reference_check(answers: Mapping[str, Any]) -> dict[str, Any]:
    """The reference's answers in the shape of `pi_sessions.mjs`'s `check`."""
    prepared = answers["prepare_compaction"]
    navigation, _ = answers["navigate_tree"]
    return {
        "messages": len(answers["build_session_context"].messages),
        "tokens": answers["estimate_context_tokens"].tokens,
        "firstKept": answers["find_cut_point"].first_kept_entry_index,
        "prepared": prepared
        and {
            "firstKeptEntryId": prepared.first_kept_entry_id,
            "summarized": len(prepared.messages_to_summarize),
            "tokensBefore": prepared.tokens_before,
        },
        "collected": len(answers["collect_entries_for_branch_summary"].entries),
        "navigated": {"leafId": navigation.leaf_id, "editorText": navigation.editor_text},
    }


class PiSessions:
    """Pi's helpers in a Node process that times one round per request."""

    def __init__(self, node: Path, package_dir: Path, session: Path) -> None:
        self._process = subprocess.Popen(
            [
                str(node),
                "--max-old-space-size=16384",
                str(HERE / "pi_sessions.mjs"),
                *(str(package_dir), str(session), "--serve"),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.check: dict[str, Any] = self._answer()["ready"]

    def _answer(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"pi_sessions.mjs ended (exit status {self._process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def round(self) -> dict[str, int]:
        """Nanoseconds per helper (Pi's names) of one call each."""
        assert self._process.stdin is not None
        self._process.stdin.write("round\n")
        self._process.stdin.flush()
        return self._answer()

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait()


def reference_round(helpers: Mapping[str, Callable[[], Any]]) -> dict[str, int]:
    """Nanoseconds per helper (the reference's names) of one call each."""
    out = {}
    for name, run in helpers.items():
        start = time.perf_counter_ns()
        run()
        out[name] = time.perf_counter_ns() - start
    return out


def measure(
    size: int, rounds: int, pi: tuple[Path, Path] | None, cache: Path = CACHE
) -> dict[str, float]:
    """Median ms per series (`"reference <helper>"`, `"Pi <helper>"`) for one size."""
    path = session_file(size, cache)
    session = json.loads(path.read_text("utf-8"))
    helpers = reference_helpers(session)
    answers = {name: run() for name, run in helpers.items()}
    mine = reference_check(answers)
    node = PiSessions(*pi, path) if pi is not None else None
    try:
        if node is not None and node.check != mine:
            raise RuntimeError(f"{size} entries: Pi answered {node.check}, the reference {mine}")
        samples: dict[str, list[int]] = {}

        def pi_round() -> dict[str, int]:
            assert node is not None
            return {f"Pi {k}": v for k, v in node.round().items()}

        for number in range(rounds):
            order: list[Callable[[], dict[str, int]]] = [lambda: reference_round(helpers)]
            if node is not None:
                order.append(pi_round)
                if number % 2:
                    order.reverse()
            for run in order:
                for name, ns in run().items():
                    label = name if name.startswith("Pi ") else f"reference {name}"
                    samples.setdefault(label, []).append(ns)
    finally:
        if node is not None:
            node.close()
    return {label: statistics.median(ns) / 1e6 for label, ns in samples.items()}


def ratios(series: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """`"sessions <N>: <helper> reference / Pi"` -> Pi's median ms over the reference's."""
    out = {}
    for mine, theirs in HELPERS.items():
        for size, ms in series.get(f"reference {mine}", {}).items():
            pi = series.get(f"Pi {theirs}", {}).get(size)
            if pi and ms:
                out[f"sessions {size}: {mine} reference / Pi"] = pi / ms
    return out


def figures(
    sizes: list[int], rounds: int, pi: tuple[Path, Path] | None, cache: Path = CACHE
) -> dict[str, Any]:
    """Every size's medians, as `--json` writes them."""
    series: dict[str, dict[str, float]] = {}
    for size in sizes:
        for label, ms in measure(size, rounds, pi, cache).items():
            series.setdefault(label, {})[str(size)] = ms
    return {"sizes": sizes, "rounds": rounds, "sessionsMs": series, "ratios": ratios(series)}


def table(result: Mapping[str, Any]) -> str:
    """A Markdown table: median ms of each helper, reference and Pi, and the ratio."""
    series, found = result["sessionsMs"], result["ratios"]
    lines = [
        "| entries | helper | reference ms | Pi ms | Pi / reference |",
        "|---|---|---|---|---|",
    ]
    for size in result["sizes"]:
        for mine, theirs in HELPERS.items():
            ours = series.get(f"reference {mine}", {}).get(str(size))
            pi = series.get(f"Pi {theirs}", {}).get(str(size))
            ratio = found.get(f"sessions {size}: {mine} reference / Pi")
            cells = ["–" if v is None else f"{v:.3g}" for v in (ours, pi)]
            shown = "–" if ratio is None else f"{ratio:.2f}×"
            lines.append(f"| {size:,} | {mine} | {cells[0]} | {cells[1]} | {shown} |")
    return "\n".join(lines)


def pi_install() -> tuple[Path, Path] | None:
    """(node, package dir) of the cached Pi 0.85.0, or None when it cannot be installed."""
    try:
        install = pi_adapter.ensure_installed(quiet=True)
    except pi_adapter.PiInstallError as error:
        print(f"Pi 0.85.0 unavailable, reference only: {error}", file=sys.stderr)
        return None
    return Path(install.node), Path(install.package_dir)


def main(argv: list[str]) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="session_figures.py")
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", type=Path, help="write the figures here")
    options = parser.parse_args(argv)
    sizes = [int(n) for n in options.sizes.split(",") if n]
    result = figures(sizes, options.rounds, pi_install())
    print(table(result))
    if options.json is not None:
        options.json.write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
