"""Instruction counts of the engines' own ops: a benchmark gate that holds on a noisy machine.

Wall-clock ratios on the shared 2-core machine moved by up to 2x between runs, so the ratio
gate (`compare.py`) can only catch large falls. The number of instructions an op executes
does not depend on what else the machine runs. So for the engines of this package (the
reference and the fast engine) `ctxspec bench` also counts the instructions of each bench
op at fixed sizes (`jobs`: the mixed stream log and batch head and tail at `SIZE`, the six
session helpers and the two end-to-end figures at `ENTRIES` entries), and `--compare`
fails when a count rises more than `--instructions-tolerance` above `baseline.json`'s.
Figures that compare implementations stay ratios of wall time: Pi is another runtime,
its instructions are not comparable.

How: one process per engine runs under Callgrind (Debian's `valgrind`), `python -m
ctxspec.benchmarks.instructions serve ENGINE JOBS.json`, with `PYTHONHASHSEED=0`, on inputs written
beforehand by the runner (the generators are seeded: the same bytes every time). It calls
the bench handlers of `ctxspec.conformance.engines.reference.ops.bench`, exactly what
`ctxspec bench` times, after replacing their `measured` (the one function that wraps the
measured call) by one that calls `os.sched_yield()` just before and just after the call.
Callgrind runs with `--dump-before=sched_yield`: entering the libc function writes the
counts since the previous dump to a numbered file and zeroes them. So the dump between
the two marks of a job holds the measured call alone (plus a constant ~200 instructions
of the marks themselves); start-up, imports, reading and parsing the input, building the
answer land in the other dumps, which are ignored. Neither CPython nor the engines call
`sched_yield`; a process with more dumps than marks is refused. The marker is a libc
function called directly by CPython's `os` module, so Callgrind sees it entered whether
the interpreter has symbols or not; a function called through ctypes would not do
(Callgrind does not see libffi's call as a call), nor a Python function (Callgrind sees
only the interpreter's C functions). Before each job the process collects garbage.

One adjustment (`_summary`): the bytes glibc's `realloc` copies when it cannot grow a
block in place (the calls from `_int_realloc` to `memcpy`/`memmove`, named by the libc
debug symbols Debian's valgrind depends on) are taken off the count. Whether a block can
grow in place depends on the heap's history, and the interpreter's start-up is not
exactly repeatable (importing jsonschema varies by ~20k instructions), so without it an
op whose buffer grows by `realloc` (the 1 MiB stream) counted one of two values 0.7%
apart; with it six runs agree within 0.47%, and the tolerance's default is 1%
(docs/performance/index.md: the figures, and how long a count takes: about 20 s per
engine).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxspec import benchmarks
from ctxspec.benchmarks import compare
from ctxspec.benchmarks.requests import parse_size, session_requests
from ctxspec.conformance.bench_requests import SIDES, Request, stream_request, truncate_request
from ctxspec.corpora.generators.bench_session import make_session
from ctxspec.corpora.generators.logs import cached_stream_log

__all__ = ["ENGINES", "CountError", "Job", "agreement", "count", "environment", "jobs", "valgrind"]

ENGINES: Final = ("reference", "fastengine")  # whose instructions are counted
SIZE: Final = "1MiB"  # the stream and batch input
ENTRIES: Final = 1000  # the session's length
MARKS: Final = ("sched_yield", "__sched_yield")  # the libc function, by both its names
TIMEOUT: Final = 900.0  # seconds per engine's counting process
C_PASSES: Final = ("_speedups", "_sessions", "_tokens", "_parse", "_json")  # setup.py's
_PRODUCER: Final = re.compile(rb"GNU C[0-9]* [0-9.]+ [ -~]+")  # DW_AT_producer, printable


class CountError(RuntimeError):
    """Instructions could not be counted (no valgrind, a failed op, a stray mark)."""


@dataclass(frozen=True, slots=True)
class Job:
    """One counted op: its name in the gate (`<part> <size>: <figure> <engine>`, the
    ratios' names without the `/ <ratio-to>`), the bench op and its arguments."""

    name: str
    op: str
    args: Mapping[str, Any]


def environment() -> str:
    """What a count depends on besides the code: the interpreter, libc, valgrind, and
    how the fast engine's C passes were built (`c_build`). Counts from elsewhere are not
    gated."""
    tool = valgrind()
    version = "no valgrind"
    if tool is not None:
        done = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False)
        version = done.stdout.strip()
    libc = " ".join(platform.libc_ver())
    return (
        f"{platform.python_implementation()} {platform.python_version()} "
        f"{platform.machine()}, {libc}, {version}, fastengine C passes {c_build()}"
    )


def c_build() -> str:
    """How the fast engine's C passes were compiled: "built by" the compiler and flags
    GCC records in their debug information (setuptools compiles with Python's CFLAGS,
    `-g` among them), "built, flags not recorded" without it, or "not built". The same
    code compiled otherwise executes other instructions, so its counts are another
    baseline's (docs/performance/index.md)."""
    producers: set[str] = set()
    for name in C_PASSES:
        spec = importlib.util.find_spec(f"ctxspec.fastengine.{name}")
        if spec is None or spec.origin is None:
            return "not built"
        found = _PRODUCER.search(Path(spec.origin).read_bytes())
        producers.add(found.group().decode("ascii") if found else "")
    if "" in producers:
        return "built, flags not recorded"
    return "built by " + "; ".join(sorted(producers))


def valgrind() -> str | None:
    """The valgrind to count with, or None when it is not installed."""
    return shutil.which("valgrind")


def jobs(
    engine: str, cache: Path, *, size: str = SIZE, entries: Sequence[int] = (ENTRIES,)
) -> list[Job]:
    """The ops counted for `engine`, their inputs written under `cache`: the stream and
    batch at `size`, the session figures at each length of `entries` (the gate's: one,
    `ENTRIES`; more show how a count grows with the session)."""
    log = cached_stream_log("mixed", parse_size(size), cache, seed=3)
    requests: list[tuple[str, Request]] = [(f"stream {size}: mixed", stream_request(log))]
    requests += [(f"truncate {size}: {side}", truncate_request(log, side)) for side in SIDES]
    for length in entries:
        requests += [
            (f"sessions {length}: {figure}", request)
            for figure, request in session_requests(make_session(length), cache, length).items()
        ]
    return [Job(f"{name} {engine}", r.bench_op, r.bench_args) for name, r in requests]


def count(engine: str, work: Sequence[Job], *, timeout: float = TIMEOUT) -> dict[str, int]:
    """The instructions of each job's measured call in `engine`, by job name."""
    if engine not in ENGINES:
        raise CountError(f"instructions are counted for {', '.join(ENGINES)}, not {engine}")
    tool = valgrind()
    if tool is None:
        raise CountError("valgrind is not installed (Debian: apt-get install valgrind)")
    root = str(Path(benchmarks.__file__).resolve().parent.parent)
    path = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=path)
    with tempfile.TemporaryDirectory(prefix="ctxspec-callgrind-") as scratch:
        listing = Path(scratch) / "jobs.json"
        listing.write_text(json.dumps([[j.name, j.op, dict(j.args)] for j in work]), "utf-8")
        out = Path(scratch) / "callgrind.out"
        argv = [
            tool,
            "-q",
            "--tool=callgrind",
            *(f"--dump-before={mark}" for mark in MARKS),
            f"--callgrind-out-file={out}",
            sys.executable,
            "-m",
            "ctxspec.benchmarks.instructions",
            "serve",
            engine,
            str(listing),
        ]
        try:
            done = subprocess.run(
                argv, env=env, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired as error:
            raise CountError(f"counting {engine} took more than {timeout:.0f} s") from error
        if done.returncode != 0:
            raise CountError(f"counting {engine} failed: {done.stderr.strip()[-600:]}")
        return _read(out, work)


def _read(out: Path, work: Sequence[Job]) -> dict[str, int]:
    """The counts of the jobs' dumps: dump 1 is start-up to the first mark (a warm-up
    call, so the dynamic linker's first binding of the marker is not in a job), then per
    job one dump of its preparation and one of its measured call."""
    dumps = sorted(out.parent.glob(f"{out.name}.*"), key=lambda p: int(p.suffix[1:]))
    if len(dumps) != 1 + 2 * len(work):
        raise CountError(
            f"{len(dumps)} Callgrind dumps for {len(work)} jobs (expected {1 + 2 * len(work)}): "
            "something in a measured call entered sched_yield, the marker"
        )
    return {job.name: _summary(dumps[2 + 2 * n]) for n, job in enumerate(work)}


_NAMED = re.compile(r"^(c?fn)=\((\d+)\)(?: (.*))?$")
_COPY = re.compile(r"__mem(cpy|move)")


def _summary(dump: Path) -> int:
    """A dump's instructions less the copies glibc's realloc made (see the docstring): the
    inclusive cost of every call from `_int_realloc` to `__memcpy*` / `__memmove*`."""
    names: dict[str, str] = {}
    caller = callee = ""
    total: int | None = None
    copies = 0
    call = False
    with dump.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            named = _NAMED.match(line)
            if named:
                kind, ident, name = named.groups()
                if name:
                    names[ident] = name.strip()
                if kind == "fn":
                    caller = ident
                else:
                    callee = ident
            elif line.startswith("calls="):
                call = True
            elif call and line[:1] in "0123456789+-*":
                call = False
                if names.get(caller, "").startswith("_int_realloc") and _COPY.match(
                    names.get(callee, "")
                ):
                    copies += int(line.split()[1])
            elif line.startswith("summary:"):
                total = int(line.split()[1])
    if total is None:
        raise CountError(f"{dump.name}: no summary line")
    return total - copies


def _serve(engine: str, listing: Path) -> None:
    """The counting process: every job's bench op once, its measured call between marks."""
    from ctxspec.conformance.engines.reference.ops import REFERENCE, bench  # noqa: PLC0415

    chosen = REFERENCE
    if engine == "fastengine":
        from ctxspec.conformance.engines.fastengine import FAST  # noqa: PLC0415

        chosen = FAST
    handlers = bench.handlers(chosen)

    def marked(call: Callable[[], Any]) -> tuple[Any, int]:
        os.sched_yield()
        value = call()
        os.sched_yield()
        return value, 0

    bench.measured = marked
    os.sched_yield()  # the warm-up mark: dump 1 ends here
    for _name, op, args in json.loads(listing.read_text("utf-8")):
        gc.collect()
        answer = handlers[op](args)["answer"]
        persisted = answer.get("persistedPath") if isinstance(answer, dict) else None
        if isinstance(persisted, str):
            Path(persisted).unlink(missing_ok=True)


def agreement(runs: Sequence[Mapping[str, int]]) -> float:
    """The largest relative difference of any count between runs (max / min - 1)."""
    names = set().union(*runs)
    return max(
        (max(r[n] for r in runs) / min(r[n] for r in runs) - 1 for n in names if n in runs[0]),
        default=0.0,
    )


def _lengths(text: str) -> tuple[int, ...]:
    try:
        lengths = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"session lengths, e.g. 1000,10000: {text!r}") from None
    if min(lengths) < 1:
        raise argparse.ArgumentTypeError(f"session lengths must be positive: {text!r}")
    return lengths


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m ctxspec.benchmarks.instructions count [--runs N] [--engine E] [--entries N,...]`:
    the counts of the default jobs (or at other session lengths), each engine counted
    `--runs` times, and how well the runs agree.
    (`serve ENGINE JOBS.json` is the counting process itself, run under Callgrind.)"""
    parser = argparse.ArgumentParser(prog="python -m ctxspec.benchmarks.instructions")
    commands = parser.add_subparsers(dest="command", required=True)
    counting = commands.add_parser("count", help="count the default jobs, --runs times")
    counting.add_argument("--runs", type=int, default=2, help="counts per engine (2)")
    counting.add_argument("--engine", choices=ENGINES, action="append", help="(both)")
    counting.add_argument("--cache", type=Path, default=Path(".cache/bench"), help="inputs")
    counting.add_argument(
        "--entries",
        type=_lengths,
        default=(ENTRIES,),
        metavar="N,...",
        help=f"session lengths ({ENTRIES}, the gate's; more show how a count grows)",
    )
    counting.add_argument(
        "--save-baseline",
        type=Path,
        metavar="FILE",
        help="write the counts (each the highest of the runs) into this baseline, its "
        "ratios kept (benchmarks/baseline.json)",
    )
    serving = commands.add_parser("serve", help="the counting process (under Callgrind)")
    serving.add_argument("engine", choices=ENGINES)
    serving.add_argument("jobs", type=Path)
    options = parser.parse_args(argv)
    if options.command == "count" and options.save_baseline and options.entries != (ENTRIES,):
        parser.error(f"--save-baseline takes the gate's jobs: --entries {ENTRIES} only")
    if options.command == "serve":
        _serve(options.engine, options.jobs)
        return 0
    runs: list[dict[str, int]] = [{} for _ in range(options.runs)]
    for engine in options.engine or ENGINES:
        work = jobs(engine, options.cache, entries=options.entries)
        for run in runs:
            started = time.perf_counter()
            try:
                run.update(count(engine, work))
            except CountError as error:
                print(f"python -m ctxspec.benchmarks.instructions: {error}", file=sys.stderr)
                return 2
            print(f"{engine}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    for name in runs[0]:
        print(f"{name}: {'  '.join(f'{run[name]:,}' for run in runs)}")
    print(f"max relative difference: {agreement(runs):.4%}")
    if options.save_baseline:
        highest = {name: max(run[name] for run in runs) for name in runs[0]}
        note = (
            f"the highest of {options.runs} runs of "
            "`python -m ctxspec.benchmarks.instructions count`"
        )
        compare.save_counts(highest, options.save_baseline, note, environment())
    return 0


if __name__ == "__main__":
    sys.exit(main())
