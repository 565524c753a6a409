"""The conformance subpackage's commands (`COMMANDS`, which the core `ctxspec.cli`
registers), and the handler of `ctxspec conform`.

    ctxspec conform [--impl reference|fastengine|NAME@VERSION|"<command>"] [--case ID] [--op OP]
                    [-k EXPR] [--boundary B] [--junit FILE] [--json FILE] [--md FILE] [-n N] [--]
    ctxspec impl install|lock|list      the named implementations, their installs and locks
    ctxspec expectations write --impl X [--from results.json]   known divergences from a run
    ctxspec changelog pi@A..pi@B [--out FILE]   what changed between releases, by bisection
    ctxspec matrix --impl A --impl B ... [--from F ...]   HTML/JSON matrix and badges
    ctxspec cases list|lint|show [--root DIR]   the corpus
    ctxspec fuzz --impl X [--against pi@0.85.0] ...   differential fuzzing
    ctxspec smoke --impl X [--timeout S] [--json FILE]   handshake, framing and shape
    ctxspec sweep --impl X [--seeds N] ...   the properties under many seeds

`conform`'s options are the table `runner.options.CONFORM_OPTIONS`, which also declares
the plugin's pytest options; `conform` runs pytest in this process with the suite and
each option's pytest spelling (`pytest_command`). Each command's exit statuses are its
rows of `ctxspec.exits`.

`python -m ctxspec.conformance.cli` is kept as another spelling of `python -m ctxspec`.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Final

import pytest

from ctxspec import exits
from ctxspec.cli import Command, UsageError
from ctxspec.conformance.cli_args import check_agent_profile, check_expectations, check_selection
from ctxspec.conformance.commands import (
    cases_arguments,
    cases_command,
    changelog_arguments,
    changelog_command,
    expectations_arguments,
    expectations_command,
    impl_arguments,
    impl_command,
)
from ctxspec.conformance.errors import CorpusError
from ctxspec.conformance.runner.options import add_arguments, pytest_args
from ctxspec.conformance.runner.replay import check_replay_options, replay
from ctxspec.conformance.runner.smoke import main_smoke, smoke_arguments
from ctxspec.conformance.tools.fuzz_cli import fuzz_arguments, main_fuzz
from ctxspec.conformance.tools.matrix import main_matrix, matrix_arguments
from ctxspec.conformance.tools.sweep import main_sweep, sweep_arguments
from ctxspec.conformance.transport.resolve import InstallError, canonical_name, prepare

__all__ = ["COMMANDS", "pytest_command"]

_Run = Callable[[argparse.Namespace], int]
# pytest's own statuses that `conform` reports as bad usage
_USAGE_FROM_PYTEST: Final = {pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.NO_TESTS_COLLECTED}


def _suite_ini() -> str:
    return str(resources.files("ctxspec.conformance").joinpath("suite", "pytest.ini"))


def pytest_command(options: argparse.Namespace) -> list[str]:
    """The pytest arguments `ctxspec conform` runs: the suite with this plugin alone, then
    each option under its pytest spelling (`runner.options`), then what followed `--`."""
    suite = [
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
    ]
    return suite + pytest_args(options) + list(options.pytest_args)


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
        return exits.USAGE
    if options.replay:
        return replay(options)
    code = pytest.main(pytest_command(options))
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:  # -k or pytest's own selection
        what = f"{options.k!r} matches" if options.k else "the selection matches"
        raise UsageError("-k" if options.k else None, f"{what} no case or property")
    return exits.USAGE if code in _USAGE_FROM_PYTEST else int(code)


def conform_arguments(conform: argparse.ArgumentParser) -> None:
    add_arguments(conform)
    conform.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")


def _corpus_is_usage(run: _Run) -> _Run:
    """`run`, with a broken corpus or expectations file reported as bad usage (one line)."""

    @functools.wraps(run)
    def checked(options: argparse.Namespace) -> int:
        try:
            return run(options)
        except CorpusError as error:
            raise UsageError(None, f"broken corpus: {error}") from None

    return checked


COMMANDS: Final = (
    Command(
        name="conform",
        help="run the suite against an implementation",
        description="Run the conformance suite against an implementation: each golden case "
        "and property, judged against the reference. Anything after `--` goes to pytest.",
        arguments=conform_arguments,
        run=_corpus_is_usage(_conform),
        exit_rows=("conform", "conform --replay"),
    ),
    Command(
        name="impl",
        help="manage implementations ctxspec installs",
        description="impl list: the families ctxspec installs, and the locked Pi versions; "
        "impl install NAME@VERSION: install one into the cache; impl lock pi@VERSION: a "
        "commit-ready lock of an installed Pi (from a checkout).",
        arguments=impl_arguments,
        run=_corpus_is_usage(impl_command),
    ),
    Command(
        name="expectations",
        help="write an expectations file from a run",
        arguments=expectations_arguments,
        run=_corpus_is_usage(expectations_command),
        exit_rows=("expectations write",),
    ),
    Command(
        name="changelog",
        help="behaviour changes between releases",
        description="What changed between two releases of a family, found by bisection.",
        arguments=changelog_arguments,
        run=_corpus_is_usage(changelog_command),
    ),
    Command(
        name="matrix",
        help="HTML/JSON matrix and badges over implementations",
        arguments=matrix_arguments,
        run=_corpus_is_usage(main_matrix),
    ),
    Command(
        name="cases",
        help="list, lint or show the corpus",
        description="cases list: one line per case; cases lint: the corpus's problems; cases "
        "show ID ...: those cases with their builders expanded, one JSON object a line.",
        arguments=cases_arguments,
        run=_corpus_is_usage(cases_command),
    ),
    Command(
        name="fuzz",
        help="differential fuzzing of an implementation against another (Pi by default)",
        description="Differential fuzzing: requests drawn per op and asked of both "
        "implementations; each divergence shrunk to a minimal one and told as a case.",
        arguments=fuzz_arguments,
        run=_corpus_is_usage(main_fuzz),
    ),
    Command(
        name="smoke",
        help="the handshake and one request per listed op: framing and shape, in seconds",
        arguments=smoke_arguments,
        run=_corpus_is_usage(main_smoke),
    ),
    Command(
        name="sweep",
        help="run an implementation's properties under many seeds and pin what they find",
        arguments=sweep_arguments,
        run=_corpus_is_usage(main_sweep),
    ),
)

if __name__ == "__main__":
    from ctxspec.cli import main

    sys.exit(main())
