"""Claude Code 2.1.332 as a black-box implementation: its install, hello, and its real answers.

The class marked `slow` starts the Claude Code executable (1 to 3 s a run); the rest check
the install's lock and the arguments refused before Claude Code starts.
"""

from __future__ import annotations

import json
import re
from typing import Any

import agent_bench
import pytest

from ctxspec.conformance.harnesses import claude_code
from ctxspec.conformance.harnesses.claude_code import instructions, sessions, tool_output
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.named import InstallError, parse_named
from ctxspec.reference.errors import InvalidInput

SPEC = "claude-code@2.1.332"  # the `impl` fixture (conftest.py) starts it
VERSION = "2.1.332"
PERSISTED = re.compile(
    r"<persisted-output>\nOutput too large \((?P<size>[\d.]+KB)\)\. Full output saved to: "
    r"/home/\.claude/projects/-work/[\w-]+/tool-results/\w+\.txt\n\n"
    r"Preview \(first 2KB\):\n(?P<head>.*?)(?:\n\.\.\.)?\n</persisted-output>",
    re.DOTALL,
)
_PLACE: dict[str, Any] = {"tree": {}, "cwd": "/", "home": "/h"}


def _result(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    reply = impl.call(op, args)
    assert reply.error is None, reply.error
    return reply.result


class TestInstall:
    """The committed lock, the family's name, and what is refused before anything runs."""

    def test_the_lock_pins_claude_code_and_its_binary(self) -> None:
        files = claude_code.package_files()
        dependencies = json.loads(files["package.json"])["dependencies"]
        assert dependencies == {"@anthropic-ai/claude-code": VERSION}
        packages = json.loads(files["package-lock.json"])["packages"]
        for name in ("@anthropic-ai/claude-code", "@anthropic-ai/claude-code-linux-x64"):
            assert packages[f"node_modules/{name}"]["version"] == VERSION
            assert packages[f"node_modules/{name}"]["integrity"].startswith("sha512-")

    def test_name_resolves_to_this_module(self) -> None:
        spec = parse_named(SPEC)
        assert spec is not None
        assert spec.family.module == claude_code.__name__
        assert parse_named("claude-code") == spec  # the default version

    def test_another_version_is_refused(self) -> None:
        with pytest.raises(InstallError, match=VERSION):
            claude_code.install("2.1.331", quiet=True)

    @pytest.mark.parametrize(
        ("handler", "args", "field"),
        [
            (instructions.instructions, {**_PLACE, "cwd": "ws"}, "cwd"),
            (instructions.instructions, {**_PLACE, "home": 3}, "home"),
            (instructions.instructions, {**_PLACE, "trust": "maybe"}, "trust"),
            (tool_output.tool_output, {"content": 3}, "content"),
            (tool_output.tool_output, {"content": "x", "limit": -1}, "limit"),
            (tool_output.tool_output, {"content": "x", "limit": 4000.5}, "limit"),
            (sessions.resume, {"messages": [], "prompt": "p", "reply": "r"}, "messages"),
            (
                sessions.resume,
                {"messages": [{"role": "user", "text": "u"}], "prompt": "", "reply": "r"},
                "prompt",
            ),
        ],
    )
    def test_bad_input_is_named_before_claude_code_runs(
        self, handler: Any, args: dict[str, Any], field: str
    ) -> None:
        with pytest.raises(InvalidInput) as raised:
            handler(args)
        assert raised.value.field == field

    def test_a_memory_block_is_cut_from_its_first_section(self) -> None:
        text = (
            "<system-reminder>\nCodebase and user instructions are shown below. Be sure ...\n\n"
            "Contents of /p/CLAUDE.md (project instructions, checked into the codebase):\n\n"
            "ROOT\n</system-reminder>"
        )
        body = {"messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]}
        assert instructions.memory_block(body) == (
            "Contents of /p/CLAUDE.md (project instructions, checked into the codebase):\n\nROOT"
        )
        assert instructions.memory_block({"messages": [{"role": "user", "content": "hi"}]}) == ""


@pytest.mark.slow
class TestClaudeCode:
    """Claude Code's own answers, one run of the executable each."""

    def test_hello_lists_the_ops(self, impl: Implementation) -> None:
        impl.call("agent.tool_output", {"content": "x", "tool": "read"})  # starts it
        assert impl.hello["implementation"] == {
            "name": "claude-code",
            "version": VERSION,
            "language": "typescript",
        }
        assert set(impl.hello["ops"]) == {
            "agent.instructions",
            "agent.tool_output",
            "agent.resume",
            "bench.agent_instructions",
            "bench.agent_tool_output",
        }

    def test_bench_tool_output_times_the_turn(self, impl: Implementation) -> None:
        agent_bench.tool_output(impl)

    def test_bench_instructions_times_the_run(self, impl: Implementation) -> None:
        agent_bench.instructions(impl, "CLAUDE.md")

    @pytest.mark.parametrize("limit", [0, 3_999, 128_001])
    def test_a_limit_the_setting_clamps_is_unsupported(
        self, impl: Implementation, limit: int
    ) -> None:
        reply = impl.call("agent.tool_output", {"content": "x", "limit": limit})
        assert reply.error is not None
        assert reply.error.type == "unsupported"

    def test_the_limit_counts_utf8_bytes(self, impl: Implementation) -> None:
        """4,000 bytes of é stay inline at bashOutputMaxChars 4,000; 4,002 are saved away
        behind the marker, the saved file byte for byte the output."""
        inline = "é" * 2000
        assert _result(impl, "agent.tool_output", {"content": inline, "limit": 4000}) == {
            "content": inline
        }
        content = "é" * 2001
        result = _result(impl, "agent.tool_output", {"content": content, "limit": 4000})
        cut = PERSISTED.fullmatch(result["content"])
        assert cut is not None, repr(result["content"][-200:])
        assert cut["head"] == "é" * 2000  # 2,000 characters, 4,000 bytes, no "..." line
        assert cut["size"] == "3.9KB"
        assert result["saved"] == content

    def test_rules_load_between_claude_md_and_claude_local_md(self, impl: Implementation) -> None:
        """Global first, then / down to the cwd across the git root; in each directory
        CLAUDE.md, .claude/CLAUDE.md, the rules, CLAUDE.local.md; AGENTS.md not read."""
        tree = {
            "home/.claude/CLAUDE.md": "GLOBAL",
            "ws/CLAUDE.md": "ABOVE THE GIT ROOT",
            "ws/p/.git/": {},
            "ws/p/CLAUDE.md": "ROOT",
            "ws/p/AGENTS.md": "AGENTS",
            "ws/p/.claude/CLAUDE.md": "DOT CLAUDE",
            "ws/p/.claude/rules/only.md": "RULE",
            "ws/p/CLAUDE.local.md": "LOCAL",
            "ws/p/sub/CLAUDE.md": "SUB",
        }
        args = {"tree": tree, "cwd": "/ws/p/sub", "home": "/home"}
        text = _result(impl, "agent.instructions", args)["text"]
        sections = re.findall(r"\):\n\n(.*?)(?=\n\nContents of |\Z)", text, re.DOTALL)
        order = ["GLOBAL", "ABOVE THE GIT ROOT", "ROOT", "DOT CLAUDE", "RULE", "LOCAL", "SUB"]
        assert sections == order, text
        assert text.startswith("Contents of /home/.claude/CLAUDE.md (user's private global")

    def test_an_untrusted_project_is_refused_at_the_dialog(self, impl: Implementation) -> None:
        """Untrusted: started in a pseudo-terminal, the trust dialog refused; nothing of the
        project (nor anything else) reaches the model. Undecided under -p: it all loads."""
        tree = {
            "home/.claude/CLAUDE.md": "GLOBAL",
            "ws/p/.git/": {},
            "ws/p/CLAUDE.md": "ROOT",
            "ws/p/.claude/settings.json": json.dumps(
                {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}
            ),
        }
        args = {"tree": tree, "cwd": "/ws/p", "home": "/home"}
        untrusted = _result(impl, "agent.instructions", {**args, "trust": "untrusted"})
        assert untrusted == {"text": ""}
        undecided = _result(impl, "agent.instructions", {**args, "trust": None})["text"]
        assert "\n\nGLOBAL\n" in undecided
        assert undecided.endswith("\n\nROOT")

    def test_a_fork_carries_the_history_and_the_original_stays(self, impl: Implementation) -> None:
        """A tool call in the history comes back as its result; the fork's answer does not
        reach the original."""
        history = [
            {"role": "user", "text": "look at notes"},
            {"role": "assistant", "text": "reading", "toolCall": True},
            {"role": "tool", "text": "NOTE 1"},
            {"role": "assistant", "text": "one note"},
        ]
        args = {"messages": history, "prompt": "again", "reply": "FORKED", "fork": True}
        result = _result(impl, "agent.resume", args)
        for carried in (result["messages"], result["original"]):
            texts = [(m["role"], m["text"]) for m in carried]
            assert ("user", "look at notes") in texts
            assert ("tool", "NOTE 1") in texts
            assert texts[-1] == ("user", "again")
            assert ("assistant", "FORKED") not in texts
