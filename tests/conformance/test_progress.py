"""conformance/runner/progress.py: the bar on a terminal, plain lines elsewhere, silence
when quiet."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from ctxspec.conformance.runner.progress import is_terminal, progress


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_not_a_tty_writes_plain_lines_at_most_one_per_interval() -> None:
    out, clock = io.StringIO(), Clock()
    with progress(4, "bench", stream=out, interval=5.0, clock=clock) as step:
        step(note="stream 1MiB")  # the first step always writes
        clock.now += 1
        step(note="stream 16MiB")  # 1 s later: held back
        clock.now += 5
        step(note="sessions 1000")  # 6 s after the first line: written
        clock.now += 1
        step(note="sessions 10000")  # held back, then written on leaving
    lines = out.getvalue().splitlines()
    assert lines == [
        "bench: 1/4 stream 1MiB (0s, about 0s left)",
        "bench: 3/4 sessions 1000 (6s, about 2s left)",
        "bench: 4/4 sessions 10000 (7s)",
    ]
    assert "\x1b[" not in out.getvalue()


def test_no_total_counts_without_a_time_left() -> None:
    out, clock = io.StringIO(), Clock()
    with progress(None, "fuzz", stream=out, clock=clock) as step:
        clock.now += 75
        step(advance=3)
    assert out.getvalue() == "fuzz: 3 (1m15s)\n"


def test_quiet_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    with progress(2, "bench", quiet=True, stream=out) as step:
        step()
        step(note="x")
    assert out.getvalue() == ""
    assert capsys.readouterr() == ("", "")


def test_ci_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert is_terminal(Tty())
    assert not is_terminal(io.StringIO())
    monkeypatch.setenv("CI", "true")
    assert not is_terminal(Tty())
    out = Tty()
    with progress(1, "bench", stream=out) as step:
        step(note="done")
    assert out.getvalue() == "bench: 1/1 done (0s)\n"


def test_a_terminal_gets_the_rich_bar() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with progress(3, "bench", console=console) as step:
        step(note="stream 1MiB")
        step(advance=2, note="sessions 1000")
    drawn = out.getvalue()
    assert "\x1b[" in drawn  # drawn with terminal codes, not plain lines
    assert "3/3" in drawn
    assert "sessions 1000" in drawn
    assert "bench" in drawn


def test_a_tty_stream_draws_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    out = Tty()
    with progress(2, "bench", stream=out) as step:
        step(advance=2, note="all")
    assert "\x1b[" in out.getvalue()
    assert "2/2" in out.getvalue()
