"""opencode 1.18.33 as a black-box implementation: its install, hello, and its real answers.

The class marked `slow` starts the opencode CLI (about 6 s a run); the rest check the
install's lock and the arguments refused before opencode starts.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ctxspec.conformance.harnesses import opencode
from ctxspec.conformance.harnesses.opencode import instructions, tool_output
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
        ],
    )
    def test_bad_input_is_named_before_opencode_runs(
        self, handler: Any, args: dict[str, Any], field: str
    ) -> None:
        with pytest.raises(InvalidInput) as raised:
            handler(args)
        assert raised.value.field == field


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
        assert set(impl.hello["ops"]) == {"agent.instructions", "agent.tool_output"}

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
