"""Cost curves of an agent's context layer: `ctxspec bench --impl AGENT --op OP`.

For each op (`OPS`: a tool output of N bytes, a tree of N instruction files, a history of
N messages) and each agent harness that lists the op's bench form in `hello`
(`bench.agent_*`, PROTOCOL.md "The agent bench ops"), the sizes double from the op's
smallest to its largest (`sizes`). Each size gets a fresh harness process (so an
in-process agent's peak memory belongs to that size alone) and `rounds` rounds, each
sending the op with the *empty* input (the base: no output, no instruction file, a
single message) and then with the size's input. A size's figure is the median of its
input's times minus the median of the base's, in the same process and minutes: for a
black box whose figure is a whole CLI turn (`timing: turn`), that takes out the start-up,
the model's round trip and everything that does not grow with the input; for an agent run
in process (`timing: in-process`) the base is near zero. Its memory is the peak the
harness reports (`peakKiB`) minus the base's: for an in-process agent the process's peak
after the input's rounds over its peak after the first base, or when the agent's code
began on the input (`setupPeakKiB`: the input read, the history converted to the agent's
objects, are the harness's, not the agent's), the higher; for a black box, whose every
turn is a new process tree whose peak jumps between levels from run to run (Codex's
190 or 310 MiB on the same input), the median over the median, the base's own spread
kept as the memory's noise. Divided by the input's bytes, the memory per input byte.

A curve stops at the first size whose request passes the deadline, fails, or would start
after the curve's time budget is spent; the point says why, and `stopped` says where.
The fit and the findings are `scaling.py`'s.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ctxspec.benchmarks.measure import open_target, peak_kib
from ctxspec.conformance.errors import AdapterError
from ctxspec.conformance.protocol import json_kind
from ctxspec.conformance.runner.profiles import profile_for
from ctxspec.conformance.transport.named import InstallError
from ctxspec.conformance.transport.resolve import canonical_name
from ctxspec.corpora.generators import agent_inputs

__all__ = ["OPS", "Curve", "Op", "Point", "curve_from_json", "measure_curve", "sizes"]


@dataclass(frozen=True, slots=True)
class Op:
    """One agent bench op: its sizes and how its input is made."""

    name: str  # as `--op` takes it
    unit: str  # what a size counts
    smallest: int
    largest: int
    base: int  # the empty input's size

    @property
    def wire(self) -> str:
        return f"bench.{self.name}"


OPS: Final = {
    op.name: op
    for op in (
        Op("agent_tool_output", "bytes", 1 << 10, 256 << 20, 0),
        Op("agent_instructions", "files", 10, 10_000, 0),
        Op("agent_compaction", "messages", 100, 100_000, 1),
    )
}
# an input under this many bytes says nothing of memory per byte: a process's resident
# memory moves by more than the input between two runs (docs/performance/agents.md)
MEMORY_FLOOR_BYTES: Final = 1 << 20


def sizes(op: Op, *, up_to: int | None = None, only: int | None = None) -> list[int]:
    """The op's sizes, doubling from its smallest up to its largest (the largest itself
    last where doubling passes it), or only `up_to`; `only`: that one size."""
    if only is not None:
        return [only]
    top = op.largest if up_to is None else up_to
    out, size = [], op.smallest
    while size <= top:
        out.append(size)
        size *= 2
    if out and out[-1] < top:
        out.append(top)
    return out


@dataclass
class Point:
    """One size of a curve: medians of its rounds, base taken out."""

    size: int
    input_bytes: int
    seconds: float | None = None  # the input's median minus the base's
    base_seconds: float | None = None  # the base's median (a black box's whole empty turn)
    spread: float | None = None  # the base's max - min over its rounds: the noise
    wall_seconds: float | None = None  # the runner's clock, the input's median
    peak_kib: int | None = None
    base_peak_kib: int | None = None
    base_peak_spread_kib: int = 0  # the base's peaks, max - min: a black box's memory noise
    answer: Any = None  # the input's answer (of its last round)
    timing: str | None = None  # in-process | turn
    error: str | None = None  # why the curve stopped here

    @property
    def memory_kib(self) -> int | None:
        """The peak over the base's: the memory the input cost."""
        if self.peak_kib is None or self.base_peak_kib is None:
            return None
        return max(0, self.peak_kib - self.base_peak_kib)

    @property
    def memory_per_byte(self) -> float | None:
        if self.memory_kib is None or self.input_bytes < MEMORY_FLOOR_BYTES:
            return None
        return self.memory_kib * 1024 / self.input_bytes

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "inputBytes": self.input_bytes,
            "seconds": self.seconds,
            "baseSeconds": self.base_seconds,
            "spread": self.spread,
            "wallSeconds": self.wall_seconds,
            "peakKiB": self.peak_kib,
            "basePeakKiB": self.base_peak_kib,
            "basePeakSpreadKiB": self.base_peak_spread_kib,
            "memoryPerByte": self.memory_per_byte,
            "timing": self.timing,
            "answer": self.answer,
            "error": self.error,
        }


@dataclass
class Curve:
    """One agent on one op: its points, where it stopped and why."""

    impl: str
    op: str
    points: list[Point] = field(default_factory=list)
    stopped: str | None = None  # where and why the curve ended before its largest size
    unsupported: str | None = None  # the harness does not list the op
    seconds: float = 0.0  # the curve's wall time

    def to_json(self) -> dict[str, Any]:
        return {
            "impl": self.impl,
            "op": self.op,
            "points": [p.to_json() for p in self.points],
            "stopped": self.stopped,
            "unsupported": self.unsupported,
            "seconds": self.seconds,
        }


def curve_from_json(raw: Mapping[str, Any]) -> Curve:
    """A curve as `results.json` holds it (`Curve.to_json`), to be judged again."""
    curve = Curve(raw["impl"], raw["op"], stopped=raw["stopped"], unsupported=raw["unsupported"])
    curve.seconds = raw["seconds"]
    for p in raw["points"]:
        point = Point(p["size"], p["inputBytes"], p["seconds"], p["baseSeconds"], p["spread"])
        point.wall_seconds, point.peak_kib = p["wallSeconds"], p["peakKiB"]
        point.base_peak_kib = p["basePeakKiB"]
        point.base_peak_spread_kib = p.get("basePeakSpreadKiB", 0)
        point.answer, point.timing, point.error = p["answer"], p["timing"], p["error"]
        curve.points.append(point)
    return curve


class Stop(Exception):
    """A request that ends its curve: failed, or past the deadline."""


def request_args(op: Op, size: int, spec: str, cache: Path) -> tuple[dict[str, Any], int]:
    """The op's args at `size` and the input's bytes."""
    if op.name == "agent_tool_output":
        path = agent_inputs.tool_output_file(size, cache)
        return {"path": str(path)}, size
    if op.name == "agent_instructions":
        profile = profile_for(spec)
        name = agent_inputs.instruction_name(profile.term("instructions", "names"))
        # trusted where the agent's trust gates something, else no decision recorded (an
        # agent with no trust store cannot take one)
        gated = bool(profile.term("trust", "gates"))
        args = agent_inputs.instruction_tree(size, name, trusted=gated)
        return args, agent_inputs.tree_bytes(args)
    args = agent_inputs.history(size)
    return args, agent_inputs.history_bytes(args)


def _setup_peak(result: Mapping[str, Any]) -> int | None:
    """An in-process harness's peak when the agent's code began (what setup held)."""
    value = result.get("setupPeakKiB")
    return value if isinstance(value, int) else None


def _answer(op: Op, result: object) -> tuple[Mapping[str, Any], int, int | None, str]:
    """The bench answer's parts, or `Stop` naming what is not in the op's shape."""
    if not isinstance(result, Mapping):
        raise Stop(f"{op.wire} answered {json_kind(result)}, not an object")
    elapsed, whole = result.get("elapsedNs"), result.get("requestNs")
    if not isinstance(elapsed, int) or not isinstance(whole, int) or elapsed < 0:
        raise Stop(f"{op.wire}: elapsedNs and requestNs must be non-negative integers")
    peak = result.get("peakKiB")
    if peak is not None and not isinstance(peak, int):
        raise Stop(f"{op.wire}: peakKiB must be an integer or null")
    answer = result.get("answer")
    if not isinstance(answer, Mapping):
        raise Stop(f"{op.wire}: answer must be an object")
    return answer, elapsed, peak, str(result.get("timing", "in-process"))


def _call(impl: Any, op: Op, args: Mapping[str, Any], deadline: float) -> tuple[Any, float]:
    """One request: its result and the runner's wall seconds (`Stop` past the deadline)."""
    start = time.perf_counter()
    try:
        reply = impl.call(op.wire, args)
    except AdapterError as error:
        raise Stop(f"{error.kind}: {error.message[:300]}") from None
    wall = time.perf_counter() - start
    if reply.error is not None:
        raise Stop(f"{reply.error.type}: {reply.error.message[:300]}")
    if wall > deadline:
        raise Stop(f"took {wall:.1f} s, past the {deadline:g} s deadline")
    return reply.result, wall


def measure_point(
    spec: str, op: Op, size: int, *, rounds: int, deadline: float, cache: Path
) -> tuple[Point, Mapping[str, Any]]:
    """One size in a fresh process: `rounds` rounds of the base then the input."""
    base_args, _ = request_args(op, op.base, spec, cache)
    args, input_bytes = request_args(op, size, spec, cache)
    point = Point(size, input_bytes)
    impl = open_target(spec, timeout=deadline * 1.5 + 5)  # past it, the process is killed
    hello: Mapping[str, Any] = {}
    try:
        try:
            hello = impl.hello
        except AdapterError as error:
            point.error = f"did not start: {error.kind}: {error.message[:300]}"
            return point, hello
        if op.wire not in set(hello.get("ops", [])):
            raise LookupError(f"{op.wire} is not in its hello")
        base_ns, input_ns, walls, base_peaks, peaks = [], [], [], [], []
        setup_peaks: list[int | None] = []
        try:
            for _ in range(rounds):
                result, _wall = _call(impl, op, base_args, deadline)
                _, elapsed, peak, _ = _answer(op, result)
                base_ns.append(elapsed)
                base_peaks.append(peak if peak is not None else peak_kib(impl.pid))
                result, wall = _call(impl, op, args, deadline)
                answer, elapsed, peak, timing = _answer(op, result)
                input_ns.append(elapsed)
                setup_peaks.append(_setup_peak(result))
                walls.append(wall)
                peaks.append(peak if peak is not None else peak_kib(impl.pid))
                point.answer, point.timing = dict(answer), timing
        except Stop as stop:
            point.error = str(stop)
        if input_ns:
            base = statistics.median(base_ns) / 1e9
            point.base_seconds = base
            point.spread = (max(base_ns) - min(base_ns)) / 1e9
            point.seconds = statistics.median(input_ns) / 1e9 - base
            point.wall_seconds = statistics.median(walls)
            if point.timing == "in-process":  # a peak is the process's so far
                # before any input was read, or, later, when the agent's code began on the
                # first input (setup held it: a history's objects are the harness's)
                starts = [base_peaks[0], setup_peaks[0]]
                point.base_peak_kib = max((p for p in starts if p is not None), default=None)
                point.peak_kib = max((p for p in peaks if p is not None), default=None)
            else:  # each turn's own tree: its peaks jump between levels from run to run
                point.base_peak_kib, point.peak_kib = _median(base_peaks), _median(peaks)
                known = [p for p in base_peaks if p is not None]
                point.base_peak_spread_kib = max(known) - min(known) if known else 0
        elif point.error is None:
            point.error = "no round was taken"
    finally:
        impl.close()
    return point, hello


def _median(values: Sequence[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return int(statistics.median(known)) if known else None


def measure_curve(
    spec: str,
    op: Op,
    points: Sequence[int],
    *,
    rounds: int,
    deadline: float,
    budget: float,
    cache: Path,
    step: Callable[..., None] = lambda advance=1, note=None: None,
) -> tuple[Curve, Mapping[str, Any]]:
    """The curve of `spec` on `op` over `points`; the harness's hello beside it."""
    curve = Curve(canonical_name(spec), op.name)
    started = time.monotonic()
    hello: Mapping[str, Any] = {}
    for index, size in enumerate(points):
        spent = time.monotonic() - started
        if index and spent > budget:
            curve.stopped = (
                f"at {size:,} {op.unit}: the curve's {budget:g} s budget was spent ({spent:.0f} s)"
            )
            break
        step(advance=0, note=f"{curve.impl} {op.name} {size:,} {op.unit}")
        try:
            point, hello = measure_point(
                spec, op, size, rounds=rounds, deadline=deadline, cache=cache
            )
        except LookupError as missing:
            curve.unsupported = str(missing).strip("'\"")
            break
        except (InstallError, OSError, ValueError) as error:
            curve.stopped = f"at {size:,} {op.unit}: did not start: {str(error)[:300]}"
            break
        finally:
            step()
        curve.points.append(point)
        if point.error is not None:
            curve.stopped = f"at {size:,} {op.unit}: {point.error}"
            break
    curve.seconds = time.monotonic() - started
    return curve, hello
