"""Pi's agent bench ops (issue 35): each times Pi's own path in process and answers what
Pi's ordinary ops give on the same input (tool.bash, context.discover + prompt.build,
compaction.should + compaction.prepare)."""

from __future__ import annotations

import base64
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxspec.conformance import protocol
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.processes import run_dir
from ctxspec.conformance.transport.resolve import open_implementation

SPEC = "pi@0.85.0"
AGENT_BENCH_OPS = ("bench.agent_compaction", "bench.agent_instructions", "bench.agent_tool_output")
# the name Pi gives its full-output file under the system temp dir: 16 hex digits
SAVED_NAME = "/tmp/pi-bash-0123456789abcdef.log"


@pytest.fixture(scope="module")
def pi() -> Iterator[Implementation]:
    """Pi 0.85.0's adapter, the agent bench ops in its hello."""
    implementation = open_implementation(SPEC)
    try:
        assert set(AGENT_BENCH_OPS) <= set(implementation.hello["ops"])
        assert set(AGENT_BENCH_OPS) <= set(protocol.OPS)
        yield implementation
    finally:
        implementation.close()


@pytest.fixture(scope="module")
def folder() -> Path:
    """Where the bench input files lie: the run dir, which the confined adapter sees."""
    return Path(tempfile.mkdtemp(dir=run_dir()))


def answer(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    reply = impl.call(op, args)
    assert reply.error is None, reply.error
    return reply.result


def timed(impl: Implementation, op: str, args: dict[str, Any]) -> dict[str, Any]:
    """The bench op's result, in the extension's timing shape, and its answer."""
    result = answer(impl, op, args)
    assert set(result) == {"answer", "elapsedNs", "requestNs", "peakKiB", "setupPeakKiB", "timing"}
    assert 0 < result["setupPeakKiB"] <= result["peakKiB"]
    assert result["timing"] == "in-process"
    assert 0 < result["elapsedNs"] <= result["requestNs"]
    assert isinstance(result["peakKiB"], int) and result["peakKiB"] > 0
    answered: dict[str, Any] = result["answer"]
    return answered


@pytest.mark.parametrize(
    ("lines", "saved"), [(0, False), (10, False), (3000, True)], ids=["empty", "short", "truncated"]
)
def test_tool_output_is_pis_bash_tool_result(
    pi: Implementation, folder: Path, lines: int, saved: bool
) -> None:
    """The result text's bytes and the saved file's are tool.bash's on the same bytes."""
    data = "".join(f"line {i} of the output\n" for i in range(lines)).encode()
    path = folder / f"output-{lines}.txt"
    path.write_bytes(data)
    got = timed(pi, "bench.agent_tool_output", {"path": str(path)})
    bash = answer(pi, "tool.bash", {"chunksB64": [base64.b64encode(data).decode()]})
    text = bash["text"].replace("<fullOutputPath>", SAVED_NAME)
    assert got == {
        "modelBytes": len(text.encode()),
        "savedBytes": bash["persistedBytes"] if saved else None,
    }
    assert bash["persisted"] is saved


def test_tool_output_refusals(pi: Implementation, folder: Path) -> None:
    """Pi's tools take no output limit; a missing file is invalid input naming `path`."""
    path = folder / "small.txt"
    path.write_text("x\n")
    limited = pi.call("bench.agent_tool_output", {"path": str(path), "limit": 100})
    assert limited.error is not None and limited.error.type == "unsupported"
    missing = pi.call("bench.agent_tool_output", {"path": str(folder / "absent.txt")})
    assert missing.error is not None and missing.error.type == "invalid_input"
    assert missing.error.field == "path"
    assert "no such file" in missing.error.message


def test_tool_output_read_tool(pi: Implementation, folder: Path) -> None:
    """`tool: read` is Pi's read tool on the file, which saves nothing."""
    path = folder / "read.txt"
    path.write_text("alpha\nbeta\n")
    got = timed(pi, "bench.agent_tool_output", {"path": str(path), "tool": "read"})
    read = answer(pi, "tool.read", {"tree": {"f.txt": "alpha\nbeta\n"}, "path": "/f.txt"})
    assert got == {"modelBytes": len(read["text"].encode()), "savedBytes": None}


TREE = {
    "home/u/.pi/agent/AGENTS.md": "global rule\n",
    "ws/AGENTS.md": "workspace rule\n",
    "ws/repo/CLAUDE.md": "repo rule\n",
    "ws/repo/src/notes.txt": "not an instruction file\n",
}


@pytest.mark.parametrize("trust", [None, "trusted", "untrusted"])
def test_instructions_are_the_prompts_project_context(
    pi: Implementation, trust: str | None
) -> None:
    """The bytes of the <project_context> section prompt.build makes of context.discover's
    files; Pi loads its context files whatever the project's trust."""
    args = {"tree": TREE, "cwd": "/ws/repo/src", "home": "/home/u", "trust": trust}
    got = timed(pi, "bench.agent_instructions", args)
    found = answer(
        pi,
        "context.discover",
        {"tree": TREE, "cwd": "/ws/repo/src", "agentDir": "/home/u/.pi/agent"},
    )
    assert [f["path"] for f in found["agentsFiles"]] == [
        "/home/u/.pi/agent/AGENTS.md",
        "/ws/AGENTS.md",
        "/ws/repo/CLAUDE.md",
    ]
    prompt = answer(
        pi, "prompt.build", {"cwd": "/ws/repo/src", "contextFiles": found["agentsFiles"]}
    )
    start = prompt.index("<project_context>")
    end = prompt.rindex("</project_context>") + len("</project_context>")
    assert got == {"modelBytes": len(prompt[start:end].encode())}


def test_instructions_without_files_and_with_a_budget(pi: Implementation) -> None:
    """No context file: no section; Pi has no instruction budget."""
    args: dict[str, Any] = {"tree": {"ws/a.txt": "a"}, "cwd": "/ws", "home": "/home/u"}
    assert timed(pi, "bench.agent_instructions", args) == {"modelBytes": 0}
    refused = pi.call("bench.agent_instructions", {**args, "budget": 1000})
    assert refused.error is not None and refused.error.type == "unsupported"


def history(turns: int) -> list[dict[str, Any]]:
    """Agent messages: a user prompt, a tool call, its result and a reply per turn."""
    messages: list[dict[str, Any]] = []
    for turn in range(turns):
        messages += [
            {"role": "user", "text": f"turn {turn}: " + "u" * 4000},
            {"role": "assistant", "text": f"cat f{turn}.txt", "toolCall": True},
            {"role": "tool", "text": "t" * 8000},
            {"role": "assistant", "text": "a" * 2000},
        ]
    return messages


def pi_entries(messages: list[dict[str, Any]], usage: int | None) -> list[dict[str, Any]]:
    """The same messages as Pi session entries, as the adapter converts them."""
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    entries, call = [], 0
    for i, m in enumerate(messages):
        message: dict[str, Any]
        if m["role"] == "user":
            message = {"role": "user", "content": [{"type": "text", "text": m["text"]}]}
        elif m["role"] == "tool":
            message = {
                "role": "toolResult",
                "toolCallId": f"call-{call}",
                "toolName": "bash",
                "content": [{"type": "text", "text": m["text"]}],
                "isError": False,
            }
        else:
            cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
            tokens = usage if usage is not None and i == last else 0
            content: list[dict[str, Any]] = [{"type": "text", "text": m["text"]}]
            if m.get("toolCall"):
                call += 1
                content = [
                    {
                        "type": "toolCall",
                        "id": f"call-{call}",
                        "name": "bash",
                        "arguments": {"command": m["text"]},
                    },
                ]
            message = {
                "role": "assistant",
                "content": content,
                "api": "scripted",
                "provider": "scripted",
                "model": "scripted",
                "usage": {**zero, "input": tokens, "totalTokens": tokens, "cost": cost},
                "stopReason": "toolUse" if m.get("toolCall") else "stop",
            }
        message["timestamp"] = i + 1
        entries.append(
            {
                "type": "message",
                "id": f"m{i}",
                "parentId": f"m{i - 1}" if i else None,
                "timestamp": "1970-01-01T00:00:00.001Z",
                "message": message,
            }
        )
    return entries


@pytest.mark.parametrize(
    ("turns", "window", "usage", "compacts"),
    [
        (3, 200_000, None, False),
        (12, 40_000, None, True),
        (12, 200_000, 190_000, True),
        (2, 40_000, 30_000, False),
        (2, 200_000, 30_000, False),
    ],
    ids=["below", "estimated-above", "usage-above", "usage-above-nothing-to-cut", "usage-below"],
)
def test_compaction_is_pis_decision_and_cut_point(
    pi: Implementation, turns: int, window: int, usage: int | None, compacts: bool
) -> None:
    """compact is compaction.should's answer on Pi's messages when compaction.prepare has
    something to summarize (Pi does not compact without), keep the index of the entry it
    keeps first."""
    messages = history(turns)
    got = timed(
        pi, "bench.agent_compaction", {"messages": messages, "window": window, "usage": usage}
    )
    assert got["compact"] is compacts
    entries = pi_entries(messages, usage)
    should = answer(
        pi,
        "compaction.should",
        {"messages": [e["message"] for e in entries], "contextWindow": window},
    )
    if not should["shouldCompact"]:
        assert got == {"compact": False, "keep": None}
        return
    prepared = answer(pi, "compaction.prepare", {"entries": entries})
    if prepared is None:
        assert got == {"compact": False, "keep": None}
        return
    ids = [e["id"] for e in entries]
    assert got == {"compact": True, "keep": ids.index(prepared["firstKeptEntryId"])}
    assert 0 < got["keep"] < len(messages)
