"""Any implementation measured over protocol v1: `ctxspec bench --impl X` (one or more).

Each implementation runs as its own process (the reference and the fast engine too,
`python -m ctxspec.conformance.engines.reference` and `python -m
ctxspec.conformance.engines.fastengine`), a fresh one per input size or session length, so its
peak memory (`VmHWM` of the process and its descendants, read from /proc) belongs to
that size alone. The reference is the oracle: it answers every request once, first, and
is timed (a column of its own, `rounds` rounds) only when named among the
implementations: at a million entries each of its rounds costs tens of seconds the
engines raced do not need. Every request is sent `rounds` times to each implementation
measured and reported as medians; the rounds are interleaved (each round asks every
implementation once, the order turning), so the implementations compared see the same
moments of a shared machine.

- **With the bench extension** (`bench.stream`, `bench.truncate`, `bench.session` in
  `hello`) the implementation reads the input file itself and reports the nanoseconds of
  the measured work (`elapsedNs`) and of the whole request (`requestNs`). The runner
  times every request by its own clock too. A round that claims more than its wall time
  is *over-reported*. A request whose wall time exceeds the implementation's `requestNs`
  plus what transport can explain (twice the round trip of a `hello`, 200 ns per byte of
  the answer, 50 ms and a quarter of the wall time) in every round, the best round
  judged, since a shared machine may stall any one, is *under-reported*. Either way its
  figure is the wall time, flagged.
- **Without it**, the ordinary ops measure what they can (`stream.tail` with the chunks
  in base64, `truncate.head`/`truncate.tail` with the whole text, `session.context`,
  `compaction.cut_point`, `compaction.prepare`, `branch.collect`, `session.navigate`):
  the figure is the wall time of the request, transport (JSON encoding both ways, the
  pipe) included, and the report says so.

Every answer, of every round, is checked against the reference's answer to the same
request (a persisted full output by its SHA-256 and size, the file then deleted): a
wrong answer is reported as wrong, whatever its time. The reference's answer is held as
its canonical text (`answers.Expected`), so a million entries' context costs the runner
a few hundred MB rather than several GB, and the check is one comparison in C.
"""

from __future__ import annotations

import math
import os
import shlex
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from ctxspec.benchmarks.answers import Expected, Suspect, Verdict, digest_persisted
from ctxspec.conformance.ask import ask
from ctxspec.conformance.bench_requests import PlainAnswerError, Request
from ctxspec.conformance.errors import AdapterError
from ctxspec.conformance.judging.compare import canonical
from ctxspec.conformance.transport.named import InstallError, install, parse_named
from ctxspec.conformance.transport.resolve import canonical_name, engine_command
from ctxspec.conformance.transport.wire import WireImplementation

__all__ = ["Bench", "Group", "Measure", "measure_group", "open_target", "peak_kib"]

ANSWER_CAP: Final = 1 << 30  # a session context of 1M entries is a few hundred MiB
# what transport may add to a request, on a loaded 2-core machine: JSON out of the child
# and into the runner at 5 MB/s (measured near 10), 50 ms, a quarter of the wall time
TRANSPORT_NS_PER_BYTE: Final = 200
SLACK_NS: Final = 50_000_000
CLOCK_SLACK_NS: Final = 1_000_000  # two processes' monotonic clocks, rounding
NAN: Final = float("nan")  # no figure

Via = Literal["bench", "transport"]


def open_target(spec: str, *, timeout: float) -> WireImplementation:
    """`spec` as `ctxspec conform` resolves it, always as a process of its own."""
    served = engine_command(spec)
    if served is not None:
        return WireImplementation(served, name=spec, timeout=timeout, max_answer_bytes=ANSWER_CAP)
    named = parse_named(spec)
    if named is not None:
        launch = install(named, quiet=True)
        env = dict(os.environ, **launch.env)
        return WireImplementation(
            launch.argv, name=launch.name, timeout=timeout, env=env, max_answer_bytes=ANSWER_CAP
        )
    argv = shlex.split(spec)
    if not argv:
        raise ValueError("--impl needs `reference`, `fastengine`, NAME@VERSION or a command")
    return WireImplementation(argv, name=spec, timeout=timeout, max_answer_bytes=ANSWER_CAP)


def _descendants(pid: int) -> Iterator[int]:
    yield pid
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for task in tasks:
        try:
            children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
        except OSError:
            continue
        for child in children:
            yield from _descendants(int(child))


def peak_kib(pid: int | None) -> int | None:
    """The largest `VmHWM` of `pid` and its descendants (KiB), or None if unreadable."""
    if pid is None:
        return None
    peaks = []
    for member in _descendants(pid):
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]))
    return max(peaks) if peaks else None


@dataclass(slots=True)
class Measure:
    """One implementation on one input: medians of its rounds, and whether to trust them."""

    via: Via
    seconds: float  # the implementation's own figure, or the wall time when via transport
    wall_seconds: float
    verdict: Verdict = "ok"
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "via": self.via,
            "seconds": None if math.isnan(self.seconds) else self.seconds,
            "wallSeconds": None if math.isnan(self.wall_seconds) else self.wall_seconds,
            "verdict": self.verdict,
            "detail": self.detail,
        }


@dataclass
class Rounds:
    """One implementation's rounds of one request, as they are taken."""

    request: Request
    via: Via
    plain: dict[str, Any] = field(default_factory=dict)  # the ordinary op's arguments
    own: list[int] = field(default_factory=list)  # its figure per round (ns)
    walls: list[int] = field(default_factory=list)  # the runner's wall time per round (ns)
    clocks: list[tuple[int, int, int, int]] = field(default_factory=list)  # see Bench._clock
    expected: Expected | None = None  # the first round's answer, when it is the oracle's
    verdict: Verdict = "ok"
    detail: str = ""
    failed: Measure | None = None  # an error or a suspect answer ended the rounds


@dataclass
class Bench:
    """One implementation's process for one group of requests (one size or session)."""

    spec: str
    timeout: float = 600.0
    rounds: int = 3
    impl: WireImplementation = field(init=False)
    ping_ns: int = 0

    def __post_init__(self) -> None:
        self.spec = canonical_name(self.spec)
        self.impl = open_target(self.spec, timeout=self.timeout)

    def __enter__(self) -> Bench:
        self.impl.hello  # noqa: B018  (started and handshaken before the clock runs)
        pings = []
        for _ in range(5):
            start = time.perf_counter_ns()
            self.impl.call("hello", {"protocol": 1})
            pings.append(time.perf_counter_ns() - start)
        self.ping_ns = int(statistics.median(pings))
        return self

    def __exit__(self, *exc: object) -> None:
        self.impl.close()

    @property
    def hello(self) -> Mapping[str, Any]:
        return self.impl.hello

    def via(self, request: Request) -> Via | None:
        if request.bench_op in self.impl.ops:
            return "bench"
        if request.plain_op in self.impl.ops:
            return "transport"
        return None

    def peak_kib(self) -> int | None:
        return peak_kib(self.impl.pid)

    def _call(self, op: str, args: Mapping[str, Any]) -> tuple[Any, int]:
        start = time.perf_counter_ns()
        reply = ask(self.impl, op, args)
        wall = time.perf_counter_ns() - start
        if reply.error is not None:
            raise Suspect("error", f"{op}: {reply.error.type}: {reply.error.message[:300]}")
        return reply.result, wall

    def _clock(self, rounds: Sequence[tuple[int, int, int, int]]) -> str | None:
        """Why the implementation's own times cannot be believed, or None.

        `rounds` holds (wall, requestNs, elapsedNs, answer bytes) of each round. No honest
        round claims more than its wall time, so one such round is over-reporting. A
        machine may stall any process, so under-reporting is the wall time exceeding what
        transport explains in every round: the best round is judged.
        """
        for wall, whole, elapsed, _ in rounds:
            if elapsed > whole + CLOCK_SLACK_NS or whole > wall + CLOCK_SLACK_NS:
                return (
                    f"over-reports: elapsedNs {elapsed} / requestNs {whole} against a wall "
                    f"time of {wall} ns"
                )

        def unexplained(wall: int, whole: int, size: int) -> tuple[int, int]:
            allowance = 2 * self.ping_ns + size * TRANSPORT_NS_PER_BYTE + SLACK_NS + wall // 4
            return wall - whole - allowance, allowance

        best = min(rounds, key=lambda r: unexplained(r[0], r[1], r[3])[0])
        excess, allowance = unexplained(best[0], best[1], best[3])
        if excess > 0:
            return (
                f"under-reports: requestNs {best[1]} but the request took {best[0]} ns "
                f"(transport explains at most {allowance} ns; the best of {len(rounds)} rounds)"
            )
        return None

    def start(self, request: Request) -> Rounds:
        """The rounds of `request` to come (`take` each, then `finish`)."""
        via = self.via(request)
        assert via is not None, "ask `via` first"
        rounds = Rounds(request, via)
        try:
            rounds.plain = request.plain_args() if via == "transport" else {}
        except Suspect as suspect:
            rounds.failed = Measure(via, NAN, NAN, suspect.verdict, suspect.detail)
        return rounds

    def take(self, rounds: Rounds, expected: Expected | None = None) -> None:
        """One round of `rounds`: its times, its answer checked against `expected`; with
        none (the oracle's rounds), the first round's answer is kept as `rounds.expected`."""
        if rounds.failed is not None:
            return
        request = rounds.request
        try:
            if rounds.via == "bench":
                result, wall = self._call(request.bench_op, request.bench_args)
                answer = result["answer"]
                if request.bench_op == "bench.stream":
                    answer = digest_persisted(answer)
                text = canonical(answer)  # its size: what transport carried, near enough
                rounds.clocks.append((wall, result["requestNs"], result["elapsedNs"], len(text)))
                rounds.own.append(result["elapsedNs"])
            else:
                result, wall = self._call(request.plain_op, rounds.plain)
                answer = request.plain_answer(result)
                text = canonical(answer)
                rounds.own.append(wall)
        except Suspect as suspect:
            rounds.failed = Measure(rounds.via, NAN, NAN, suspect.verdict, suspect.detail)
            return
        except PlainAnswerError as error:  # the ordinary op's own failure: an error figure
            rounds.failed = Measure(rounds.via, NAN, NAN, "error", str(error))
            return
        except AdapterError as error:
            rounds.failed = Measure(rounds.via, NAN, NAN, "error", str(error)[:300])
            return
        rounds.walls.append(wall)
        if expected is None:
            if rounds.expected is None:
                rounds.expected = Expected(text)
            return
        if rounds.verdict == "ok":
            difference = expected.difference(answer, text)
            if difference is not None:
                rounds.verdict = "wrong"
                rounds.detail = f"differs from the reference at {difference}"

    def finish(self, rounds: Rounds) -> Measure:
        """The measure of the rounds taken: medians, the clock judged."""
        if rounds.failed is not None:
            return rounds.failed
        wall_seconds = statistics.median(rounds.walls) / 1e9
        seconds = statistics.median(rounds.own) / 1e9
        verdict, detail = rounds.verdict, rounds.detail
        clock = self._clock(rounds.clocks) if rounds.clocks else None
        if clock is not None:
            seconds = wall_seconds
            if verdict == "ok":
                kind, _, _ = clock.partition(":")
                verdict = "under-reports" if kind == "under-reports" else "over-reports"
                detail = clock
        return Measure(rounds.via, seconds, wall_seconds, verdict, detail)


@dataclass
class Group:
    """Every implementation on every request of one group (one input size or session)."""

    measures: dict[str, dict[str, Measure | None]]  # request name -> label -> figure
    peaks: dict[str, int | None]  # label -> peak KiB of its process over the group
    hellos: dict[str, Mapping[str, Any]]  # label -> its hello


def _open(spec: str, *, rounds: int, timeout: float) -> Bench | str:
    """The implementation's process, started and handshaken, or why it did not start."""
    bench: Bench | None = None
    try:
        bench = Bench(spec, timeout=timeout, rounds=rounds)
        bench.__enter__()
    except (AdapterError, InstallError, OSError, ValueError) as error:
        if bench is not None:
            bench.__exit__()
        return str(error)[:300]
    return bench


def measure_group(
    specs: Sequence[str],
    requests: Mapping[str, Request],
    *,
    rounds: int,
    timeout: float,
    step: Callable[..., None] = lambda advance=1, note=None: None,
) -> Group:
    """Every implementation of `specs` on every request, rounds interleaved, each answer
    checked against the reference's.

    The reference's process (the oracle) and every implementation's are started first;
    then, request by request, the reference answers once, and each round asks every
    implementation of `specs` once, the order turning by one each round, so all see the
    same moments of a shared machine. With `reference` among `specs` its oracle answer
    is its first round, and it is measured like the others. A request an implementation
    cannot be measured on (neither its bench op nor its ordinary op in `hello`) gets None;
    one that did not start gets an error figure on every request. `step`
    (`ctxspec.conformance.runner.progress`) is told of each request as it is done.
    """
    columns: dict[str, str] = {}
    for spec in specs:
        columns.setdefault(canonical_name(spec), spec)
    group = Group({name: {} for name in requests}, {}, {})
    benches: dict[str, Bench] = {}
    for label, spec in {"reference": "reference", **columns}.items():
        opened = _open(spec, rounds=rounds, timeout=timeout)
        if isinstance(opened, str):  # an install or start that failed: the column says why
            if label == "reference":
                raise RuntimeError(f"the reference (the oracle) did not start: {opened}")
            group.peaks[label] = None
            for name in requests:
                group.measures[name][label] = Measure("bench", NAN, NAN, "error", opened)
            continue
        benches[label] = opened
        group.hellos[label] = dict(opened.hello)
    try:
        for name, request in requests.items():
            step(advance=0, note=name)
            _interleave(benches, list(columns), name, request, rounds=rounds, group=group)
            step(advance=len(columns))
        for label in columns:
            if label in benches:
                group.peaks[label] = benches[label].peak_kib()
    finally:
        for bench in benches.values():
            bench.__exit__()
    return group


def _interleave(
    benches: Mapping[str, Bench],
    columns: Sequence[str],
    name: str,
    request: Request,
    *,
    rounds: int,
    group: Group,
) -> None:
    """The oracle's answer to `request`, then `rounds` rounds of it over every
    implementation of `columns` that started and can answer it."""
    oracle = benches["reference"]
    answered = oracle.start(request)
    oracle.take(answered)
    if answered.failed is not None or answered.expected is None:
        detail = answered.failed.detail if answered.failed else "no answer"
        raise RuntimeError(f"the reference failed {name}: {detail}")
    expected = answered.expected
    taking = []
    for label in columns:
        bench = benches.get(label)
        if bench is None:
            continue  # did not start: its error figure stands
        group.measures[name][label] = None
        if bench.via(request) is not None:
            state = answered if label == "reference" else bench.start(request)
            taking.append((label, bench, state))
    for turn in range(rounds):
        shift = turn % len(taking) if taking else 0
        for label, bench, state in taking[shift:] + taking[:shift]:
            if label == "reference":
                if turn > 0:  # its first round was the oracle's answer
                    bench.take(state)
            else:
                bench.take(state, expected)
    for label, bench, state in taking:
        measure = bench.finish(state)
        if label == "reference" and measure.verdict in ("wrong", "error"):
            raise RuntimeError(f"the reference failed {name}: {measure.detail}")
        group.measures[name][label] = measure
