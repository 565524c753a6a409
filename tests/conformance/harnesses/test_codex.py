"""Codex 0.171.0 as a black-box implementation: its install, hello, and its real answers.

The classes marked `slow` start the Codex CLI (about 1 s a run); the rest check the
install's lock and the arguments refused before Codex starts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import agent_bench
import pytest

from ctxspec.conformance.harnesses import codex
from ctxspec.conformance.harnesses.codex import compaction, instructions, sessions, tool_output
from ctxspec.conformance.harnesses.kit.model_script import Text, ToolCall
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.cache import STAMP, cache_root
from ctxspec.conformance.transport.named import InstallError, parse_named
from ctxspec.reference.errors import InvalidInput

SPEC = "codex@0.171.0"  # the `impl` fixture (conftest.py) starts it
VERSION = "0.171.0"
HEADER = r"Chunk ID: [0-9a-f]+\nWall time: [\d.]+ seconds\nProcess exited with code 0\n"
CUT = re.compile(
    HEADER + r"Original token count: (?P<total>\d+)\nOutput:\n"
    r"Warning: truncated output \(original token count: \d+\)\nTotal output lines: \d+\n\n"
    r"(?P<head>.*)…(?P<omitted>\d+) tokens truncated…(?P<tail>.*)",
    re.DOTALL,
)


_PLACE: dict[str, Any] = {"tree": {}, "cwd": "/", "home": "/h"}
_USER = {"role": "user", "text": "a"}
_TOOL = {"role": "tool", "text": "b"}
_SUMMARY: dict[str, Any] = {"messages": [_USER], "window": 9, "summary": "s", "stopReason": "stop"}


def _result(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    reply = impl.call(op, args)
    assert reply.error is None, reply.error
    return reply.result


class TestInstall:
    """The committed lock, the family's name, and what is refused before anything runs."""

    def test_the_lock_pins_codex_and_its_binary(self) -> None:
        """The manifest asks for exactly 0.171.0; the lock has the launcher's and the
        Linux binary's integrity hashes."""
        files = codex.package_files()
        assert json.loads(files["package.json"])["dependencies"] == {"@openai/codex": VERSION}
        packages = json.loads(files["package-lock.json"])["packages"]
        for name in ("@openai/codex", "@openai/codex-linux-x64"):
            assert packages[f"node_modules/{name}"]["integrity"].startswith("sha512-")
        assert packages["node_modules/@openai/codex-linux-x64"]["version"] == f"{VERSION}-linux-x64"

    def test_name_resolves_to_this_module(self) -> None:
        spec = parse_named(SPEC)
        assert spec is not None
        assert spec.family.module == codex.__name__
        assert parse_named("codex") == spec  # the default version

    def test_another_version_is_refused(self) -> None:
        with pytest.raises(InstallError, match=VERSION):
            codex.install("0.170.0", quiet=True)

    @pytest.mark.parametrize(
        ("handler", "args", "field"),
        [
            (instructions.instructions, {**_PLACE, "budget": -1}, "budget"),
            (instructions.instructions, {**_PLACE, "budget": 1.5}, "budget"),
            (instructions.instructions, {**_PLACE, "trust": "yes"}, "trust"),
            (instructions.instructions, {**_PLACE, "cwd": "ws"}, "cwd"),
            (instructions.instructions, {**_PLACE, "tree": {"f": "x"}, "cwd": "/f"}, "cwd"),
            (tool_output.tool_output, {"content": 3}, "content"),
            (tool_output.tool_output, {"content": "x", "limit": -1}, "limit"),
            (compaction.compaction, {"messages": [], "window": 10}, "messages"),
            (compaction.compaction, {"messages": [_USER], "window": 0}, "window"),
            (compaction.compaction, {"messages": [_USER, _TOOL], "window": 9}, "messages"),
            (compaction.summary, {**_SUMMARY, "stopReason": "x"}, "stopReason"),
            (compaction.summary, {**_SUMMARY, "summary": ""}, "summary"),
            (sessions.resume, {"messages": [_USER], "prompt": "", "reply": "r"}, "prompt"),
            (sessions.resume, {"messages": [_USER], "prompt": "p", "reply": 1}, "reply"),
            (
                sessions.resume,
                {"messages": [_USER], "prompt": "p", "reply": "r", "fork": 1},
                "fork",
            ),
        ],
    )
    def test_bad_input_is_named_before_codex_runs(
        self, handler: Any, args: dict[str, Any], field: str
    ) -> None:
        """A malformed argument is an `InvalidInput` naming it (no Codex needed)."""
        with pytest.raises(InvalidInput) as raised:
            handler(args)
        assert raised.value.field == field


def test_recorded_trust_keeps_the_trees_config_bytes(tmp_path: Path) -> None:
    """A decision is appended: a config.toml of the case's tree keeps its CRLF and bytes."""
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_bytes(b'model = "x"\r\n# \xff')
    instructions._record_trust(tmp_path, Path("/w"), "trusted")
    assert config.read_bytes() == (
        b'model = "x"\r\n# \xff\n[projects."/w"]\ntrust_level = "trusted"\n'
    )


class TestReplayPlan:
    """How a history becomes Codex turns and scripted answers (no Codex needed)."""

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
        assert isinstance(call, ToolCall) and call.arguments == {"cmd": "cat tool-2.txt"}
        assert first[1] == [Text(compaction.FILLER)]
        assert turns[1].answers == [[Text("ok")]]
        assert turns[2].answers == []

    def test_keep_is_the_first_message_from_which_all_reach_the_request(self) -> None:
        messages: list[dict[str, Any]] = [
            {"role": "user", "text": "u1"},
            {"role": "assistant", "text": "a1", "toolCall": True},
            {"role": "tool", "text": "t1"},
            {"role": "user", "text": "u2"},
        ]
        said = [{"type": "input_text", "text": text} for text in ("u1", "u2")]
        request = {"input": [{"type": "message", "role": "user", "content": [s]} for s in said]}
        kept = [compaction._kept(i, m, request) for i, m in enumerate(messages)]
        assert kept == [True, False, False, True]


@pytest.mark.slow
class TestCodex:
    """Codex's own answers, one or two runs of the CLI each."""

    def test_install_is_cached(self) -> None:
        """A second install returns the same launch and does not rebuild the install."""
        first = codex.install(VERSION, quiet=True)
        stamp = cache_root() / "impls" / f"codex-{VERSION}" / STAMP
        built = stamp.stat().st_mtime_ns
        assert codex.install(VERSION, quiet=True) == first
        assert stamp.stat().st_mtime_ns == built
        assert first.env["CTXSPEC_CODEX"].endswith("@openai/codex/bin/codex.js")

    def test_hello_lists_the_ops(self, impl: Implementation) -> None:
        impl.call("agent.tool_output", {"content": "x", "tool": "read"})  # starts it
        assert impl.hello["implementation"] == {
            "name": "codex",
            "version": VERSION,
            "language": "rust",
        }
        assert set(impl.hello["ops"]) == {
            "agent.compaction",
            "agent.instructions",
            "agent.resume",
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
        assert agent_bench.compaction(impl, 10_000, 9_500) == {"compact": True, "keep": 5}

    def test_instructions_global_then_root_to_cwd(self, impl: Implementation) -> None:
        tree = {
            "home/.codex/AGENTS.md": "GLOBAL\n",
            "ws/p/.git/": {},
            "ws/p/AGENTS.md": "ROOT\n",
            "ws/p/sub/AGENTS.md": "SUB\n",
            "ws/AGENTS.md": "ABOVE THE GIT ROOT\n",
        }
        result = _result(
            impl, "agent.instructions", {"tree": tree, "cwd": "/ws/p/sub", "home": "/home"}
        )
        assert result["text"] == (
            "# AGENTS.md instructions for /ws/p/sub\n\n<INSTRUCTIONS>\nGLOBAL\n\n"
            "--- project-doc ---\n\nROOT\n\n\nSUB\n\n</INSTRUCTIONS>"
        )

    def test_untrusted_project_loads_only_the_global_file(self, impl: Implementation) -> None:
        tree = {"home/.codex/AGENTS.md": "GLOBAL\n", "ws/p/.git/": {}, "ws/p/AGENTS.md": "ROOT\n"}
        args = {"tree": tree, "cwd": "/ws/p", "home": "/home", "trust": "untrusted"}
        result = _result(impl, "agent.instructions", args)
        assert (
            result["text"] == "# AGENTS.md instructions\n\n<INSTRUCTIONS>\nGLOBAL\n</INSTRUCTIONS>"
        )

    def test_budget_cuts_raw_bytes(self, impl: Implementation) -> None:
        """openai/codex#13386: 25 bytes of 20 `é` keep 12 and a U+FFFD, with no marker."""
        tree = {"ws/p/.git/": {}, "ws/p/AGENTS.md": "é" * 20}
        args = {"tree": tree, "cwd": "/ws/p", "home": "/home", "budget": 25}
        result = _result(impl, "agent.instructions", args)
        assert "<INSTRUCTIONS>\n" + "é" * 12 + "\ufffd\n</INSTRUCTIONS>" in result["text"]

    def test_short_output_reaches_the_model_under_its_header(self, impl: Implementation) -> None:
        result = _result(impl, "agent.tool_output", {"content": "total 0\nok\n"})
        assert re.fullmatch(
            HEADER + r"Original token count: 3\nOutput:\ntotal 0\nok\n", result["content"]
        )

    def test_long_output_keeps_head_and_tail(self, impl: Implementation) -> None:
        """A cut keeps the start and the end (4 bytes a token each) and says how many
        tokens were dropped."""
        content = "".join(f"line {n}\n" for n in range(1, 3001))
        result = _result(impl, "agent.tool_output", {"content": content, "limit": 1000})
        match = CUT.fullmatch(result["content"])
        assert match is not None
        assert content.startswith(match["head"]) and content.endswith(match["tail"])
        assert len(match["head"]) == len(match["tail"]) == 2000
        assert int(match["total"]) == -(-len(content) // 4)

    def test_read_tool_is_unsupported(self, impl: Implementation) -> None:
        reply = impl.call("agent.tool_output", {"content": "x", "tool": "read"})
        assert reply.error is not None and reply.error.type == "unsupported"

    def test_compaction_follows_usage(self, impl: Implementation) -> None:
        """At 95% of the window Codex compacts and keeps only the user's message; at 50%
        it does not."""
        messages = [
            {"role": "user", "text": "hello"},
            {"role": "assistant", "text": "let me look", "toolCall": True},
            {"role": "tool", "text": "a.txt b.txt"},
        ]
        over = {"messages": messages, "window": 10000, "usage": 9500}
        under = {"messages": messages, "window": 10000, "usage": 5000}
        assert _result(impl, "agent.compaction", over) == {"compact": True, "keep": 3}
        assert _result(impl, "agent.compaction", under) == {"compact": False, "keep": None}

    def test_summary_cut_at_the_limit_is_refused(self, impl: Implementation) -> None:
        messages = [
            {"role": "user", "text": "hello"},
            {"role": "assistant", "text": "hi"},
            {"role": "user", "text": "more"},
        ]
        args = {"messages": messages, "window": 10000, "usage": 9500, "summary": "S."}
        assert _result(impl, "agent.summary", {**args, "stopReason": "stop"}) == {"accepted": True}
        assert _result(impl, "agent.summary", {**args, "stopReason": "length"}) == {
            "accepted": False
        }

    def test_a_fork_leaves_the_original_as_it_was(self, impl: Implementation) -> None:
        """`codex exec fork` then a resume of the original: each request carries the
        history; the fork's answer reaches only the fork."""
        history = [{"role": "user", "text": "a 😀\r\nb"}, {"role": "assistant", "text": "c"}]
        args = {"messages": history, "prompt": "d", "reply": "e", "fork": True}
        result = _result(impl, "agent.resume", args)
        wanted = [*history, {"role": "user", "text": "d"}]
        for conversation in (result["messages"], result["original"]):
            assert [m for m in conversation if m in wanted] == wanted
            assert not any(m["text"] == "e" for m in conversation)
