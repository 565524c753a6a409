"""The agent bench ops for a black box (PROTOCOL.md, "The agent bench ops"): a turn's time
and its process tree's peak memory, measured around the CLI runs themselves.

- **The meter.** While a bench request is measured (`measured`), every `kit/cli.py`
  `run_cli` adds its wall time (`perf_counter_ns`, from before the process starts to
  after it is reaped) to the request's `elapsedNs`, and a daemon thread samples the CLI's
  process tree every `PERIOD` s from /proc: the sum of `VmRSS` over the process and its
  descendants (found through `/proc/<pid>/task/*/children`), max'd with the largest
  single `VmHWM` seen, in KiB, as `peakKiB`. Outside a bench request `run_cli` pays
  nothing (no thread, no clock).
- **Setup runs.** `with setup(): ...` around runs that put the state in place (a history
  replayed turn by turn before the compaction's turn): they run unmeasured. `discard()`
  forgets the runs measured so far (a turn run again after a lost output).
- **The handlers.** `bench_handlers(handlers)` gives the bench ops of a harness's agent
  handlers (`bench.agent_tool_output`, `bench.agent_instructions`, `bench.agent_compaction`
  for those it has). Each calls the agent op's own handler and answers
  `{answer, elapsedNs, requestNs, peakKiB, timing: "turn"}`; a request in which no CLI
  run was measured is an error (its figure would measure nothing).
- **The tool output's file.** `bench.agent_tool_output` reads `path` (strict UTF-8) before
  anything runs and gives the text to the agent op as its `content`; a harness writes the
  workspace's file with `write_output(target, content, encode)`, which hard-links (else
  copies) the bench input file when `content` is that file's text, instead of encoding a
  256 MiB string once more.

Standard library only: it runs in the adapter's process (`pyrun.py`).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from ctxspec.reference.errors import InvalidInput

__all__ = [
    "PERIOD",
    "Meter",
    "bench_handlers",
    "discard",
    "measured",
    "read_input",
    "setup",
    "tree_kib",
    "watch",
    "write_output",
]

PERIOD: Final = 0.02  # seconds between two samples of a run's process tree
Handler = Callable[[dict[str, Any]], Any]


class Meter:
    """What the measured runs of one bench request added up to."""

    def __init__(self) -> None:
        self.elapsed_ns = 0
        self.runs = 0
        self.peak_kib: int | None = None
        self.setup = 0  # depth of `setup()` sections: runs in them are not measured

    def add_peak(self, kib: int | None) -> None:
        if kib is not None:
            self.peak_kib = kib if self.peak_kib is None else max(self.peak_kib, kib)


class _State:
    """The bench request being measured, if any, and its input's text and file."""

    meter: Meter | None = None
    source: tuple[str, Path] | None = None


_state = _State()


@contextmanager
def setup() -> Iterator[None]:
    """Runs inside are setup (laying out state), not the measured turn."""
    meter = _state.meter
    if meter is None:
        yield
        return
    meter.setup += 1
    try:
        yield
    finally:
        meter.setup -= 1


def _status(pid: int) -> tuple[int, int] | None:
    """(VmRSS, VmHWM) of `pid` in KiB; None when it is gone or has no memory (a zombie)."""
    rss = hwm = None
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as file:
            for line in file:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None if rss is None or hwm is None else (rss, hwm)


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as file:
                found.extend(int(word) for word in file.read().split())
        except (OSError, ValueError):
            continue
    return found


def tree_kib(pid: int) -> tuple[int, int] | None:
    """(sum of VmRSS, largest VmHWM) over `pid` and its descendants, in KiB; None when
    nothing of it could be read."""
    total = largest = 0
    seen: set[int] = set()
    todo = [pid]
    read = False
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        status = _status(current)
        if status is not None:
            read = True
            total += status[0]
            largest = max(largest, status[1])
        todo.extend(_children(current))
    return (total, largest) if read else None


class _Sampler(threading.Thread):
    """Samples one run's process tree every `PERIOD` s until stopped."""

    def __init__(self, pid: int) -> None:
        super().__init__(name=f"ctxspec-bench-{pid}", daemon=True)
        self.pid = pid
        self.peak: int | None = None
        self.stopped = threading.Event()

    def sample(self) -> None:
        found = tree_kib(self.pid)
        if found is not None:
            self.peak = max(self.peak or 0, *found)

    def run(self) -> None:
        while True:
            self.sample()
            if self.stopped.wait(PERIOD):
                return


@contextmanager
def watch() -> Iterator[Callable[[int], None]]:
    """Around one CLI run (`run_cli`): call the yielded function with the process's id once
    it started. Measured (time, tree's peak) when a bench request is measured and no
    `setup()` is open; otherwise nothing is started."""
    meter = _state.meter
    if meter is None or meter.setup:
        yield lambda pid: None
        return
    samplers: list[_Sampler] = []

    def started(pid: int) -> None:
        sampler = _Sampler(pid)
        sampler.sample()  # at once: a run shorter than one period is seen too
        sampler.start()
        samplers.append(sampler)

    begin = time.perf_counter_ns()
    try:
        yield started
    finally:
        meter.elapsed_ns += time.perf_counter_ns() - begin
        meter.runs += 1
        for sampler in samplers:
            sampler.stopped.set()
            sampler.join()
            meter.add_peak(sampler.peak)


def discard() -> None:
    """Forget the runs measured so far in this request: a harness runs the turn again (a
    lost output), and the figure is the run that answered."""
    meter = _state.meter
    if meter is not None:
        meter.elapsed_ns, meter.runs, meter.peak_kib = 0, 0, None


def measured(body: Callable[[], Any]) -> dict[str, Any]:
    """`body()`'s answer with the timing of the CLI runs it made (module doc)."""
    if _state.meter is not None:
        raise RuntimeError("a bench request is already being measured")
    started = time.perf_counter_ns()
    meter = _state.meter = Meter()
    try:
        answer = body()
    finally:
        _state.meter = None
    request_ns = time.perf_counter_ns() - started
    if meter.runs == 0:
        raise RuntimeError("the bench op measured no run of the agent's CLI (kit/bench.py)")
    return {
        "answer": answer,
        "elapsedNs": meter.elapsed_ns,
        "requestNs": request_ns,
        "peakKiB": meter.peak_kib,
        "timing": "turn",
    }


def read_input(path: object) -> tuple[str, bool]:
    """The text of a bench op's input file, read before anything is measured, and whether
    it was valid UTF-8 (if not, U+FFFD stands for each bad sequence); a missing file is
    `InvalidInput` naming `path`."""
    if not isinstance(path, str) or not path:
        raise InvalidInput("path", "must be the path of a file")
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InvalidInput("path", f"no such file: {path}") from None
    except IsADirectoryError:
        raise InvalidInput("path", f"is a directory: {path}") from None
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace"), False


@contextmanager
def _input(path: str, text: str) -> Iterator[None]:
    """While the agent op runs, `text` is known to be the bytes of `path` (strict UTF-8)."""
    _state.source = (text, Path(path))
    try:
        yield
    finally:
        _state.source = None


def write_output(target: Path, content: str, encode: Callable[[str], bytes]) -> None:
    """Write the tool's output file: `content` encoded by the harness's own `encode`, or,
    when `content` is the bench input's text (strict UTF-8, so the encoding gives the
    file's bytes back), that file hard-linked, else copied."""
    source = _state.source
    if source is not None and source[0] is content:
        try:
            os.link(source[1], target)
        except OSError:
            shutil.copyfile(source[1], target)
        return
    target.write_bytes(encode(content))


def _utf8_size(text: object) -> int:
    """UTF-8 bytes of `text` (a saved 256 MiB output is not encoded again when ASCII)."""
    if not isinstance(text, str):
        return 0
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


# the agent op's answer, reduced to its bench op's (instructions, compaction)
_REDUCED: Final[dict[str, Callable[[Any], dict[str, Any]]]] = {
    "instructions": lambda answer: {"modelBytes": _utf8_size(answer.get("text"))},
    "compaction": lambda answer: {"compact": answer["compact"], "keep": answer["keep"]},
}


def _reduced(handler: Handler, reduce: Callable[[Any], dict[str, Any]]) -> Handler:
    """The bench op of an agent op whose args it takes as they are: its answer reduced."""

    def bench_op(args: dict[str, Any]) -> dict[str, Any]:
        return measured(lambda: reduce(handler(args)))

    return bench_op


def bench_handlers(handlers: Mapping[str, Handler]) -> dict[str, Handler]:
    """The bench ops for the agent ops in `handlers` (module doc)."""
    bench: dict[str, Handler] = {}
    tool_output = handlers.get("agent.tool_output")
    if tool_output is not None:
        run_tool = tool_output

        def agent_tool_output(args: dict[str, Any]) -> dict[str, Any]:
            path = args.get("path")
            text, strict = read_input(path)
            rest = {key: value for key, value in args.items() if key != "path"}

            def body() -> dict[str, Any]:
                with _input(str(path), text) if strict else _nothing():
                    answer = run_tool({**rest, "content": text})
                saved = answer.get("saved")
                return {
                    "modelBytes": _utf8_size(answer.get("content")),
                    "savedBytes": None if saved is None else _utf8_size(saved),
                }

            return measured(body)

        bench["bench.agent_tool_output"] = agent_tool_output
    for op, reduce in _REDUCED.items():
        handler = handlers.get(f"agent.{op}")
        if handler is not None:
            bench[f"bench.agent_{op}"] = _reduced(handler, reduce)
    return bench


@contextmanager
def _nothing() -> Iterator[None]:
    yield
