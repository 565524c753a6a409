"""One cheap real call of each agent bench op against a black-box harness (kit/bench.py):
the result's shape, a turn's timing, and a peak that is the agent's (over 10 MiB)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.processes import run_dir

BENCH_OPS = {
    "agent.tool_output": "bench.agent_tool_output",
    "agent.instructions": "bench.agent_instructions",
    "agent.compaction": "bench.agent_compaction",
}


def bench_ops(agent_ops: set[str]) -> set[str]:
    """The bench ops a harness with these agent ops lists."""
    return {BENCH_OPS[op] for op in agent_ops if op in BENCH_OPS}


def timed(impl: Implementation, op: str, args: dict[str, Any]) -> dict[str, Any]:
    """`op`'s result, checked as a turn's figure; its answer."""
    reply = impl.call(op, args)
    assert reply.error is None, reply.error
    result = reply.result
    assert set(result) == {"answer", "elapsedNs", "requestNs", "peakKiB", "timing"}
    assert result["timing"] == "turn"
    assert 0 < result["elapsedNs"] <= result["requestNs"]
    assert result["peakKiB"] > 10 * 1024
    answer: dict[str, Any] = result["answer"]
    return answer


def tool_output(impl: Implementation) -> dict[str, Any]:
    """bench.agent_tool_output of a 1 KiB file (16 lines of 64 bytes). The file is in the
    run dir: a confined adapter in namespaces has a private /tmp, where the run dir and
    the install cache stay visible (`transport/confine.py`)."""
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=run_dir()))
    path = folder / "output-1k.txt"
    path.write_text("".join(f"{n:02d}" + "x" * 61 + "\n" for n in range(16)))
    answer = timed(impl, "bench.agent_tool_output", {"path": str(path)})
    assert set(answer) == {"modelBytes", "savedBytes"}
    assert answer["modelBytes"] >= 1000  # the whole output reaches the model (trimmed or not)
    missing = impl.call("bench.agent_tool_output", {"path": str(folder / "none.txt")})
    assert missing.error is not None and missing.error.type == "invalid_input"
    return answer


def instructions(impl: Implementation, agent_file: str) -> dict[str, Any]:
    """bench.agent_instructions of a 3-file tree: a git root holding the agent's own file
    (`agent_file`, relative to it) and two other files."""
    tree = {"ws/p/.git/": {}, f"ws/p/{agent_file}": "Be brief.\n", "ws/p/a.txt": "a\n"}
    tree["ws/p/b.txt"] = "b\n"
    args = {"tree": tree, "cwd": "/ws/p", "home": "/home"}
    answer = timed(impl, "bench.agent_instructions", args)
    assert answer["modelBytes"] >= len("Be brief.")
    return answer


def compaction(impl: Implementation, window: int, usage: int) -> dict[str, Any]:
    """bench.agent_compaction of two turns (the first replayed as setup), the second ending
    on a tool result that reported `usage` of `window`."""
    messages = [
        {"role": "user", "text": "hello"},
        {"role": "assistant", "text": "hi"},
        {"role": "user", "text": "fix the test"},
        {"role": "assistant", "text": "looking", "toolCall": True},
        {"role": "tool", "text": "FAIL"},
    ]
    args = {"messages": messages, "window": window, "usage": usage}
    answer = timed(impl, "bench.agent_compaction", args)
    assert set(answer) == {"compact", "keep"}
    return answer
