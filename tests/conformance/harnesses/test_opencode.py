"""opencode 1.18.33 as a black-box implementation: its install, hello, and its real answers.

The class marked `slow` starts the opencode CLI (about 6 s a run); the rest check the
install's lock, the arguments refused before opencode starts, and how a history becomes
opencode turns (`compaction.py`).
"""

from __future__ import annotations

import json
import re
from typing import Any

import agent_bench
import pytest

from ctxspec.conformance.harnesses import opencode
from ctxspec.conformance.harnesses.kit.jsonlines import Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Text, ToolCall
from ctxspec.conformance.harnesses.opencode import compaction, instructions, tool_output
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.named import InstallError, parse_named
from ctxspec.reference.errors import InvalidInput

SPEC = "opencode@1.18.33"  # the `impl` fixture (conftest.py) starts it
VERSION = "1.18.33"
CUT = re.compile(
    r"\.\.\.output truncated\.\.\.\n\nFull output saved to: "
    r"/home/\.local/share/opencode/tool-output/tool_\w+\n\n(?P<tail>.*)",
    re.DOTALL,
)
_PLACE: dict[str, Any] = {"tree": {}, "cwd": "/", "home": "/h"}
_USER = {"role": "user", "text": "a"}
_TOOL = {"role": "tool", "text": "b"}
_SUMMARY: dict[str, Any] = {
    "messages": [_USER],
    "window": 9000,
    "summary": "s",
    "stopReason": "stop",
}


def _result(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    reply = impl.call(op, args)
    assert reply.error is None, reply.error
    return reply.result


class TestInstall:
    """The committed lock, the family's name, and what is refused before anything runs."""

    def test_the_lock_pins_opencode_and_its_binary(self) -> None:
        files = opencode.package_files()
        assert json.loads(files["package.json"])["dependencies"] == {"opencode-ai": VERSION}
        packages = json.loads(files["package-lock.json"])["packages"]
        for name in ("opencode-ai", "opencode-linux-x64"):
            assert packages[f"node_modules/{name}"]["version"] == VERSION
            assert packages[f"node_modules/{name}"]["integrity"].startswith("sha512-")

    def test_name_resolves_to_this_module(self) -> None:
        spec = parse_named(SPEC)
        assert spec is not None
        assert spec.family.module == opencode.__name__
        assert parse_named("opencode") == spec  # the default version

    def test_another_version_is_refused(self) -> None:
        with pytest.raises(InstallError, match=VERSION):
            opencode.install("1.18.32", quiet=True)

    @pytest.mark.parametrize(
        ("handler", "args", "field"),
        [
            (instructions.instructions, {**_PLACE, "cwd": "ws"}, "cwd"),
            (instructions.instructions, {**_PLACE, "home": 3}, "home"),
            (tool_output.tool_output, {"content": 3}, "content"),
            (tool_output.tool_output, {"content": "x", "limit": -1}, "limit"),
            (tool_output.tool_output, {"content": "x", "limit": 1.5}, "limit"),
            (compaction.compaction, {"messages": [], "window": 9000}, "messages"),
            (compaction.compaction, {"messages": [_USER], "window": 0}, "window"),
            (compaction.compaction, {"messages": [_USER], "window": 9000, "usage": -1}, "usage"),
            (compaction.compaction, {"messages": [_USER, _TOOL], "window": 9000}, "messages"),
            (compaction.summary, {**_SUMMARY, "stopReason": "x"}, "stopReason"),
            (compaction.summary, {**_SUMMARY, "summary": ""}, "summary"),
        ],
    )
    def test_bad_input_is_named_before_opencode_runs(
        self, handler: Any, args: dict[str, Any], field: str
    ) -> None:
        with pytest.raises(InvalidInput) as raised:
            handler(args)
        assert raised.value.field == field

    @pytest.mark.parametrize(
        "args",
        [
            {"messages": [{"role": "assistant", "text": "a"}], "window": 9000},
            {"messages": [{"role": "user", "text": " \n"}], "window": 9000},
            {"messages": [_USER], "window": 4000},
        ],
    )
    def test_histories_opencode_cannot_hold_are_unsupported(self, args: dict[str, Any]) -> None:
        with pytest.raises(Unsupported):
            compaction.compaction(args)


class TestReplayPlan:
    """How a history becomes opencode turns and scripted answers (no opencode needed)."""

    def test_turns_answers_and_fillers(self) -> None:
        """A tool call ends an answer; a turn left waiting gets an `ok`; a user message
        starts the next turn."""
        turns = compaction._turns(
            [
                {"role": "user", "text": "u1"},
                {"role": "assistant", "text": "a1"},
                {"role": "assistant", "text": "a2", "toolCall": True},
                {"role": "tool", "text": "t2"},
                {"role": "user", "text": "u2"},
                {"role": "user", "text": "u3"},
            ]
        )
        assert [turn.prompt for turn in turns] == ["u1", "u2", "u3"]
        first = turns[0].answers
        assert [[type(part).__name__ for part in answer] for answer in first] == [
            ["Text", "Text", "ToolCall"],
            ["Text"],
        ]
        call = first[0][2]
        assert isinstance(call, ToolCall)
        assert call.name == "bash" and call.arguments["command"] == "cat tool-2.txt"
        assert first[1] == [Text(compaction.FILLER)]
        assert turns[1].answers == [[Text("ok")]]
        assert turns[2].answers == []

    def test_keep_is_the_first_message_from_which_all_reach_the_request(self) -> None:
        messages: list[dict[str, Any]] = [
            {"role": "user", "text": "u1"},
            {"role": "assistant", "text": "a1", "toolCall": True},
            {"role": "tool", "text": "t1"},
            {"role": "user", "text": "u2"},
            {"role": "assistant", "text": "a2"},
        ]
        request = {
            "messages": [
                {"role": "user", "content": "u1"},
                {"role": "assistant", "content": "summary"},
                {"role": "user", "content": [{"type": "text", "text": "u2"}]},
                {"role": "assistant", "content": "a2"},
            ]
        }
        kept = [compaction._kept(i, m, request) for i, m in enumerate(messages)]
        assert kept == [True, False, False, True, True]

    def test_the_summary_request_is_recognised_by_opencode_s_prompt(self) -> None:
        prompt = f"{compaction.SUMMARY_PROMPT}\n\n<conversation>\n[User]: u\n</conversation>"
        asked = {"messages": [{"role": "user", "content": prompt}]}
        assert compaction._is_summary_request(asked)
        assert not compaction._is_summary_request({**asked, "tools": [{"type": "function"}]})
        assert not compaction._is_summary_request({"messages": [{"role": "user", "content": "u"}]})


@pytest.mark.slow
class TestOpencode:
    """opencode's own answers, one run of the CLI each."""

    def test_hello_lists_the_ops(self, impl: Implementation) -> None:
        impl.call("agent.tool_output", {"content": "x", "tool": "read"})  # starts it
        assert impl.hello["implementation"] == {
            "name": "opencode",
            "version": VERSION,
            "language": "typescript",
        }
        assert set(impl.hello["ops"]) == {
            "agent.compaction",
            "agent.instructions",
            "agent.summary",
            "agent.tool_output",
            "bench.agent_compaction",
            "bench.agent_instructions",
            "bench.agent_tool_output",
        }

    def test_bench_tool_output_times_the_turn(self, impl: Implementation) -> None:
        agent_bench.tool_output(impl)

    def test_bench_instructions_times_the_run(self, impl: Implementation) -> None:
        agent_bench.instructions(impl, "AGENTS.md")

    def test_bench_compaction_times_the_last_turn(self, impl: Implementation) -> None:
        """The first turn is replayed as setup; the answer is agent.compaction's."""
        assert agent_bench.compaction(impl, 100_000, 96_000) == {"compact": True, "keep": 5}

    def test_tool_output_keeps_the_tail_under_a_header(self, impl: Implementation) -> None:
        """max_bytes 100 over two 300-byte lines: the last 100 bytes, the whole saved."""
        content = "a" * 300 + "\n" + "b" * 300
        result = _result(impl, "agent.tool_output", {"content": content, "limit": 100})
        cut = CUT.fullmatch(result["content"])
        assert cut is not None, result["content"]
        assert cut["tail"] == "b" * 100
        assert result["saved"] == content

    def test_instructions_a_claude_md_is_dropped_by_an_agents_md(
        self, impl: Implementation
    ) -> None:
        tree = {
            "home/.config/opencode/AGENTS.md": "GLOBAL",
            "ws/p/.git/": {},
            "ws/p/AGENTS.md": "ROOT",
            "ws/p/mid/CLAUDE.md": "MID",
            "ws/p/mid/sub/AGENTS.md": "SUB",
            "ws/AGENTS.md": "ABOVE THE GIT ROOT",
        }
        args = {"tree": tree, "cwd": "/ws/p/mid/sub", "home": "/home"}
        assert _result(impl, "agent.instructions", args)["text"] == (
            "Instructions from: /home/.config/opencode/AGENTS.md\nGLOBAL\n"
            "Instructions from: /ws/p/mid/sub/AGENTS.md\nSUB\n"
            "Instructions from: /ws/p/AGENTS.md\nROOT"
        )

    def test_compaction_at_the_window_less_the_output_limit(self, impl: Implementation) -> None:
        """limit.context 100,000, limit.output 4,000: compacts from 96,000 reported tokens,
        here mid-turn, after a tool result; none of three short messages is kept."""
        messages: list[dict[str, Any]] = [
            {"role": "user", "text": "fix the test"},
            {"role": "assistant", "text": "looking", "toolCall": True},
            {"role": "tool", "text": "FAIL"},
        ]
        at = {"messages": messages, "window": 100_000, "usage": 96_000}
        assert _result(impl, "agent.compaction", at) == {"compact": True, "keep": 3}
        under = {**at, "usage": 95_999}
        assert _result(impl, "agent.compaction", under) == {"compact": False, "keep": None}

    def test_a_summary_cut_at_the_limit_is_used(self, impl: Implementation) -> None:
        messages = [{"role": "user", "text": "fix"}, {"role": "assistant", "text": "fixed"}]
        args = {"messages": messages, "window": 100_000, "usage": 96_000, "summary": "S."}
        assert _result(impl, "agent.summary", {**args, "stopReason": "length"}) == {
            "accepted": True
        }
