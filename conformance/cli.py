"""`ctxspec`: the command line over the pytest plugin and the tools around it.

    ctxspec conform [--impl reference|fastengine|NAME@VERSION|"<command>"] [--case ID] [--op OP]
                    [-k EXPR] [--boundary B] [--junit FILE] [--json FILE] [--md FILE] [-n N] [--]
    ctxspec impl install NAME@VERSION   install a named implementation into the cache
    ctxspec impl lock pi@VERSION        commit-ready lock of an installed Pi (from a checkout)
    ctxspec impl list                   the families ctxspec installs, and the locked Pi versions
    ctxspec expectations write --impl X [--from results.json]   known divergences from a run
    ctxspec changelog pi@A..pi@B [--out FILE]   what changed between releases, by bisection
    ctxspec matrix --impl A --impl B ... [--from F ...]   HTML/JSON matrix and badges
    ctxspec cases list|lint [--root DIR]  the corpus (or DIR): one line per case, or its lint
    ctxspec fuzz --impl X [--against pi@0.85.0] [--op OP] [--examples N] [--seed S]
                 [--write-cases DIR]   differential fuzzing; minimal divergences as cases
    ctxspec bench [--impl A --impl B ...] [SIZE ...] [--compare]  implementations side by side
                 over the protocol (default fastengine, pi@0.85.0): report, plots, ratio gate
    ctxspec smoke --impl X [--timeout S] [--json FILE]   the handshake and one request per
                 listed op: framing and shape, in seconds (exit 0 all in shape, 1 not, 6 no start)

Exit status (docs/cli.md): 0 when nothing failed, errored or passed unexpectedly;
1 when something did; 2 bad usage: an argument ctxspec refuses, a selection that matches
no case or property, an expectations file that cannot be read or names an id the suite
does not have, an install that failed, a broken corpus (one line on stderr each, from
`cli_args`; pytest's own usage status 4 and its "nothing selected" 5 become 2), or a run
interrupted; 3 an internal error (a bug); 6 the implementation did not start.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ctxspec.benchmarks.command import add_bench_command
from ctxspec.conformance.cli_args import (
    USAGE_STATUS,
    Parser,
    UsageError,
    check_agent_profile,
    check_expectations,
    check_selection,
    impl_spec,
    input_dir,
    input_file,
    keyword,
    output_dir,
    output_file,
    pi_range,
    positive_int,
    seconds,
    workers,
)
from ctxspec.conformance.commands import changelog_command, expectations_command, impl_command
from ctxspec.conformance.corpus.aliases import lint as lint_aliases
from ctxspec.conformance.corpus.aliases import new_id, warn_renamed
from ctxspec.conformance.corpus.cases import (
    BOUNDARIES,
    LEVELS,
    Case,
    lint,
    load_cases,
    load_cases_from,
    same_input,
)
from ctxspec.conformance.errors import CorpusError
from ctxspec.conformance.runner.replay import check_replay_options, replay
from ctxspec.conformance.runner.smoke import add_smoke_command
from ctxspec.conformance.tools.fuzz_cli import add_fuzz_command
from ctxspec.conformance.tools.matrix import add_matrix_command
from ctxspec.conformance.tools.sweep import add_sweep_command
from ctxspec.conformance.transport.resolve import InstallError, canonical_name, prepare

__all__ = ["main"]


def _suite_ini() -> str:
    return str(resources.files("ctxspec.conformance").joinpath("suite", "pytest.ini"))


def conform_args(options: argparse.Namespace) -> list[str]:
    """The pytest command line that `ctxspec conform` runs."""
    args = [
        "-c",
        _suite_ini(),
        "--rootdir",
        str(Path.cwd()),
        # no conftest.py of the directory it runs in (pytest looks in ./ and ./test*/):
        # a project's own test set-up must not load into, or change, the verdict
        "--noconftest",
        "-p",
        "ctxspec.conformance.runner.plugin",
        "--pyargs",
        "ctxspec.conformance.suite",
        "--impl",
        options.impl,
        "--request-timeout",
        str(options.timeout),
    ]
    for case_id in options.case:
        args += ["--case", case_id]
    for boundary in options.boundary:
        args += ["--boundary", boundary]
    for op in options.op:
        args += ["--op", op]
    if options.k:
        args += ["-k", options.k]
    if options.expectations:
        args += ["--expectations", options.expectations]
    if options.agent_profile:
        args += ["--agent-profile", options.agent_profile]
    if options.level != "compat":
        args += ["--level", options.level]
    if options.junit:
        args += ["--junitxml", options.junit]
    if options.json:
        args += ["--results-json", options.json]
    if options.md:
        args += ["--summary-md", options.md]
    if options.numprocesses and options.numprocesses not in ("0", "1"):
        # one worker runs in the runner's own process: a worker process is one more
        # interpreter, corpus and collection, and one more start of the implementation
        # (the start-up check's is kept), for the same tests in the same order
        args += ["-n", options.numprocesses]
    if options.max_answer_bytes is not None:
        args += ["--max-answer-bytes", str(options.max_answer_bytes)]
    if options.profile:
        args += ["--hypothesis-profile", options.profile]
    if options.explore:
        args += ["--explore"]
    if options.seed is not None:
        args += ["--hypothesis-seed", str(options.seed)]
    # without --debug, each failure is told once, as protocol data, by the plugin's
    # summary: no pytest traceback section, no `FAILED` short summary
    args += ["--ctxspec-debug"] if options.debug else ["--tb=no", "-rN"]
    args += ["-q"] if not options.verbose else ["-v"]
    return args + list(options.pytest_args)


def _conform(options: argparse.Namespace) -> int:
    check_replay_options(options)
    if options.seed is not None and not (
        options.explore or options.profile in {"explore", "dev", "sweep"}
    ):
        raise UsageError("--seed", "only with --explore (the verdict's examples are fixed)")
    check_selection(options.case, options.boundary, options.op)
    options.impl = canonical_name(options.impl)
    check_expectations(options.expectations, options.impl)
    check_agent_profile(options.agent_profile, options.impl)
    try:
        prepare(options.impl)  # before pytest, so progress and errors are plain to see
    except InstallError as error:
        print(f"ctxspec: {error}", file=sys.stderr)
        return 2
    if options.replay:
        return replay(options)
    code = pytest.main(conform_args(options))
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:  # -k or pytest's own selection
        what = f"{options.k!r} matches" if options.k else "the selection matches"
        raise UsageError("-k" if options.k else None, f"{what} no case or property")
    return USAGE_STATUS if code == pytest.ExitCode.USAGE_ERROR else int(code)


def _cases(options: argparse.Namespace) -> int:
    try:
        cases = load_cases_from(Path(options.root)) if options.root else load_cases()
        # the alias table belongs to the shipped corpus
        alias_problems = [] if options.root else lint_aliases(case.id for case in cases)
    except CorpusError as error:
        print(f"ctxspec: broken corpus: {error}", file=sys.stderr)
        return 2
    if options.action == "list":
        for case in cases:
            print(f"{case.id}\t{case.boundary}\t{case.op}\t{case.rule}\t{case.level}\t{case.why}")
        return 0
    if options.action == "show":
        return _show_cases(cases, options.ids)
    problems = lint(cases) + alias_problems
    for problem in problems:
        print(problem)
    print(f"{len(cases)} cases, {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


def _expect(case: Case) -> dict[str, Any]:
    if case.expect_holds is not None:
        return {"holds": list(case.expect_holds)}
    return {"error": case.expect_error} if case.expects_error else {"result": case.expect_result}


def _show_cases(cases: Sequence[Case], ids: Sequence[str]) -> int:
    """Print the named cases with their builders expanded, one JSON object a line (what a
    reader in another language needs of a case built by `$session` or `$lines`)."""
    by_id = {case.id: case for case in cases}
    warn_renamed([case_id for case_id in ids if new_id(case_id) != case_id], "cases show")
    ids = [new_id(case_id) for case_id in ids]
    unknown = [case_id for case_id in ids if case_id not in by_id]
    if not ids or unknown:
        named = f"no case with id {', '.join(unknown)}" if unknown else "no case id given"
        print(f"ctxspec: cases show: {named} (see `ctxspec cases list`)", file=sys.stderr)
        return 2
    for case_id in ids:
        case = by_id[case_id]
        expect = _expect(case)
        record: dict[str, Any] = {
            "id": case.id,
            "op": case.op,
            "rule": case.rule,
            "level": case.level,
            "args": case.args,
            "expect": expect,
        }
        twins = same_input(case)  # the same request at another level: which one Pi follows
        if twins:
            record["sameRequest"] = [
                {"id": twin.id, "level": twin.level, "expect": _expect(twin)} for twin in twins
            ]
        print(json.dumps(record))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="ctxspec", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    conform = commands.add_parser("conform", help="run the suite against an implementation")
    conform.add_argument(
        "--impl",
        type=impl_spec,
        default="reference",
        help="reference (default), fastengine, pi@VERSION, NAME@VERSION (`ctxspec impl "
        "list`), or a command speaking protocol v1",
    )
    conform.add_argument(
        "--case", action="append", default=[], metavar="ID", help="only this case (repeatable)"
    )
    conform.add_argument(
        "--boundary",
        action="append",
        default=[],
        choices=sorted(BOUNDARIES),
        help="only this boundary's cases and properties (repeatable)",
    )
    conform.add_argument(
        "--op", action="append", default=[], help="only cases of this op (repeatable)"
    )
    conform.add_argument(
        "-k", type=keyword, default=None, help="pytest -k expression over case ids"
    )
    conform.add_argument(
        "--expectations", default=None, help="known-divergences YAML file (`none`: no file)"
    )
    conform.add_argument(
        "--level",
        choices=LEVELS,
        default="compat",
        help="compat (default): a case the pinned Pi fails too is `failed-as-pi`, counted "
        "apart, not failed; invariant: it fails the run like any other",
    )
    conform.add_argument(
        "--agent-profile",
        default=None,
        metavar="NAME|FILE",
        help="the agent profile the agent.* answers are judged by: a shipped one "
        "(gemini-cli, codex, cline, pi) or a YAML file (default: --impl's family's, else Pi's)",
    )
    conform.add_argument(
        "--junit", type=output_file, default=None, metavar="FILE", help="write JUnit XML"
    )
    conform.add_argument(
        "--json", type=output_file, default=None, metavar="FILE", help="write JSON results"
    )
    conform.add_argument(
        "--md", type=output_file, default=None, metavar="FILE", help="write a Markdown summary"
    )
    conform.add_argument(
        "-n",
        dest="numprocesses",
        type=workers,
        default=None,
        help="parallel workers (pytest-xdist), e.g. auto; 1 runs in this process",
    )
    conform.add_argument("--timeout", type=seconds, default=30.0, help="seconds per request")
    conform.add_argument(
        "--max-answer-bytes",
        type=positive_int,
        default=None,
        help="longest answer line accepted (default 64 MiB); a longer one is an error",
    )
    conform.add_argument(
        "--profile",
        choices=("verdict", "debug", "explore", "sweep", "ci", "dev"),
        default=None,
        help="property examples: verdict (default: a fixed set, the same everywhere), debug "
        "(the same, verbose), explore (random), sweep (random, as many as verdict); ci and "
        "dev: old names of verdict and explore",
    )
    conform.add_argument(
        "--explore",
        action="store_true",
        help="random property examples instead of the verdict's fixed set (an exploration)",
    )
    conform.add_argument(
        "--seed", type=int, default=None, help="with --explore: the random seed, to replay a run"
    )
    conform.add_argument(
        "--replay",
        type=input_file,
        default=None,
        metavar="FILE",
        help="ask the requests of a failing property's saved example again (the file its "
        "report names), and show both answers and the differences; no suite is run",
    )
    conform.add_argument(
        "--write-case",
        type=output_dir,
        default=None,
        metavar="DIR",
        help="with --replay: pin each request answered otherwise than the reference as a "
        "case in DIR/<boundary>/ (corpora/cases: the corpus)",
    )
    conform.add_argument(
        "--debug",
        action="store_true",
        help="for ctxspec's developers: pytest's own report (traceback, reprs) after each "
        "failure's",
    )
    conform.add_argument("-v", "--verbose", action="store_true")
    conform.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    conform.set_defaults(run=_conform)

    impl = commands.add_parser("impl", help="manage implementations ctxspec installs")
    impl.add_argument("action", choices=("install", "lock", "list"))
    impl.add_argument("name", nargs="?", help="NAME@VERSION, e.g. pi@1.6.0")
    impl.add_argument(
        "--json",
        action="store_true",
        help="list: one JSON object (the shipped implementations, the families, the Pi locks)",
    )
    impl.set_defaults(run=impl_command)

    _add_tool_commands(commands)

    cases = commands.add_parser("cases", help="list, lint or show the corpus")
    cases.add_argument("action", choices=("list", "lint", "show"))
    cases.add_argument("ids", nargs="*", metavar="ID", help="show: the cases to print expanded")
    cases.add_argument(
        "--root", type=input_dir, metavar="DIR", help="cases laid out as corpora/cases/ elsewhere"
    )
    cases.set_defaults(run=_cases)

    add_bench_command(commands)
    return parser


def _add_tool_commands(commands: Any) -> None:
    expect = commands.add_parser("expectations", help="write an expectations file from a run")
    expect.add_argument("action", choices=("write",))
    expect.add_argument(
        "--impl", type=impl_spec, required=True, help="the implementation (pi@1.6.0, a command)"
    )
    expect.add_argument("--from", dest="source", metavar="RESULTS", help="a --json results file")
    expect.add_argument(
        "--file", type=output_file, help="the expectations file (default: the shipped one)"
    )
    expect.add_argument(
        "--changes", type=input_file, help="change catalogue (default: expectations/changes/)"
    )
    expect.add_argument(
        "-n", dest="numprocesses", type=workers, default="auto", help="parallel workers"
    )
    expect.set_defaults(run=expectations_command)

    changelog = commands.add_parser("changelog", help="behaviour changes between releases")
    changelog.add_argument("range", type=pi_range, help="pi@A..pi@B")
    changelog.add_argument(
        "--out", type=output_file, help="write the Markdown page here (default: stdout)"
    )
    changelog.add_argument(
        "-n", dest="numprocesses", type=workers, default=None, help="parallel workers"
    )
    changelog.add_argument("--data", help="save the outcomes as JSON (or read them: --rerender)")
    changelog.add_argument(
        "--rerender", action="store_true", help="write the page from --data, running nothing"
    )
    changelog.set_defaults(run=changelog_command)

    add_matrix_command(commands)
    add_fuzz_command(commands)
    add_smoke_command(commands)
    add_sweep_command(commands)


def main(argv: Sequence[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    try:
        code: int = options.run(options)
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
    except UsageError as error:
        print(f"ctxspec {options.command}: error: {error}", file=sys.stderr)
        return USAGE_STATUS
    except CorpusError as error:
        print(f"ctxspec {options.command}: error: broken corpus: {error}", file=sys.stderr)
        return USAGE_STATUS
    except BrokenPipeError:  # `ctxspec cases list | head`: the reader left, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
