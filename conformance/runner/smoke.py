"""`ctxspec smoke --impl X`: does an implementation speak protocol v1? An answer in seconds.

As `bowtie smoke` does for a JSON Schema harness: start the implementation, check its
handshake (as `conform` does, so a start-up failure exits 6), send one representative
request per op its `hello` lists and check each answer's framing (one line, the
request's id echoed) and shape (the envelope, the result's top-level JSON type:
`protocol.validate_shape`, the runner's one schema check that makes an error). Values
are not judged: a differing answer is `ctxspec conform`'s business.

The request of an op is the first active golden case of it that expects a result (else
its first case); a `bench.*` op gets `ctxspec bench`'s request (`bench_requests`) on a
small generated file.
`reference` and `fastengine` are served over the wire (`python -m <harness>`), as
`ctxspec bench` serves them, so their framing is checked too.

- `smoke(spec, timeout) -> Smoke`: the run; `Smoke.rows` is the table, one `Row` an op.
- `STATUSES`: what a row's status means and whether it is an answer in shape.
- `EXIT_STATUS`: how `ctxspec smoke` exits (its rows of `ctxspec.exits`);
  `smoke_arguments` adds its options (conformance/cli.py registers the command).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from ctxspec import exits
from ctxspec.conformance.ask import ask
from ctxspec.conformance.bench_requests import (
    open_request,
    session_request,
    stream_request,
    truncate_request,
)
from ctxspec.conformance.cli_args import impl_spec, output_file, seconds
from ctxspec.conformance.corpus.cases import Case, load_cases
from ctxspec.conformance.errors import AdapterError, EnvironmentMissing, StartupFailed
from ctxspec.conformance.protocol import ERROR_TYPES, quote_line
from ctxspec.conformance.transport.processes import run_dir
from ctxspec.conformance.transport.resolve import (
    InstallError,
    canonical_name,
    engine_command,
    open_implementation,
    prepare,
)
from ctxspec.conformance.transport.wire import WireImplementation
from ctxspec.corpora.generators import agent_inputs
from ctxspec.corpora.generators.bench_session import make_session, write_session, write_session_file

__all__ = [
    "DEFAULT_TIMEOUT",
    "EXIT_STATUS",
    "STATUSES",
    "Row",
    "Smoke",
    "main_smoke",
    "requests_by_op",
    "smoke",
    "smoke_arguments",
    "summary",
    "table",
]

DEFAULT_TIMEOUT: Final = 10.0  # seconds per request: a smoke test is over in seconds
STRAY_WAIT: Final = 0.02  # seconds to wait, after each answer, for a line that should not come
NOTE_CHARS: Final = 120  # a row's note is one line of at most this many characters
STRAY_RULE: Final = "one line per answer, logs on stderr"

# a row's status -> (what it means, whether the op answered in shape)
STATUSES: Final[Mapping[str, tuple[str, bool]]] = {
    "ok": ("a result of a top-level type its op allows", True),
    **{kind: (f"a typed error of type {kind} (within the protocol)", True) for kind in ERROR_TYPES},
    "protocol violation": ("not JSON, another id, a second line, a wrong result type", False),
    "timeout": ("no answer within --timeout", False),
    "crashed": ("the process exited or closed stdout while the request was pending", False),
    "startup failed": ("a restart after an earlier breakage failed its handshake", False),
    "not run": ("this machine lacks what the op needs (e.g. ripgrep)", True),
    "no request": ("the corpus has no case of this op", True),
}  # fmt: skip

UNASKED: Final = ("not run", "no request")  # the statuses of a listed op not asked

SMOKE_FAILED: Final = exits.FAILED
STARTUP_FAILED: Final = exits.STARTUP_FAILED
EXIT_STATUS: Final = exits.statuses("smoke")


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One op's request and what came back: its status (`STATUSES`), the wire's request
    id (None when nothing was sent), the wall time in ms and a one-line note."""

    op: str
    id: int | None
    status: str
    ms: float
    note: str
    case: str | None = None  # the golden case whose request was sent

    @property
    def in_shape(self) -> bool:
        return STATUSES[self.status][1]


@dataclass(frozen=True, slots=True, kw_only=True)
class Smoke:
    """A smoke run: the hello, one row per listed op, or why the implementation did not
    start (`startup_failed`, the command and the error)."""

    implementation: str
    command: str
    hello: Mapping[str, Any] | None
    rows: tuple[Row, ...] = ()
    startup_failed: str | None = None
    seconds: float = 0.0

    @property
    def status(self) -> int:
        if self.startup_failed is not None:
            return STARTUP_FAILED
        return SMOKE_FAILED if any(not row.in_shape for row in self.rows) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "implementation": self.implementation,
            "hello": self.hello,
            "startupFailed": self.startup_failed,
            "rows": [{**asdict(row), "ms": round(row.ms, 1)} for row in self.rows],
            "status": self.status,
            "seconds": round(self.seconds, 3),
        }


# --- the requests -----------------------------------------------------------------------


def _representative(cases: Sequence[Case]) -> Case:
    """The first case expecting a result, else the first case (the corpus's order)."""
    return next((case for case in cases if not case.expects_error), cases[0])


def requests_by_op(folder: Path) -> dict[str, tuple[str | None, Mapping[str, Any]]]:
    """op -> (the case id or None, the request's args): one per op with a request, the
    bench ops' input files written under `folder`."""
    by_op: dict[str, list[Case]] = {}
    for case in load_cases():
        if case.status == "active":
            by_op.setdefault(case.op, []).append(case)
    chosen = {op: _representative(cases) for op, cases in by_op.items()}
    requests: dict[str, tuple[str | None, Mapping[str, Any]]] = {
        op: (case.id, case.args) for op, case in chosen.items()
    }
    return requests | {op: (None, args) for op, args in _bench_requests(folder).items()}


def _bench_requests(folder: Path) -> dict[str, Mapping[str, Any]]:
    """`ctxspec bench`'s own request of each bench op, on a 100-line file and a session of
    12 entries (no limit is reached, so nothing is persisted); the agent bench ops on the
    same file, a tree of 10 `AGENTS.md` with no trust decision, a history of 8 messages."""
    text = folder / "lines.txt"
    text.write_text("".join(f"line {n}\n" for n in range(100)), "utf-8")
    session = make_session(12)
    entries = write_session(session, folder / "session.jsonl")
    opened = write_session_file(session, folder, 12)
    return {
        request.bench_op: request.bench_args
        for request in (
            stream_request(text),
            truncate_request(text, "tail"),
            session_request(entries, "buildSessionContext", session),
            open_request(opened, "open+buildSessionContext", session),
        )
    } | {
        "bench.agent_tool_output": {"path": str(text)},
        "bench.agent_instructions": agent_inputs.instruction_tree(10, "AGENTS.md", trusted=False),
        "bench.agent_compaction": agent_inputs.history(8),
    }


# --- the run ----------------------------------------------------------------------------


def _one_line(text: str) -> str:
    """`text` on one line, cut at its end to `NOTE_CHARS`."""
    line = " ".join(text.split())
    return line if len(line) <= NOTE_CHARS else line[: NOTE_CHARS - 1] + "…"


def _open(spec: str, timeout: float) -> WireImplementation:
    """`spec` over the wire: an engine served by its harness module, else as `conform`."""
    served = engine_command(spec)
    if served is not None:
        return WireImplementation(served, name=spec, timeout=timeout)
    implementation = open_implementation(spec, timeout=timeout)
    assert isinstance(implementation, WireImplementation)  # every other spec is a command
    return implementation


def _ask(impl: WireImplementation, op: str, case: str | None, args: Mapping[str, Any]) -> Row:
    """Send one request; its row."""
    impl.new_test()  # a timeout of an earlier op does not stop this one
    impl.last_request_id = None
    started = time.perf_counter()
    status, note = "ok", f"case {case}" if case else "a generated input"
    ms = 0.0
    try:
        reply = ask(impl, op, args)
        ms = (time.perf_counter() - started) * 1000
        if reply.error is not None:
            status = reply.error.type
            note = f"{note}: {reply.error.message}"
        stray = impl.stray_output(STRAY_WAIT)
        if stray:
            status = "protocol violation"
            first = next(line for line in stray.splitlines() if line.strip())
            quoted = quote_line(first, limit=NOTE_CHARS)
            note = f"a second line after the answer ({STRAY_RULE}): {quoted}"
    except EnvironmentMissing as missing:
        status, note = "not run", missing.message
    except AdapterError as error:
        status, note = error.kind, error.message
    ms = ms or (time.perf_counter() - started) * 1000
    return Row(
        op=op, id=impl.last_request_id, status=status, ms=ms, note=_one_line(note), case=case
    )


def smoke(spec: str, timeout: float = DEFAULT_TIMEOUT) -> Smoke:
    """Start `spec`, check its handshake and one request per listed op (module docstring).

    Raises `InstallError` for a named implementation that cannot be installed.
    """
    # the bench ops' inputs in the run dir, which a confined agent sees as it is (its /tmp
    # is its own)
    with tempfile.TemporaryDirectory(prefix="smoke-", dir=run_dir()) as scratch:
        requests = requests_by_op(Path(scratch))  # the corpus first: it may be broken
        started = time.perf_counter()
        impl = _open(spec, timeout)
        command = shlex.join(impl.argv)
        try:
            try:
                hello = dict(impl.hello)
            except StartupFailed as error:
                return Smoke(
                    implementation=spec, command=command, hello=None, startup_failed=str(error)
                )
            rows = [_hello_row(hello, (time.perf_counter() - started) * 1000)]
            for op in sorted(set(hello["ops"]) - {"hello"}):
                if op in requests:
                    rows.append(_ask(impl, op, *requests[op]))
                else:
                    rows.append(
                        Row(op=op, id=None, status="no request", ms=0.0, note="no case of this op")
                    )
        finally:
            impl.close()
    seconds = time.perf_counter() - started
    return Smoke(
        implementation=spec, command=command, hello=hello, rows=tuple(rows), seconds=seconds
    )


def _hello_row(hello: Mapping[str, Any], ms: float) -> Row:
    who = hello["implementation"]
    note = f"{who['name']} {who['version']} ({who['language']}), {len(hello['ops'])} ops listed"
    return Row(op="hello", id=1, status="ok", ms=ms, note=_one_line(note))


# --- the report -------------------------------------------------------------------------


def table(result: Smoke) -> Iterator[str]:
    """The rows as an aligned table, then one summary line."""
    header = ("op", "id", "status", "ms", "note")
    cells = [
        (row.op, "-" if row.id is None else str(row.id), row.status, f"{row.ms:.0f}", row.note)
        for row in result.rows
    ]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(4)]
    for line in [header, *cells]:
        op, request, status, ms, note = line
        yield (
            f"{op:<{widths[0]}}  {request:>{widths[1]}}  {status:<{widths[2]}}  "
            f"{ms:>{widths[3]}}  {note}"
        ).rstrip()
    yield summary(result)


def summary(result: Smoke) -> str:
    """One line: how many listed ops answered in shape, and the time from the start."""
    ops = [row for row in result.rows if row.op != "hello"]
    broken = [row for row in ops if not row.in_shape]
    when = f"in {result.seconds:.1f} s"
    if broken:
        named = ", ".join(f"{row.op} ({row.status})" for row in broken)
        return f"{len(broken)} of {len(ops)} listed ops did not answer in shape {when}: {named}"
    errors = sum(row.status in ERROR_TYPES for row in ops)
    unasked = sum(row.status in UNASKED for row in ops)
    counts = ((errors, "with a typed error"), (unasked, "not asked"))
    extras = ", ".join(f"{n} {what}" for n, what in counts if n)
    asked = f"all {len(ops)}" if not unasked else f"{len(ops) - unasked} of {len(ops)}"
    return f"{asked} listed ops answered in shape{f' ({extras})' if extras else ''} {when}"


def _startup_message(result: Smoke) -> str:
    return (
        f"ctxspec smoke: the implementation did not start\n"
        f"  command: {result.command}\n  {result.startup_failed}"
    )


def main_smoke(options: argparse.Namespace) -> int:
    spec = canonical_name(options.impl)
    try:
        prepare(spec)
        result = smoke(spec, options.timeout)
    except InstallError as error:
        print(f"ctxspec: {error}", file=sys.stderr)
        return 2
    if result.startup_failed is not None:
        print(_startup_message(result), file=sys.stderr)
    else:
        print(f"ctxspec smoke: {spec}")
        for line in table(result):
            print(line)
    if options.json:
        _write_json(Path(options.json), result.to_json())
    return result.status


def _write_json(path: Path, document: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n", "utf-8")


def smoke_arguments(parser: argparse.ArgumentParser) -> None:
    """`ctxspec smoke`'s options (conformance/cli.py registers the command)."""
    parser.add_argument(
        "--impl",
        type=impl_spec,
        required=True,
        help="reference, fastengine, NAME@VERSION (`ctxspec impl list`), or a command",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        help=f"seconds per request ({DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument("--json", type=output_file, metavar="FILE", help="write the table as JSON")
