"""`ctxspec fuzz`: the command over the fuzz driver (`fuzz.fuzz`) and its case writer.

`fuzz_arguments` adds its options (conformance/cli.py registers the command); `main_fuzz` opens both
implementations, runs the driver with progress on stderr, prints each op's minimal
divergences as cases (`fuzz_cases`), writes them with `--write-cases` and the report
with `--json`, and ends with `summary`. `EXIT_STATUS` says how each outcome exits (its
rows of `ctxspec.exits`).
With `--shard K/N` it runs the K-th part of the run (`shards`); `--merge` reads the N
parts' `--json` reports and writes and tells the whole run's (`merge_reports`).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from ctxspec import exits
from ctxspec.cli import UsageError
from ctxspec.conformance.cli_args import (
    count,
    impl_spec,
    input_file,
    output_dir,
    output_file,
    positive_int,
    seconds,
    shard,
)
from ctxspec.conformance.cli_args import seed as seed_type
from ctxspec.conformance.errors import StartupFailed
from ctxspec.conformance.strategies.ops import OP_ARGS
from ctxspec.conformance.tools.fuzz import DEFAULT_SHRINK_CALLS, OpReport, fuzz, fuzz_units
from ctxspec.conformance.tools.fuzz_cases import case_yaml, write_cases
from ctxspec.conformance.tools.shards import WHOLE, check_parts, shard_text
from ctxspec.conformance.transport.resolve import (
    PI_NAME,
    InstallError,
    canonical_name,
    open_implementation,
    prepare,
)

__all__ = ["EXIT_STATUS", "fuzz_arguments", "main_fuzz", "merge_reports", "summary"]

# what a run was asked: the shards of one run agree on each (`merge_reports`)
RUN_KEYS: Final = ("impl", "against", "seed", "seeds", "examples", "shrinkCalls", "units")


def summary(data: dict[str, Any]) -> str:
    """The per-op table of a `--json` report: examples, diverging examples, distinct
    minimal divergences, errors; with several seeds, each op once per seed."""
    seeds = data.get("seeds", 1)
    first = data["seed"]
    shown = f"seed {first}" if seeds == 1 else f"seeds {first}..{first + seeds - 1}"
    part = "" if data.get("shard", "1/1") == "1/1" else f", shard {data['shard']}"
    lines = [
        f"ctxspec fuzz: {data['impl']} against {data['against']}, {shown}{part}",
        f"{'op':<26} {'examples':>8} {'diverging':>9} {'distinct':>8} "
        f"{'errors impl/against':>19} {'unsupported':>11} {'refused':>7} {'unsettled':>9}",
    ]
    for report in data["ops"]:
        op = report["op"] if seeds == 1 else f"{report['op']} @{report['seed']}"
        if report["skipped"]:
            lines.append(f"{op:<26} skipped: {report['skipped']}")
            continue
        errors = f"{report['errors'].get('impl', 0)}/{report['errors'].get('against', 0)}"
        lines.append(
            f"{op:<26} {report['examples']:>8} {report['diverging']:>9} "
            f"{len(report['divergences']):>8} {errors:>19} {report['unsupported']:>11} "
            f"{report['refused']:>7} {report['unsettled']:>9}"
        )
        for item in report["divergences"]:
            lines.append(f"    - {item['signature']}")
        for sample in report["errorSamples"][:2]:
            lines.append(f"    ! {sample}")
    return "\n".join(lines)


def exit_status(data: dict[str, Any]) -> int:
    """1 when a divergence was found, else 3 when a request failed, else 0."""
    if any(report["divergences"] for report in data["ops"]):
        return 1
    return 3 if any(report["errors"] for report in data["ops"]) else 0


def _read_report(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError("--merge", f"cannot read {path!r}: {error}") from None
    if not (isinstance(data, dict) and {*RUN_KEYS, "ops", "shard"} <= data.keys()):
        raise UsageError("--merge", f"{path!r} is not a report of `ctxspec fuzz --shard --json`")
    return data


def merge_reports(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The whole run's report from the `--json` reports of its N shards (any order): the
    ops in the whole run's order. A part that stopped early (a shard's report is written
    after each op) leaves units out, and is refused with them."""
    check_parts("--merge", parts, RUN_KEYS)
    ops = sorted((op for part in parts for op in part["ops"]), key=lambda op: op["unit"])
    missing = sorted(set(range(parts[0]["units"])) - {op["unit"] for op in ops})
    if missing:
        shown = ", ".join(str(unit) for unit in missing[:10])
        raise UsageError("--merge", f"the reports miss units {shown} (a shard stopped early?)")
    whole = {key: parts[0][key] for key in RUN_KEYS}
    merged = sorted(str(part["shard"]) for part in parts)
    return {**whole, "shard": shard_text(WHOLE), "mergedFrom": merged, "ops": ops}


# --- the command ------------------------------------------------------------------------

EXIT_STATUS: Final = exits.statuses("fuzz")


def fuzz_arguments(parser: argparse.ArgumentParser) -> None:
    """`ctxspec fuzz`'s options (conformance/cli.py registers the command)."""
    parser.add_argument(
        "--impl", type=impl_spec, default=None, help="the implementation under test (required)"
    )
    parser.add_argument(
        "--against", type=impl_spec, default=None, help="the oracle (default pi@0.85.0)"
    )
    parser.add_argument(
        "--op", action="append", default=[], help="only this op (repeatable; default all)"
    )
    parser.add_argument("--examples", type=positive_int, default=100, help="examples per op (100)")
    parser.add_argument("--seed", type=seed_type, default=None, help="seed (default: random)")
    parser.add_argument(
        "--seeds",
        type=positive_int,
        default=1,
        help="how many seeds from --seed on (1): each op is fuzzed once under each",
    )
    parser.add_argument(
        "--shard",
        type=shard,
        default=None,
        metavar="K/N",
        help="run the K-th of N ranges of the (seed, op) units (needs --seed); --merge joins them",
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        type=input_file,
        default=None,
        metavar="REPORT",
        help="run nothing: the whole run's report from its shards' --json reports",
    )
    parser.add_argument(
        "--shrink-calls",
        type=count,
        default=DEFAULT_SHRINK_CALLS,
        help=f"new requests the shrinker may send per op ({DEFAULT_SHRINK_CALLS})",
    )
    parser.add_argument(
        "--write-cases",
        type=output_dir,
        metavar="DIR",
        help="append minimal cases to DIR/<boundary>/<behaviour>.yaml (the op's corpus file)",
    )
    parser.add_argument(
        "--json", type=output_file, metavar="FILE", help="write the per-op report as JSON"
    )
    parser.add_argument("--timeout", type=seconds, default=30.0, help="seconds per request")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def _main_merge(options: Any) -> int:
    if options.impl or options.shard or options.write_cases:
        raise UsageError("--merge", "runs nothing: no --impl, --shard or --write-cases with it")
    data = merge_reports([_read_report(path) for path in options.merge])
    if options.json:
        Path(options.json).write_text(json.dumps(data, indent=1) + "\n", "utf-8")
    print(summary(data))
    return exit_status(data)


def main_fuzz(options: Any) -> int:
    if options.merge:
        return _main_merge(options)
    if options.impl is None:
        raise UsageError("--impl", "required (unless --merge)")
    if options.shard and options.seed is None:
        raise UsageError("--shard", "needs --seed: every shard must draw from the same seeds")
    impl_name = canonical_name(options.impl)
    against_name = canonical_name(options.against or PI_NAME)
    unknown = [op for op in options.op if op not in OP_ARGS]
    if unknown:
        raise UsageError("--op", f"no strategy for {unknown}; ops: {', '.join(sorted(OP_ARGS))}")
    if options.examples < 1 or options.shrink_calls < 0:
        print("ctxspec fuzz: --examples must be >= 1 and --shrink-calls >= 0", file=sys.stderr)
        return 2
    seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
    try:
        for name in (impl_name, against_name):
            prepare(name, quiet=options.quiet)
        impl = open_implementation(impl_name, timeout=options.timeout)
        against = open_implementation(against_name, timeout=options.timeout)
    except (InstallError, ValueError) as error:
        print(f"ctxspec fuzz: {error}", file=sys.stderr)
        return 2

    def progress(message: str) -> None:
        if not options.quiet:
            print(f"[fuzz] {message}", file=sys.stderr, flush=True)

    written: set[str] = set()
    part = options.shard or WHOLE

    def report_data(reports: list[OpReport]) -> dict[str, Any]:
        return {
            "impl": impl_name,
            "against": against_name,
            "seed": seed,
            "seeds": options.seeds,
            "examples": options.examples,
            "shrinkCalls": options.shrink_calls,
            "units": len(fuzz_units(options.op or None, seed, options.seeds)),
            "shard": shard_text(part),
            "ops": [r.to_json() for r in reports],
        }

    def keep(reports: list[OpReport]) -> None:
        """After each op: its cases printed and written, the JSON report rewritten (a
        shard with no unit, of a run with fewer units than shards, writes it empty)."""
        found = reports[-1].found if reports else []
        if found:
            print(case_yaml(found, impl_name, against_name), flush=True)
        if options.write_cases:
            for path in write_cases(Path(options.write_cases), found, impl_name, against_name):
                written.add(str(path))
        if options.json:
            data = report_data(reports)
            Path(options.json).write_text(json.dumps(data, indent=1) + "\n", "utf-8")

    try:
        reports = fuzz(
            impl,
            against,
            ops=options.op or None,
            examples=options.examples,
            seed=seed,
            seeds=options.seeds,
            shard=part,
            shrink_calls=options.shrink_calls,
            progress=progress,
            on_report=keep,
            quiet=options.quiet,
        )
    except StartupFailed as error:
        print(f"ctxspec fuzz: {error}", file=sys.stderr)
        return 6
    finally:
        impl.close()
        against.close()
    data = report_data(reports)
    print(summary(data))
    for path in sorted(written):
        print(f"cases appended to {path}")
    return exit_status(data)
