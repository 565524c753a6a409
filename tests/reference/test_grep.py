"""grep: Pi's rules over ripgrep's `--json` output, and the reference adapter that runs rg.

The golden cases (`corpora/cases/tool_results/grep-*.yaml`) pin what Pi answers; these
check the pieces the cases cannot reach one by one: events ripgrep sends only in odd
situations (a path or a line as bytes, a failure after the limit), Node's inspection of
an argument it refuses, the order across files, and the op without `rg`.
"""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ctxspec.conformance.engines.reference.ops import tools as grep_op
from ctxspec.conformance.errors import EnvironmentMissing
from ctxspec.conformance.harnesses.kit.tree import materialize
from ctxspec.conformance.transport import ripgrep
from ctxspec.reference import grep as tools
from ctxspec.reference.grep import grep_from_ripgrep
from ctxspec.reference.tool_result import ToolResult


def _match(path: str, line: int, text: str | None = None, *, raw: bytes | None = None) -> str:
    lines: dict[str, str] = (
        {"bytes": base64.b64encode(raw).decode()} if raw is not None else {"text": text or ""}
    )
    data = {"path": {"text": path}, "lines": lines, "line_number": line}
    return json.dumps({"type": "match", "data": data})


def _run(events: list[str], **kwargs: Any) -> ToolResult:
    options: dict[str, Any] = {
        "exit_code": 0,
        "stderr": "",
        "search_path": "/w",
        "is_directory": True,
        "read_file": lambda path: None,
    }
    options.update(kwargs)
    return grep_from_ripgrep(events, **options)


def test_counts_match_events_up_to_the_limit_and_ignores_the_rest() -> None:
    events = [_match("/w/a.txt", n, f"foo{n}\n") for n in (1, 2, 3)]
    result = _run(["", "not json", json.dumps({"type": "begin"}), *events], limit=2)
    assert result.text == (
        "a.txt:1: foo1\na.txt:2: foo2\n\n"
        "[2 matches limit reached. Use limit=4 for more, or refine pattern]"
    )
    assert result.details == {"matchLimitReached": 2}


def test_a_failure_after_the_limit_is_not_reported() -> None:
    events = [_match("/w/a.txt", 1, "foo\n")]
    assert not _run(events, limit=1, exit_code=2, stderr="rg: boom\n").rejected
    failed = _run(events, limit=2, exit_code=2, stderr="\ufeff rg: boom\n")
    assert failed.rejected
    assert failed.text == "rg: boom"  # trimmed as String.prototype.trim does (BOM too)
    assert _run([], exit_code=9).text == "ripgrep exited with code 9"


def test_a_path_given_as_bytes_counts_but_prints_nothing() -> None:
    event = json.dumps({"type": "match", "data": {"path": {"bytes": "/w/\xff"}, "line_number": 1}})
    result = _run([event], limit=1)
    assert result.text == "\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    assert _run([event]).text == ""  # counted: not "No matches found"


def test_a_line_given_as_bytes_is_printed_from_the_reread_file() -> None:
    data = {"/w/a.txt": b"x\nfo\xffo\r\n"}
    result = _run([_match("/w/a.txt", 2, raw=b"fo\xffo\r\n")], read_file=data.get)
    assert result.text == "a.txt:2: fo\ufffdo"
    unreadable = _run([_match("/w/a.txt", 2, raw=b"fo\xffo\n")])
    assert unreadable.text == "a.txt:2: (unable to read file)"


def test_context_lines_are_reread_and_the_match_line_too() -> None:
    data = {"/w/a.txt": b"\xef\xbb\xbfone\r\ntwo foo\n"}
    result = _run([_match("/w/a.txt", 2, "two foo\n")], read_file=data.get, context=1)
    assert result.text == "a.txt-1- \ufeffone\na.txt:2: two foo\na.txt-3- "


def test_shown_paths() -> None:
    shown = tools.grep_shown_path
    assert shown("/w/a/b.txt", "/w", is_directory=True) == "a/b.txt"
    assert shown("/w/..a/b.txt", "/w", is_directory=True) == "b.txt"
    assert shown("/w/a\\b.txt", "/w", is_directory=True) == "a/b.txt"
    assert shown("/w/a\\b.txt", "/w/a\\b.txt", is_directory=False) == "a\\b.txt"


def test_fractional_limits_stay_fractional() -> None:
    assert tools.grep_effective_limit(None) == 100
    assert tools.grep_effective_limit(-3) == 1
    assert tools.grep_effective_limit(2.0) == 2
    assert isinstance(tools.grep_effective_limit(2.0), int)
    assert tools.grep_effective_limit(1.5) == 1.5


@pytest.mark.parametrize(
    ("pattern", "glob", "refused"),
    [
        ("a\x00b", None, "<NUL in pattern>"),
        ("a\x00b", "*\x00", "<NUL in glob>"),  # rg gets the glob first
        ("a", "*\x00", "<NUL in glob>"),
        ("a\x00", "", "<NUL in pattern>"),  # an empty glob is not passed
        ("a", "*.md", None),
    ],
)
def test_node_refuses_an_argument_holding_nul(
    pattern: str, glob: str | None, refused: str | None
) -> None:
    """GREP-9: the refusal names the parameter, not Node's words (ctxspec.reference.engine)."""
    assert tools.spawn_refusal(pattern, glob=glob) == refused


def test_the_op_takes_files_in_ripgreps_usual_order(tmp_path: Path) -> None:
    """The walk order: the reverse of rg's one-thread order (a stack), the same every time."""
    tree = {f"w/{d}/{n}": "foo\n" for d in ("b", "a", "a.d", ".h") for n in ("x", "y.md")}
    tree.update({"w/top.txt": "foo\n", "w/.top": "foo\n"})
    answers = {
        grep_op.grep({"tree": tree, "cwd": "/w", "pattern": "foo"})["text"] for _ in range(3)
    }
    assert len(answers) == 1
    shown = [line.split(":")[0] for line in answers.pop().split("\n")]
    materialize(tree, tmp_path)
    one_thread = subprocess.run(
        [grep_op.ripgrep(), "-j1", "--files", "--hidden", str(tmp_path / "w")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert shown == [line.removeprefix(f"{tmp_path}/w/") for line in reversed(one_thread)]


def test_the_op_without_ripgrep_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ripgrep, "ripgrep_dir", lambda: None)
    with pytest.raises(EnvironmentMissing, match="ripgrep"):
        grep_op.grep({"tree": {"w/a.txt": "foo\n"}, "cwd": "/w", "pattern": "foo"})


def test_the_op_ignores_the_hosts_ripgrep_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    config = tmp_path / "rgrc"
    config.write_text("--invert-match\n")
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", str(config))
    result = grep_op.grep({"tree": {"w/a.txt": "foo\nbar\n"}, "cwd": "/w", "pattern": "foo"})
    assert result["text"] == "a.txt:1: foo"


@pytest.mark.parametrize("bad", [{"pattern": 3}, {"pattern": "a", "glob": 1}])
def test_bad_arguments_are_invalid_input(bad: dict[str, Any]) -> None:
    from ctxspec.reference.errors import InvalidInput  # noqa: PLC0415

    with pytest.raises(InvalidInput):
        grep_op.grep({"tree": {}, **bad})
