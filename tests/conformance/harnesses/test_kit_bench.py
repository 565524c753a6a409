"""The agent bench ops of a black box (kit/bench.py): a turn's CLI runs timed, the peak of
their process tree, setup runs left out, and the handlers built from the agent ops."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ctxspec.conformance.harnesses.kit import bench
from ctxspec.conformance.harnesses.kit.cli import run_cli
from ctxspec.reference.errors import InvalidInput

MIB = 1024
HOLD = 64  # MiB each process of the fake CLI touches
# The fake CLI: it touches HOLD MiB, starts a child that touches HOLD MiB too, and holds
# both for a while; `sys.argv[1]` seconds more before it exits.
FAKE = f"""
import subprocess, sys, time
block = bytearray({HOLD} << 20)
for at in range(0, len(block), 4096):
    block[at] = 1
child = subprocess.Popen([sys.executable, "-c", '''
import time
block = bytearray({HOLD} << 20)
for at in range(0, len(block), 4096):
    block[at] = 1
time.sleep(0.4)
'''])
child.wait()
time.sleep(float(sys.argv[1]))
"""


def _fake(tmp_path: Path, rest: float = 0.0) -> None:
    run_cli([sys.executable, "-c", FAKE, str(rest)], cwd=tmp_path, env={}, limit=60)


def _sleep(tmp_path: Path, seconds: float) -> None:
    code = f"import time; time.sleep({seconds})"
    run_cli([sys.executable, "-c", code], cwd=tmp_path, env={}, limit=60)


def test_the_peak_is_the_whole_process_trees(tmp_path: Path) -> None:
    """Parent and child each hold HOLD MiB at once: the peak sees both (no single process
    ever held that much)."""
    result = bench.measured(lambda: _fake(tmp_path))
    assert result["timing"] == "turn"
    assert result["peakKiB"] >= 2 * HOLD * MIB * 0.95
    assert result["peakKiB"] < 6 * HOLD * MIB


def test_elapsed_covers_the_runs_alone(tmp_path: Path) -> None:
    """The time outside the CLI runs is in requestNs, not in elapsedNs."""

    def body() -> str:
        time.sleep(0.5)  # the harness's own setup
        _sleep(tmp_path, 0.2)
        return "answer"

    result = bench.measured(body)
    assert result["answer"] == "answer"
    assert 0.2e9 <= result["elapsedNs"] <= result["requestNs"] - 0.45e9


def test_setup_runs_are_not_measured(tmp_path: Path) -> None:
    def body() -> None:
        with bench.setup():
            _fake(tmp_path, rest=0.5)  # a replay: its memory and time are not the turn's
        _sleep(tmp_path, 0.0)

    result = bench.measured(body)
    assert result["elapsedNs"] < 0.4e9
    assert result["peakKiB"] < HOLD * MIB


def test_discarded_runs_are_not_measured(tmp_path: Path) -> None:
    def body() -> None:
        _fake(tmp_path, rest=0.5)  # a run whose output was lost
        bench.discard()
        _sleep(tmp_path, 0.0)  # the run that answered

    result = bench.measured(body)
    assert result["elapsedNs"] < 0.4e9
    assert result["peakKiB"] < HOLD * MIB


def test_a_request_that_measured_no_run_is_an_error(tmp_path: Path) -> None:
    def body() -> None:
        with bench.setup():
            _sleep(tmp_path, 0.0)

    with pytest.raises(RuntimeError, match="measured no run"):
        bench.measured(body)


def test_outside_a_bench_request_nothing_is_sampled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(pid: int) -> None:
        raise AssertionError("sampled outside a bench request")

    monkeypatch.setattr(bench, "tree_kib", refuse)
    before = threading.active_count()
    _sleep(tmp_path, 0.1)
    assert threading.active_count() == before


def _handlers(tmp_path: Path, seen: dict[str, Any]) -> dict[str, bench.Handler]:
    """An agent's handlers that lay out the output file and run the fake CLI."""

    def tool_output(args: dict[str, Any]) -> dict[str, Any]:
        target = tmp_path / f"out-{len(seen)}.txt"
        bench.write_output(target, args["content"], lambda text: text.encode("utf-8"))
        seen[str(target)] = args
        _sleep(tmp_path, 0.0)
        return {"content": "é" + args["content"][:3], "saved": args["content"] or None}

    def instructions(args: dict[str, Any]) -> dict[str, Any]:
        _sleep(tmp_path, 0.0)
        return {"text": "ü" * len(args["tree"])}

    return {"agent.tool_output": tool_output, "agent.instructions": instructions}


def test_tool_output_reads_the_file_and_links_it(tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_bytes("line\nzwei ü\n".encode())
    seen: dict[str, Any] = {}
    handlers = bench.bench_handlers(_handlers(tmp_path, seen))
    assert set(handlers) == {"bench.agent_tool_output", "bench.agent_instructions"}
    result = handlers["bench.agent_tool_output"]({"path": str(source), "limit": 5})
    assert result["answer"] == {"modelBytes": 5, "savedBytes": len(source.read_bytes())}
    assert result["timing"] == "turn"
    assert result["elapsedNs"] > 0
    assert result["requestNs"] >= result["elapsedNs"]
    ((target, args),) = seen.items()
    assert args == {"limit": 5, "content": "line\nzwei ü\n"}
    assert Path(target).stat().st_ino == source.stat().st_ino  # the same file, not a copy


def test_tool_output_of_an_empty_file_saves_nothing(tmp_path: Path) -> None:
    source = tmp_path / "empty.txt"
    source.write_bytes(b"")
    handlers = bench.bench_handlers(_handlers(tmp_path, {}))
    result = handlers["bench.agent_tool_output"]({"path": str(source)})
    assert result["answer"] == {"modelBytes": 2, "savedBytes": None}


def test_a_file_that_is_not_utf8_is_written_as_its_decoded_text(tmp_path: Path) -> None:
    source = tmp_path / "bad.txt"
    source.write_bytes(b"a\xffb")
    seen: dict[str, Any] = {}
    bench.bench_handlers(_handlers(tmp_path, seen))["bench.agent_tool_output"](
        {"path": str(source)}
    )
    ((target, _),) = seen.items()
    assert Path(target).read_bytes() == "a\ufffdb".encode()


def test_a_missing_path_is_invalid_input(tmp_path: Path) -> None:
    handlers = bench.bench_handlers(_handlers(tmp_path, {}))
    with pytest.raises(InvalidInput, match="no such file") as error:
        handlers["bench.agent_tool_output"]({"path": str(tmp_path / "nothing.txt")})
    assert error.value.field == "path"
    with pytest.raises(InvalidInput) as error:
        handlers["bench.agent_tool_output"]({})
    assert error.value.field == "path"


def test_instructions_and_compaction_answer_their_figures(tmp_path: Path) -> None:
    result = bench.bench_handlers(_handlers(tmp_path, {}))["bench.agent_instructions"](
        {"tree": {"a": "x", "b": "y"}}
    )
    assert result["answer"] == {"modelBytes": 4}

    def compaction(args: dict[str, Any]) -> dict[str, Any]:
        with bench.setup():
            _sleep(tmp_path, 0.3)  # the history's replay
        _sleep(tmp_path, 0.0)
        return {"compact": True, "keep": 2, "extra": 1}

    handler = bench.bench_handlers({"agent.compaction": compaction})["bench.agent_compaction"]
    result = handler({"messages": []})
    assert result["answer"] == {"compact": True, "keep": 2}
    assert result["elapsedNs"] < 0.25e9 < result["requestNs"]
