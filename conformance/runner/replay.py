"""`ctxspec conform --impl X --replay FILE`: a property's failing example, asked again.

A failing property's report names the file of its minimal example
(`.ctxspec/examples/<property>.json`: one line of `recording`'s format, `{property, seed,
requests}`, as `--record-requests` and `ctxspec sweep --replay --record` read it). The
replay asks each request of the implementation and of the reference, without pytest or
hypothesis, and tells the answers as the run did (`failing_example.tell_exchanges`).
With `--write-case DIR`, each request answered otherwise than the reference answers it
becomes a golden case expecting the reference's answer, written by the writer fuzz and
the sweep use (`tools.fuzz_cases.write_cases`) into `DIR/<boundary>/<behaviour>.yaml`;
`ctxspec cases lint --root DIR` reads it, and `DIR` may be `corpora/cases` itself.

Its exit statuses are the rows `conform --replay` of `ctxspec.exits` (0 every answer is
the reference's, 1 one differs or was no answer, 6 the implementation did not start).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from ctxspec import exits
from ctxspec.cli import UsageError
from ctxspec.conformance.ask import outcome
from ctxspec.conformance.engines.reference import in_process
from ctxspec.conformance.errors import StartupFailed
from ctxspec.conformance.runner.failing_example import (
    Exchange,
    json_text,
    reference_answer,
    tell_exchanges,
)
from ctxspec.conformance.runner.recording import read_failures
from ctxspec.conformance.tools.fuzz import Found, compare
from ctxspec.conformance.tools.fuzz_cases import write_cases
from ctxspec.conformance.transport.resolve import open_implementation
from ctxspec.conformance.transport.wire import WireImplementation

__all__ = ["check_replay_options", "replay"]

STARTUP_FAILED_STATUS: Final = exits.STARTUP_FAILED
# conform's options that select or report a run of the suite: a replay runs none
_NOT_WITH_REPLAY: Final = {
    "case": "--case",
    "boundary": "--boundary",
    "op": "--op",
    "k": "-k",
    "expectations": "--expectations",
    "junit": "--junit",
    "md": "--md",
    "numprocesses": "-n",
    "profile": "--profile",
    "explore": "--explore",
    "seed": "--seed",
    "pytest_args": "pytest arguments",
}


def check_replay_options(options: argparse.Namespace) -> None:
    """`UsageError` for `--write-case` without `--replay`, or `--replay` with an option
    that selects or reports a run of the suite."""
    if options.write_case and not options.replay:
        raise UsageError("--write-case", "only with --replay FILE (the example to pin)")
    if not options.replay:
        return
    for dest, flag in _NOT_WITH_REPLAY.items():
        if getattr(options, dest, None):
            raise UsageError(flag, "not with --replay: a replay asks the saved requests alone")


def _requests(file: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The properties and the requests a replay file holds (`UsageError` if none)."""
    try:
        failures = read_failures(Path(file))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UsageError("--replay", f"{file} is not a file of JSON lines: {error}") from None
    requests = [
        request
        for failure in failures
        if isinstance(failure, dict)
        for request in failure.get("requests") or ()
        if isinstance(request, dict) and isinstance(request.get("op"), str)
    ]
    if not requests:
        raise UsageError("--replay", f"{file} holds no request ({{op, args}} in `requests`)")
    names = [str(f.get("property")) for f in failures if isinstance(f, dict)]
    return names, requests


def replay(options: argparse.Namespace) -> int:
    """Ask the saved example's requests of `--impl` and of the reference; tell the answers."""
    names, requests = _requests(options.replay)
    implementation = open_implementation(options.impl, timeout=options.timeout)
    if isinstance(implementation, WireImplementation) and options.max_answer_bytes:
        implementation.max_answer_bytes = options.max_answer_bytes
    reference = in_process()
    try:
        exchanges = [
            Exchange(
                op=r["op"],
                args=r.get("args") or {},
                answer=outcome(implementation, r["op"], r.get("args") or {}),
                reference=reference_answer(reference, r["op"], r.get("args") or {}),
            )
            for r in requests
        ]
    except StartupFailed as error:
        print(f"ctxspec: the implementation under test did not start\n  {error}", file=sys.stderr)
        return STARTUP_FAILED_STATUS
    finally:
        implementation.close()
    differing = [e for e in exchanges if e.verdict() is not None]
    unanswered = [e for e in exchanges if not e.answered]
    print(f"replay of {', '.join(names)}: {len(exchanges)} request(s) to {options.impl}")
    for line in tell_exchanges(exchanges):
        print(line)
    print(_summary(exchanges, differing, unanswered))
    pinnable = [e for e in differing if e.reference is not None]
    if options.write_case and pinnable:
        _pin(Path(options.write_case), pinnable, options.impl)
    elif options.write_case:
        print("nothing to pin: no answer differs from one the reference gives")
    if options.json:
        document = {
            "replayed": options.replay,
            "implementation": options.impl,
            "exchanges": [e.to_json() for e in exchanges],
            "differing": len(differing),
        }
        Path(options.json).write_text(json_text(document) + "\n", "utf-8")
    return 1 if differing or unanswered else 0


def _summary(
    exchanges: Sequence[Exchange], differing: Sequence[Exchange], unanswered: Sequence[Exchange]
) -> str:
    count = len(exchanges)
    said = []
    if differing:
        said.append(f"{len(differing)} of {count} answered otherwise than the reference")
    if unanswered:
        said.append(f"{len(unanswered)} of {count} not answered within the protocol")
    unjudged = sum(1 for e in exchanges if e.reference is None)
    if unjudged:
        said.append(f"{unjudged} of {count} of an op the reference does not answer (not judged)")
    return "; ".join(said) or "every answer is the reference's"


def _pin(folder: Path, differing: Sequence[Exchange], impl: str) -> None:
    """Each differing request as a case expecting the reference's answer."""
    found = []
    for exchange in differing:
        assert exchange.reference is not None
        signature = compare(exchange.reference, exchange.answer, exchange.op).signature
        found.append(
            Found(
                exchange.op,
                signature or "another answer",
                dict(exchange.args),
                exchange.reference,
                exchange.answer,
            )
        )
    for path in write_cases(folder, found, impl, "reference"):
        print(f"case appended to {path}; check it with: ctxspec cases lint --root {folder}")
