"""`ctxspec sweep`: run an implementation's properties under many seeds and pin what they find.

The verdict's properties draw a fixed set of examples (plugin.py), so a divergence they
could find under another seed stays hidden until someone looks. The sweep looks: it runs
`conform --explore --seed S` over the properties alone for each seed, keeps the requests
of every failing property's minimal example (`--record-requests`), then asks each of
those requests of the oracle (Pi 0.85.0 by default), of the implementation and of the
reference. A request the oracle and the implementation answer differently is a
divergence; one per class (op and signature, as `ctxspec fuzz` names them), the
smallest, is written as a golden case expecting the oracle's answer, unless a case of
the corpus already shows the same class on this implementation. A request where the
reference and the oracle differ is a reference bug and is reported first.

A sweep splits over machines by seed range: `--shard K/N` runs the K-th of N ranges of
the seeds (`shards`), its `--json` report keeps the failing examples it recorded, and
`--merge` joins the N reports' examples and judges them as one run does, so the merged
report is the whole run's.

Its exit statuses are its rows of the table in `ctxspec.exits` (0 nothing new to pin,
1 new cases, 4 the reference differs from the oracle, ...). `sweep_arguments` adds its
options; conformance/cli.py registers the command.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxspec.cli import UsageError
from ctxspec.conformance.ask import Outcome, outcome
from ctxspec.conformance.cli_args import (
    input_file,
    output_dir,
    output_file,
    require,
    shard,
)
from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.protocol import OpError
from ctxspec.conformance.runner.progress import progress
from ctxspec.conformance.runner.recording import read_failures
from ctxspec.conformance.runner.suite_run import run_suite
from ctxspec.conformance.tools.fuzz import (
    Found,
    Verdict,
    compare,
    difference_signature,
)
from ctxspec.conformance.tools.fuzz_cases import write_cases
from ctxspec.conformance.tools.shards import WHOLE, Shard, check_parts, shard_range, shard_text
from ctxspec.conformance.transport.base import Implementation, Reply
from ctxspec.conformance.transport.resolve import (
    PI_NAME,
    InstallError,
    canonical_name,
    open_implementation,
    prepare,
)

__all__ = ["Pinned", "main_sweep", "sweep_arguments", "sweep_requests"]

PROPERTIES_ONLY = "not test_case"  # the golden cases' test function is `test_case`
# what a sweep was asked: the shards of one sweep agree on each (`--merge`)
RUN_KEYS: Final = ("impl", "against", "seeds")


_SURROGATE = re.compile(r"\\u(d[89ab]|d[c-f])[0-9a-f]{2}")
_DIGITS = re.compile(r"\d+")


def loose(signature: str) -> str:
    """A signature blind to which letters, digits and surrogates a string shows: the
    same behaviour over "abcd" and over "0", or over U+D83D and U+D800, is one class.

    >>> loose('$.text: "\\\\ud800" vs ""') == loose('$.text: "\\\\ud83d" vs ""')
    True
    >>> loose('$.text: "0" vs ""') == loose('$.text: "a" vs ""')
    True
    """
    high_or_low = _SURROGATE.sub(lambda m: "\\u" + ("d800" if m[1] < "dc" else "dc00"), signature)
    return _DIGITS.sub("a", high_or_low)


def _key(request: dict[str, Any]) -> str:
    return json.dumps(request, sort_keys=True, ensure_ascii=True)


@dataclass(frozen=True, slots=True)
class Pinned:
    """What the sweep made of the recorded requests."""

    new: list[Found]  # one per class the corpus does not show yet
    known: list[str]  # classes an existing case already shows on this implementation
    reference_bugs: list[Found]  # the reference differs from the oracle here
    requests: int  # distinct requests asked


class RunFailed(RuntimeError):
    """A seed's conform run did not complete: its failures cannot be trusted as a count."""


def run_seeds(
    impl_name: str, seeds: Iterable[int], record: Path, jobs: str | None, log: Any
) -> dict[int, list[str]]:
    """Run the properties once per seed, recording failures; the failing properties by seed.

    A run that did not complete (no results file, or an exit status other than 0 or 1)
    raises `RunFailed`: a seed with no failures must mean that nothing failed."""
    failing: dict[int, list[str]] = {}
    before = len(read_failures(record))
    chosen = list(seeds)
    with progress(len(chosen), "sweep seeds") as step:
        for seed in chosen:
            options = ["--profile", "sweep", "--seed", str(seed), "-k", PROPERTIES_ONLY]
            run = run_suite(
                impl_name,
                jobs=jobs,
                expectations="none",
                options=options,
                pytest_args=["--record-requests", str(record)],
            )
            if not run.completed:
                tail = run.problem().splitlines()[-3:]
                raise RunFailed(f"seed {seed}: conform exited {run.status}: {' | '.join(tail)}")
            recorded = read_failures(record)
            failing[seed] = sorted({f["property"] for f in recorded[before:]})
            before = len(recorded)
            if failing[seed]:  # kept in the log: which seed fails which property
                log(f"seed {seed}: {len(failing[seed])} failing {', '.join(failing[seed])}")
            step(note=f"seed {seed}: {len(failing[seed])} failing")
    return failing


def _case_classes(impl: Implementation, ops: set[str]) -> set[tuple[str, str]]:
    """The divergence classes the corpus's cases of `ops` already show on `impl`."""
    shown = set()
    for case in load_cases():
        if case.op not in ops or case.status == "withdrawn" or case.op not in impl.ops:
            continue
        expected = (
            {"error": case.expect_error}
            if case.expect_error is not None
            else {"result": case.expect_result}
        )
        verdict = compare(_outcome(expected), outcome(impl, case.op, case.args), case.op)
        shown |= {(case.op, key) for key in _keys(verdict)}
    return shown


def _keys(verdict: Verdict) -> set[str]:
    """Every class a verdict shows: the signature of each of its differences, loosely."""
    if not verdict.signature:
        return set()
    return {loose(verdict.signature)} | {loose(difference_signature(d)) for d in verdict.found}


def _outcome(expectation: dict[str, Any]) -> Outcome:
    if "error" in expectation:
        return Outcome(reply=Reply(error=OpError(expectation["error"], "")))
    return Outcome(reply=Reply(result=expectation["result"]))


def sweep_requests(
    requests: Sequence[dict[str, Any]],
    impl: Implementation,
    oracle: Implementation,
    reference: Implementation,
) -> Pinned:
    """Ask every distinct request of the three; pin one minimal request per new class."""
    distinct = {_key(r): r for r in requests if r["op"] in impl.ops and r["op"] in oracle.ops}
    smallest: dict[tuple[str, str], Found] = {}
    bugs: dict[tuple[str, str], Found] = {}
    for key in sorted(distinct, key=lambda k: (len(k), k)):
        op, args = distinct[key]["op"], distinct[key]["args"]
        want = outcome(oracle, op, args)
        if want.reply is None or want.unsupported:
            continue
        mine = outcome(reference, op, args)
        if signature := compare(want, mine, op).signature:
            bugs.setdefault((op, signature), Found(op, signature, args, want, mine))
        got = outcome(impl, op, args)
        if signature := compare(want, got, op).signature:
            smallest.setdefault((op, loose(signature)), Found(op, signature, args, want, got))
    shown = _case_classes(impl, {op for op, _ in smallest})
    return Pinned(
        new=[found for key, found in smallest.items() if key not in shown],
        known=sorted(
            f"{op}: {signature}" for op, signature in smallest if (op, signature) in shown
        ),
        reference_bugs=list(bugs.values()),
        requests=len(distinct),
    )


def sweep_arguments(parser: argparse.ArgumentParser) -> None:
    """`ctxspec sweep`'s options (conformance/cli.py registers the command)."""
    parser.add_argument("--impl", default=None, help="the implementation under test (required)")
    parser.add_argument("--against", default=None, help="the oracle (default pi@0.85.0)")
    parser.add_argument("--seeds", type=int, default=20, help="how many seeds (20)")
    parser.add_argument("--first-seed", type=int, default=1, help="the first seed (1)")
    parser.add_argument(
        "--shard",
        type=shard,
        default=None,
        metavar="K/N",
        help="run the K-th of N ranges of the seeds; --merge joins the N --json reports",
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        type=input_file,
        default=None,
        metavar="REPORT",
        help="run no seed: judge the failing examples of the shards' --json reports as one run",
    )
    parser.add_argument("-n", dest="numprocesses", default=None, help="workers per run")
    parser.add_argument(
        "--record", metavar="FILE", help="keep the recorded requests here (tried before the run)"
    )
    parser.add_argument(
        "--replay",
        action="store_true",
        help="run no seed: judge the requests already in --record again (after new cases)",
    )
    parser.add_argument(
        "--write-cases",
        metavar="DIR",
        type=output_dir,
        help="append the new cases to DIR/<boundary>/*.yaml",
    )
    parser.add_argument(
        "--json", metavar="FILE", type=output_file, help="write the sweep's findings as JSON"
    )


def main_sweep(options: Any) -> int:
    if options.merge:
        return _main_merge(options)
    if options.impl is None:
        raise UsageError("--impl", "required (unless --merge)")
    if options.seeds < 1:
        print("ctxspec sweep: --seeds must be >= 1", file=sys.stderr)
        return 2
    if options.replay and not (options.record and Path(options.record).is_file()):
        print("ctxspec sweep: --replay needs --record FILE of an earlier sweep", file=sys.stderr)
        return 2
    if options.record and not options.replay:  # written by the runs: tried before them
        require("--record", output_file, options.record)
    impl_name = canonical_name(options.impl)
    against_name = canonical_name(options.against or PI_NAME)

    def log(message: str) -> None:
        print(f"[sweep] {message}", file=sys.stderr, flush=True)

    try:
        for name in (impl_name, against_name):
            prepare(name)
    except (InstallError, ValueError) as error:
        print(f"ctxspec sweep: {error}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="ctxspec-sweep-") as scratch:
        record = Path(options.record) if options.record else Path(scratch) / "requests.jsonl"
        seeds = range(options.first_seed, options.first_seed + options.seeds)
        part = options.shard or WHOLE
        mine = shard_range(len(seeds), part)
        try:
            by_seed = (
                {}
                if options.replay
                else run_seeds(
                    impl_name, seeds[mine.start : mine.stop], record, options.numprocesses, log
                )
            )
        except RunFailed as error:
            print(f"ctxspec sweep: {error}", file=sys.stderr)
            return 3
        failures = read_failures(record)
    return _judge(
        options,
        impl_name=impl_name,
        against_name=against_name,
        seeds=seeds,
        part=part,
        by_seed=by_seed,
        failures=failures,
    )


def _read_report(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError("--merge", f"cannot read {path!r}: {error}") from None
    keys = {*RUN_KEYS, "shard", "failingBySeed", "failures"}
    if not (isinstance(data, dict) and keys <= data.keys()):
        raise UsageError("--merge", f"{path!r} is not a report of `ctxspec sweep --shard --json`")
    return data


def _main_merge(options: Any) -> int:
    """`--merge`: the N shards' failing examples judged as one run (its implementations
    are the reports', installed here as for a run)."""
    if options.impl or options.shard or options.replay or options.record:
        raise UsageError("--merge", "runs no seed: no --impl, --shard, --replay or --record")
    parts = [_read_report(path) for path in options.merge]
    check_parts("--merge", parts, RUN_KEYS)
    impl_name, against_name = parts[0]["impl"], parts[0]["against"]
    first, last = parts[0]["seeds"]
    by_seed = {int(seed): names for part in parts for seed, names in part["failingBySeed"].items()}
    failures = [failure for part in parts for failure in part["failures"]]
    try:
        for name in (impl_name, against_name):
            prepare(name)
    except (InstallError, ValueError) as error:
        print(f"ctxspec sweep: {error}", file=sys.stderr)
        return 2
    return _judge(
        options,
        impl_name=impl_name,
        against_name=against_name,
        seeds=range(first, last + 1),
        part=WHOLE,
        by_seed=dict(sorted(by_seed.items())),
        failures=failures,
    )


def _judge(
    options: Any,
    *,
    impl_name: str,
    against_name: str,
    seeds: range,
    part: Shard,
    by_seed: dict[int, list[str]],
    failures: list[dict[str, Any]],
) -> int:
    """Ask the failing examples' requests of the three, then tell, write and exit."""
    failures = sorted(failures, key=lambda f: (f.get("seed") or 0, f["property"], json.dumps(f)))
    requests = [request for failure in failures for request in failure["requests"]]
    impl = open_implementation(impl_name)
    oracle = open_implementation(against_name)
    reference = open_implementation("reference")
    try:
        pinned = sweep_requests(requests, impl, oracle, reference)
    finally:
        for each in (impl, oracle, reference):
            each.close()
    for found in pinned.reference_bugs:
        print(f"REFERENCE differs from {against_name}: {found.op}: {found.signature}")
        print(found.details)
    print(
        f"ctxspec sweep: {impl_name} against {against_name}, seeds {seeds.start}..{seeds.stop - 1}"
        + ("" if part == WHOLE else f" (shard {shard_text(part)})")
        + f": {len(failures)} failing examples, {pinned.requests} distinct requests, "
        f"{len(pinned.new)} new classes, {len(pinned.known)} already shown by a case"
    )
    for found in pinned.new:
        print(f"  new   {found.op}: {found.signature}")
    for known in pinned.known:
        print(f"  known {known}")
    if options.write_cases and pinned.new:
        for path in write_cases(Path(options.write_cases), pinned.new, impl_name, against_name):
            print(f"cases appended to {path}")
    if options.json:
        data = {
            "impl": impl_name,
            "against": against_name,
            "seeds": [seeds.start, seeds.stop - 1],
            "shard": shard_text(part),
            "failingBySeed": {str(k): v for k, v in by_seed.items()},
            "failingExamples": len(failures),
            "distinctRequests": pinned.requests,
            "new": [{"op": f.op, "signature": f.signature, "args": f.args} for f in pinned.new],
            "known": pinned.known,
            "referenceBugs": [
                {"op": f.op, "signature": f.signature} for f in pinned.reference_bugs
            ],
            "failures": failures,  # what --merge joins: the recorded failing examples
        }
        Path(options.json).write_text(json.dumps(data, indent=1) + "\n", "utf-8")
    if pinned.reference_bugs:
        return 4
    return 1 if pinned.new else 0
