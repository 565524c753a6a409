"""GitHub Copilot CLI 1.0.102 as a black-box implementation: its install, hello, real answers.

The class marked `slow` starts the Copilot CLI (about 2 s a run, BYOK and offline against
the scripted model); the rest check the install's lock, the one unpacked package cache,
and the arguments refused before Copilot starts.
"""

from __future__ import annotations

import json
import re
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import agent_bench
import pytest

from ctxspec.conformance.harnesses import copilot_cli
from ctxspec.conformance.harnesses.copilot_cli import dialog, instructions, tool_output
from ctxspec.conformance.transport import confine
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.named import InstallError, parse_named
from ctxspec.conformance.transport.processes import run_dir
from ctxspec.reference.errors import InvalidInput

SPEC = "copilot-cli@1.0.102"  # the `impl` fixture (conftest.py) starts it
VERSION = "1.0.102"
SHELL_LINE = "\n<shellId: 0 completed with exit code 0>"
CUT = re.compile(
    r"Output too large to read at once \((?P<size>[^)]*)\)\. Saved to: "
    r"/tmp/<ms>-copilot-tool-output-<id>\.txt\n"
    r"Consider using tools like grep [^\n]*\n\nPreview \(first (?P<n>\d+) chars\):\n"
    r"(?P<head>.*)",
    re.DOTALL,
)
_PLACE: dict[str, Any] = {"tree": {}, "cwd": "/", "home": "/h"}


def _result(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    reply = impl.call(op, args)
    assert reply.error is None, reply.error
    return reply.result


class TestInstall:
    """The committed lock, the family's name, and what is refused before anything runs."""

    def test_the_lock_pins_the_loader_and_its_binary(self) -> None:
        files = copilot_cli.package_files()
        assert json.loads(files["package.json"])["dependencies"] == {"@github/copilot": VERSION}
        packages = json.loads(files["package-lock.json"])["packages"]
        for name in ("@github/copilot", "@github/copilot-linux-x64"):
            assert packages[f"node_modules/{name}"]["version"] == VERSION
            assert packages[f"node_modules/{name}"]["integrity"].startswith("sha512-")

    def test_name_resolves_to_this_module(self) -> None:
        spec = parse_named(SPEC)
        assert spec is not None
        assert spec.family.module == copilot_cli.__name__
        assert parse_named("copilot-cli") == spec  # the default version

    def test_another_version_is_refused(self) -> None:
        with pytest.raises(InstallError, match=VERSION):
            copilot_cli.install("1.0.101", quiet=True)

    def test_an_install_without_its_unpacked_package_is_damaged(self, tmp_path: Path) -> None:
        """The stamped install's check: no unpacked package (or an unfinished unpack) is a
        problem, so the cache rebuilds it."""
        platform = tmp_path.joinpath(*copilot_cli.BINARY).parent
        platform.mkdir(parents=True)
        (platform / "package.json").write_text(json.dumps({"version": VERSION}))
        check = copilot_cli.HARNESS.check
        assert check is not None
        assert "unpacked package" in (check(tmp_path) or "")
        copilot_cli.unpacked(tmp_path).mkdir(parents=True)
        assert "unpacked package" in (check(tmp_path) or "")
        (copilot_cli.unpacked(tmp_path) / ".extraction-complete").touch()
        assert check(tmp_path) is None

    @pytest.mark.parametrize(
        ("handler", "args", "field"),
        [
            (instructions.instructions, {**_PLACE, "cwd": "ws"}, "cwd"),
            (instructions.instructions, {**_PLACE, "home": 3}, "home"),
            (instructions.instructions, {**_PLACE, "trust": "maybe"}, "trust"),
            (tool_output.tool_output, {"content": 3}, "content"),
            (tool_output.tool_output, {"content": "x", "limit": -1}, "limit"),
            (tool_output.tool_output, {"content": "x", "limit": 1.5}, "limit"),
        ],
    )
    def test_bad_input_is_named_before_copilot_runs(
        self, handler: Any, args: dict[str, Any], field: str
    ) -> None:
        with pytest.raises(InvalidInput) as raised:
            handler(args)
        assert raised.value.field == field


@pytest.mark.slow
class TestCopilot:
    """Copilot CLI's own answers, one run of the CLI each."""

    def test_hello_lists_the_ops(self, impl: Implementation) -> None:
        impl.call("agent.tool_output", {"content": "x", "tool": "read"})  # starts it
        assert impl.hello["implementation"] == {
            "name": "copilot-cli",
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
        agent_bench.instructions(impl, "AGENTS.md")

    def test_one_unpacked_package_read_only(self) -> None:
        """The install holds the binary's package, unpacked once, its files read-only."""
        root = copilot_cli.HARNESS.ensure(VERSION, quiet=True).root
        package = copilot_cli.unpacked(root)
        assert (package / ".extraction-complete").is_file()
        app = package / "app.js"
        assert not app.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)

    def test_a_small_output_is_trimmed_under_copilots_line(self, impl: Implementation) -> None:
        result = _result(impl, "agent.tool_output", {"content": "total 0\nok\n"})
        assert result == {"content": "total 0\nok" + SHELL_LINE}

    def test_the_preview_splits_a_pair_and_the_file_is_whole(self, impl: Implementation) -> None:
        """Past the limit: the first 500 UTF-16 units, U+FFFD for the split pair; the file
        saved in the run's TMPDIR (read before Copilot exits and deletes it) holds it all."""
        content = "a" + "\U0001f600" * 300 + "x" * 30_000
        result = _result(impl, "agent.tool_output", {"content": content})
        assert result["content"].endswith(SHELL_LINE)
        cut = CUT.fullmatch(result["content"][: -len(SHELL_LINE)])
        assert cut is not None, result["content"][:400]
        assert cut["size"] == "30.5 KB"
        assert cut["head"] == "a" + "\U0001f600" * 249 + "\ufffd"
        assert result["saved"] == content

    def test_the_limit_variable_moves_the_threshold(self, impl: Implementation) -> None:
        kept = _result(impl, "agent.tool_output", {"content": "a" * 960, "limit": 1000})
        assert kept == {"content": "a" * 960 + SHELL_LINE}
        cut = _result(impl, "agent.tool_output", {"content": "a" * 1001, "limit": 1000})
        assert cut["content"].startswith("Output too large to read at once (1001 bytes)")

    def test_a_resumed_session_carries_its_history(self, impl: Implementation) -> None:
        """--session-id, then --resume twice: the last request carries every turn, each
        user text after Copilot's own datetime block (given as a message of its own)."""
        history = [
            {"role": "user", "text": "first \U0001f600\r\n\tq"},
            {"role": "assistant", "text": "one"},
            {"role": "user", "text": "second"},
            {"role": "assistant", "text": "two"},
        ]
        args = {"messages": history, "prompt": "third", "reply": "three"}
        carried = _result(impl, "agent.resume", args)["messages"]
        stamps = [m for m in carried if re.fullmatch(r"<current_datetime>[^<]*</current_datetime>",
                                                     m["text"])]  # fmt: skip
        assert [m for m in carried if m not in stamps] == [
            *history,
            {"role": "user", "text": "third"},
        ]
        assert len(stamps) == 3

    def test_a_fork_is_unsupported(self, impl: Implementation) -> None:
        args = {"messages": [{"role": "user", "text": "a"}, {"role": "assistant", "text": "b"}],
                "prompt": "c", "reply": "d", "fork": True}  # fmt: skip
        reply = impl.call("agent.resume", args)
        assert reply.error is not None and reply.error.type == "unsupported"

    def test_instructions_root_then_cwd_then_the_middle(self, impl: Implementation) -> None:
        tree = {
            "home/.copilot/copilot-instructions.md": "GLOBAL",
            "ws/p/.git/": {},
            "ws/p/AGENTS.md": "ROOT agents",
            "ws/p/.github/copilot-instructions.md": "ROOT github",
            "ws/p/mid/CLAUDE.md": "MID claude",
            "ws/p/mid/sub/GEMINI.md": "SUB gemini",
            "ws/AGENTS.md": "ABOVE THE GIT ROOT",
        }
        args = {"tree": tree, "cwd": "/ws/p/mid/sub", "home": "/home"}
        blocks = re.findall(
            r"<custom_instruction>\n(.*?)\n</custom_instruction>",
            _result(impl, "agent.instructions", args)["text"],
        )
        assert blocks == ["GLOBAL", "ROOT github", "ROOT agents", "SUB gemini", "MID claude"]


class TestTrustRecord:
    """How `trust: trusted` is written: `trustedFolders` of config.json, as Copilot does."""

    def test_cwd_is_added_over_the_trees_own_config(self, tmp_path: Path) -> None:
        (tmp_path / ".copilot").mkdir()
        (tmp_path / ".copilot" / "config.json").write_text('// managed\n{"a": 1}\n')
        instructions._record_trust(tmp_path, Path("/w/p"))
        written = json.loads((tmp_path / ".copilot" / "config.json").read_text())
        assert written == {"a": 1, "trustedFolders": ["/w/p"]}


def _dialog(answer: str, tmp_path: Path) -> tuple[dict[str, Any], list[str]]:
    """`dialog.trust_dialog(answer)` run confined (`transport/confine.py`), as every run of
    an agent is: its report, and what it left outside its folders."""
    launch = copilot_cli.install(VERSION, quiet=True)
    confinement = confine.Confinement(SPEC, tempfile.mkdtemp(dir=run_dir()))
    env = confinement.env(launch.env)
    argv = [sys.executable, "-m", dialog.__name__, answer]
    done = subprocess.run(
        confinement.argv(argv, env), env=env, capture_output=True, timeout=180, check=False
    )
    left = confinement.finish()
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return json.loads(done.stdout.decode().strip().splitlines()[-1]), left


@pytest.mark.slow
class TestTrustDialog:
    """The interactive trusted-folders dialog, through a pseudo-terminal: nothing of the
    project (its hooks, its AGENTS.md, a model request) before a yes."""

    def test_no_ends_the_session_and_nothing_ran(self, tmp_path: Path) -> None:
        report, left = _dialog("no", tmp_path)
        assert report["dialog"] is True
        assert report["before"] == {"hooks": [], "requests": 0}
        assert report["ended"] is True
        assert report["after"] == {"hooks": [], "requests": 0, "project_instructions": False}
        assert report["trusted_folders"] == []
        assert left == []

    def test_remember_runs_the_hooks_after_the_yes_and_records_the_folder(
        self, tmp_path: Path
    ) -> None:
        report, _left = _dialog("remember", tmp_path)
        assert report["before"] == {"hooks": [], "requests": 0}
        assert report["ended"] is False
        assert report["after"]["hooks"] == ["sessionStart", "userPromptSubmitted"]
        assert report["after"]["project_instructions"] is True
        assert report["trusted_folders"] == ["proj"]
