"""Progress of a long command: a bar on a terminal, plain lines in a log, nothing when quiet.

    with progress(total, "bench") as step:
        for item in work:
            ...
            step(note=f"stream {size}")  # advance=1 by default

On a terminal (the stream is a TTY and `CI` is not set) it draws a `rich` bar with the
count, the percentage, the elapsed time and the time left, and the last note. Otherwise
(a pipe, a file, CI) it writes plain lines, `label: done/total note (elapsed, about T
left)`, at most one every `interval` seconds, and always the last one, so a log gets a
heartbeat, not a flood. `quiet=True` writes nothing. `total=None` counts without a total
(no percentage, no time left). The estimate of time left is the mean time per step so far
times the steps left: steps that differ in cost (a 1 MiB and a 64 MiB input) make it rough.

Work with no count (an install) uses `status(label)` instead: a spinner with the label
and the elapsed time on a terminal, gone when the work ends (`transient`), and one plain
line, the label, otherwise.

Used by `ctxspec bench`, `fuzz`, `matrix`, `changelog`, `sweep` and the installs of named
implementations, so it depends on nothing of ctxspec's.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = ["Step", "is_terminal", "progress", "status"]

INTERVAL = 5.0  # seconds between two plain lines


class Step(Protocol):
    def __call__(self, advance: int = 1, note: str | None = None) -> None: ...


def is_terminal(stream: TextIO) -> bool:
    """Whether to draw a bar on `stream`: a TTY, and not under CI (whose logs are files)."""
    if os.environ.get("CI"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class _Lines:
    """The plain-line display: one line per `interval` seconds at most, and the last."""

    def __init__(
        self,
        total: int | None,
        label: str,
        out: TextIO,
        interval: float,
        clock: Callable[[], float],
    ) -> None:
        self.total, self.label, self.out = total, label, out
        self.interval, self.clock = interval, clock
        self.done = 0
        self.note = ""
        self.started = clock()
        self.last: float | None = None
        self.written_at = -1

    def line(self) -> str:
        elapsed = self.clock() - self.started
        count = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
        timing = _duration(elapsed)
        if self.total and 0 < self.done < self.total:
            left = elapsed / self.done * (self.total - self.done)
            timing += f", about {_duration(left)} left"
        note = f" {self.note}" if self.note else ""
        return f"{self.label}: {count}{note} ({timing})"

    def __call__(self, advance: int = 1, note: str | None = None) -> None:
        self.done += advance
        if note is not None:
            self.note = note
        now = self.clock()
        if self.last is None or now - self.last >= self.interval:
            self.write(now)

    def write(self, now: float) -> None:
        print(self.line(), file=self.out, flush=True)
        self.last = now
        self.written_at = self.done

    def close(self) -> None:
        if self.done != self.written_at:
            self.write(self.clock())


@contextmanager
def progress(
    total: int | None,
    label: str,
    *,
    quiet: bool = False,
    stream: TextIO | None = None,
    console: Console | None = None,
    interval: float = INTERVAL,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Step]:
    """A `step(advance=1, note=None)` to call as work is done (see the module docstring).

    `stream` (stderr by default) decides between the bar and the plain lines; `console`
    forces the bar onto that rich Console (tests pass one with `force_terminal=True`).
    """
    if quiet:
        yield lambda advance=1, note=None: None
        return
    out = stream if stream is not None else sys.stderr
    if console is None and is_terminal(out):
        console = Console(file=out)
    if console is None:
        lines = _Lines(total, label, out, interval, clock)
        try:
            yield lines
        finally:
            lines.close()
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[note]}"),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(label, total=total, note="")

        def step(advance: int = 1, note: str | None = None) -> None:
            if note is None:
                bar.advance(task, advance)
            else:
                bar.update(task, advance=advance, note=note)

        yield step


@contextmanager
def status(
    label: str,
    *,
    quiet: bool = False,
    stream: TextIO | None = None,
    console: Console | None = None,
) -> Iterator[None]:
    """Show `label` while the block runs: a transient spinner with the elapsed time on a
    terminal (or on `console`), else the label as one plain line; nothing when `quiet`."""
    if quiet:
        yield
        return
    out = stream if stream is not None else sys.stderr
    if console is None and is_terminal(out):
        console = Console(file=out)
    if console is None:
        print(label, file=out, flush=True)
        yield
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as spinner:
        spinner.add_task(label, total=None)
        yield
