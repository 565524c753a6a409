"""`ctxspec`: the command line over the pytest plugin and the tools around it.

    ctxspec conform [--impl reference|pi@0.85.0|"<command>"] [--case ID] [-k EXPR]
                    [--boundary B] [--junit FILE] [--json FILE] [--md FILE] [-n N] [-- pytest args]
    ctxspec impl install pi@0.85.0      install the real Pi into the cache (for CI caching)
    ctxspec cases list|lint             the corpus: one line per case, or its lint
    ctxspec bench [SIZE ...] [--compare]  benchmark report with plots; ratio gate (bench group)

Exit status: 0 when nothing failed, errored or passed unexpectedly; pytest's otherwise
(1 failures, 2 interrupted or a broken corpus, 4 bad usage, 5 nothing selected).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import pytest

from conformance.adapters import PI_NAME
from conformance.adapters.pi import PiInstallError, ensure_installed
from conformance.cases import lint, load_cases
from conformance.errors import CorpusError

__all__ = ["main"]


def _suite_ini() -> str:
    return str(resources.files("conformance").joinpath("suite", "pytest.ini"))


def conform_args(options: argparse.Namespace) -> list[str]:
    """The pytest command line that `ctxspec conform` runs."""
    args = [
        "-c",
        _suite_ini(),
        "--rootdir",
        str(Path.cwd()),
        "-p",
        "conformance.plugin",
        "--pyargs",
        "conformance.suite",
        "--impl",
        options.impl,
        "--request-timeout",
        str(options.timeout),
    ]
    for case_id in options.case:
        args += ["--case", case_id]
    for boundary in options.boundary:
        args += ["--boundary", boundary]
    if options.k:
        args += ["-k", options.k]
    if options.expectations:
        args += ["--expectations", options.expectations]
    if options.junit:
        args += ["--junitxml", options.junit]
    if options.json:
        args += ["--results-json", options.json]
    if options.md:
        args += ["--summary-md", options.md]
    if options.numprocesses:
        args += ["-n", options.numprocesses]
    if options.profile:
        args += ["--hypothesis-profile", options.profile]
    args += ["-q"] if not options.verbose else ["-v"]
    return args + list(options.pytest_args)


def _conform(options: argparse.Namespace) -> int:
    if options.impl in (PI_NAME, "pi"):
        try:
            ensure_installed()  # before pytest, so progress and errors are plain to see
        except PiInstallError as error:
            print(f"ctxspec: {error}", file=sys.stderr)
            return 2
    return int(pytest.main(conform_args(options)))


def _impl(options: argparse.Namespace) -> int:
    if options.name not in (PI_NAME, "pi"):
        print(f"ctxspec: only {PI_NAME} is installed by ctxspec", file=sys.stderr)
        return 2
    try:
        install = ensure_installed()
    except PiInstallError as error:
        print(f"ctxspec: {error}", file=sys.stderr)
        return 2
    print(f"{PI_NAME}: {install.package_dir} (node: {install.node})")
    return 0


def _cases(options: argparse.Namespace) -> int:
    try:
        cases = load_cases()
    except CorpusError as error:
        print(f"ctxspec: broken corpus: {error}", file=sys.stderr)
        return 2
    if options.action == "list":
        for case in cases:
            print(f"{case.id}\t{case.boundary}\t{case.op}\t{case.rule}\t{case.level}\t{case.why}")
        return 0
    problems = lint(cases)
    for problem in problems:
        print(problem)
    print(f"{len(cases)} cases, {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


def _bench(options: argparse.Namespace) -> int:
    root = Path(__file__).resolve().parent.parent / "benchmarks"
    if not (root / "report.py").is_file():
        print("ctxspec: bench runs from a checkout (benchmarks/ is not installed)", file=sys.stderr)
        return 2
    command = [sys.executable, str(root / "report.py"), *options.sizes]
    if options.batch is not None:
        command += ["--batch", options.batch]
    if options.compare:
        command.append("--compare")
    if options.baseline is not None:
        command += ["--baseline", str(options.baseline)]
    if options.tolerance is not None:
        command += ["--tolerance", str(options.tolerance)]
    if options.save_baseline:
        command.append("--save-baseline")
    return subprocess.run(command, check=False).returncode


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ctxspec", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    conform = commands.add_parser("conform", help="run the suite against an implementation")
    conform.add_argument(
        "--impl",
        default="reference",
        help="reference (default), pi@0.85.0, or a command speaking protocol v1",
    )
    conform.add_argument(
        "--case", action="append", default=[], metavar="ID", help="only this case (repeatable)"
    )
    conform.add_argument("--boundary", action="append", default=[], help="only this boundary")
    conform.add_argument("-k", default=None, help="pytest -k expression over case ids")
    conform.add_argument("--expectations", default=None, help="known-divergences YAML file")
    conform.add_argument("--junit", default=None, metavar="FILE", help="write JUnit XML")
    conform.add_argument("--json", default=None, metavar="FILE", help="write JSON results")
    conform.add_argument("--md", default=None, metavar="FILE", help="write a Markdown summary")
    conform.add_argument(
        "-n", dest="numprocesses", default=None, help="parallel workers (pytest-xdist), e.g. auto"
    )
    conform.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    conform.add_argument(
        "--profile",
        choices=("dev", "ci", "debug"),
        default=None,
        help="hypothesis profile (default: ci when $CI is set, else dev)",
    )
    conform.add_argument("-v", "--verbose", action="store_true")
    conform.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    conform.set_defaults(run=_conform)

    impl = commands.add_parser("impl", help="manage implementations ctxspec installs")
    impl.add_argument("action", choices=("install",))
    impl.add_argument("name", help=PI_NAME)
    impl.set_defaults(run=_impl)

    cases = commands.add_parser("cases", help="list or lint the corpus")
    cases.add_argument("action", choices=("list", "lint"))
    cases.set_defaults(run=_cases)

    bench = commands.add_parser("bench", help="write the benchmark report (needs the bench group)")
    bench.add_argument("sizes", nargs="*", help="stream input sizes, e.g. 16MiB 256MiB 1GiB")
    bench.add_argument("--batch", metavar="SIZE,...", help="batch head/tail sizes (16MiB,64MiB)")
    bench.add_argument(
        "--compare", action="store_true", help="fail when a ratio falls below the baseline"
    )
    bench.add_argument("--baseline", type=Path, help="baseline file (benchmarks/baseline.json)")
    bench.add_argument("--tolerance", type=float, help="allowed fall of a ratio (0.25)")
    bench.add_argument("--save-baseline", action="store_true", help="write this run's ratios")
    bench.set_defaults(run=_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    code: int = options.run(options)
    return code


if __name__ == "__main__":
    sys.exit(main())
