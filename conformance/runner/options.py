"""Every option of `ctxspec conform`, declared once (`CONFORM_OPTIONS`).

Each row says what the option is (flags, check, choices, default, help) and how it reaches
the pytest plugin (`reaches`):

- `PLUGIN`: an option of this plugin, which pytest parses: `ctxspec conform` passes it
  on under its pytest spelling (`pytest`), and `pytest -p ctxspec.conformance.runner.plugin`
  takes it directly. `add_options` declares these rows on pytest's parser.
- `PYTEST`: an option of pytest or of a plugin it loads (`-k`, xdist's `-n`, `--junitxml`,
  hypothesis's `--hypothesis-seed`): passed on under that spelling.
- `RUNNER`: read by `ctxspec conform` itself, never by pytest (`--replay`).

Where a pytest spelling differs from the command line's (`--json` is `--results-json`,
because pytest plugins already own `--json`, `--md`, `--timeout` and `--debug`),
`ctxspec conform` accepts both; `add_arguments` declares the rows on its parser, and
`pytest_args` turns its parsed options into pytest's arguments, row by row.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

import pytest

from ctxspec.conformance.cli_args import (
    impl_spec,
    input_file,
    keyword,
    output_dir,
    output_file,
    positive_int,
    seconds,
    workers,
)
from ctxspec.conformance.corpus.cases import BOUNDARIES, LEVELS
from ctxspec.conformance.transport.wire import DEFAULT_MAX_ANSWER_BYTES

__all__ = [
    "CONFORM_OPTIONS",
    "PLUGIN",
    "PYTEST",
    "RUNNER",
    "Option",
    "add_arguments",
    "add_options",
    "pytest_args",
]

PLUGIN: Final = "plugin"
PYTEST: Final = "pytest"
RUNNER: Final = "runner"
Reaches = Literal["plugin", "pytest", "runner"]
PROFILES: Final = ("verdict", "debug", "explore", "sweep", "ci", "dev")


@dataclass(frozen=True, slots=True, kw_only=True)
class Option:
    """One option of `ctxspec conform`: its `flags` (the first is the one shown), the
    attribute `dest` of the parsed options, how it `reaches` the plugin and its `pytest`
    spelling (None: the first flag; for `RUNNER`, none), argparse's `action`, the `check`
    that parses a value (raising `ArgumentTypeError`), `choices`, `default`, `metavar`,
    `help`, and `render` when a value is not passed on as `[pytest, value]`."""

    flags: tuple[str, ...]
    dest: str
    reaches: Reaches
    help: str
    pytest: str | None = None
    action: Literal["store", "append", "store_true"] = "store"
    check: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    default: Any = None
    metavar: str | None = None
    render: Callable[[Any], list[str]] | None = None

    @property
    def pytest_flag(self) -> str | None:
        """The spelling pytest parses; None for a `RUNNER` option."""
        return None if self.reaches == RUNNER else (self.pytest or self.flags[0])

    def spellings(self) -> tuple[str, ...]:
        """The flags `ctxspec conform` accepts: its own, then the pytest spelling."""
        flag = self.pytest_flag
        return self.flags + ((flag,) if flag and flag not in self.flags else ())

    def argparse_keywords(self) -> dict[str, Any]:
        """`add_argument`'s keywords, shared by both parsers (less `dest`)."""
        keywords: dict[str, Any] = {"action": self.action, "help": self.help}
        if self.action != "store_true":
            keywords |= {"type": self.check, "choices": self.choices, "metavar": self.metavar}
            keywords["default"] = [] if self.action == "append" else self.default
        return {key: value for key, value in keywords.items() if value is not None}

    def to_pytest(self, value: Any) -> list[str]:
        """The pytest arguments for `value`: none for the default."""
        flag = self.pytest_flag
        if self.render is not None:
            return self.render(value)
        if flag is None or value in (None, False, [], self.default):
            return []
        if self.action == "store_true":
            return [flag]
        values = value if self.action == "append" else [value]
        return [part for each in values for part in (flag, str(each))]


def _workers(value: str | None) -> list[str]:
    # one worker runs in the runner's own process: a worker process is one more
    # interpreter, corpus and collection, and one more start of the implementation
    # (the start-up check's is kept), for the same tests in the same order
    return ["-n", value] if value and value not in ("0", "1") else []


def _debug(value: bool) -> list[str]:
    # without --debug, each failure is told once, as protocol data, by the plugin's
    # summary: no pytest traceback section, no `FAILED` short summary
    return ["--ctxspec-debug"] if value else ["--tb=no", "-rN"]


CONFORM_OPTIONS: Final = (
    Option(
        flags=("--impl",),
        dest="impl",
        reaches=PLUGIN,
        check=impl_spec,
        default="reference",
        help="reference (default), fastengine, pi@VERSION, NAME@VERSION (`ctxspec impl "
        "list`), or a command speaking protocol v1",
    ),
    Option(
        flags=("--case",),
        dest="case",
        reaches=PLUGIN,
        action="append",
        metavar="ID",
        help="only this case (repeatable)",
    ),
    Option(
        flags=("--boundary",),
        dest="boundary",
        reaches=PLUGIN,
        action="append",
        choices=tuple(sorted(BOUNDARIES)),
        help="only this boundary's cases and properties (repeatable)",
    ),
    Option(
        flags=("--op",),
        dest="op",
        reaches=PLUGIN,
        action="append",
        help="only cases of this op (repeatable)",
    ),
    Option(
        flags=("-k",),
        dest="k",
        reaches=PYTEST,
        check=keyword,
        metavar="EXPR",
        help="pytest -k expression over case ids",
    ),
    Option(
        flags=("--expectations",),
        dest="expectations",
        reaches=PLUGIN,
        metavar="FILE",
        help="known-divergences YAML file (default: the shipped one for --impl; `none`: no file)",
    ),
    Option(
        flags=("--level",),
        dest="level",
        reaches=PLUGIN,
        choices=LEVELS,
        default="compat",
        help="compat (default): a case the pinned Pi fails too is `failed-as-pi`, counted "
        "apart, not failed; invariant: it fails the run like any other",
    ),
    Option(
        flags=("--agent-profile",),
        dest="agent_profile",
        reaches=PLUGIN,
        metavar="NAME|FILE",
        help="the agent profile the agent.* answers are judged by: a shipped one by "
        "its family's name (a wrong name lists them) or a YAML file "
        "(default: --impl's family's, else Pi's)",
    ),
    Option(
        flags=("--junit",),
        dest="junit",
        reaches=PYTEST,
        pytest="--junitxml",
        check=output_file,
        metavar="FILE",
        help="write JUnit XML",
    ),
    Option(
        flags=("--json",),
        dest="json",
        reaches=PLUGIN,
        pytest="--results-json",
        check=output_file,
        metavar="FILE",
        help="write the JSON results: a header and one record per case and property",
    ),
    Option(
        flags=("--md",),
        dest="md",
        reaches=PLUGIN,
        pytest="--summary-md",
        check=output_file,
        metavar="FILE",
        help="write a Markdown summary",
    ),
    Option(
        flags=("-n",),
        dest="numprocesses",
        reaches=PYTEST,
        check=workers,
        metavar="N",
        render=_workers,
        help="parallel workers (pytest-xdist), e.g. auto; 1 runs in this process",
    ),
    Option(
        flags=("--timeout",),
        dest="timeout",
        reaches=PLUGIN,
        pytest="--request-timeout",
        check=seconds,
        default=30.0,
        metavar="S",
        help="seconds an implementation may take for one request (default 30)",
    ),
    Option(
        flags=("--max-answer-bytes",),
        dest="max_answer_bytes",
        reaches=PLUGIN,
        check=positive_int,
        default=DEFAULT_MAX_ANSWER_BYTES,
        metavar="N",
        help="bytes one answer line may hold; a longer one is an error (default 64 MiB)",
    ),
    Option(
        flags=("--profile",),
        dest="profile",
        reaches=PYTEST,
        pytest="--hypothesis-profile",
        choices=PROFILES,
        help="property examples: verdict (default: a fixed set, the same everywhere), debug "
        "(the same, verbose), explore (random), sweep (random, as many as verdict); ci and "
        "dev: old names of verdict and explore",
    ),
    Option(
        flags=("--explore",),
        dest="explore",
        reaches=PLUGIN,
        action="store_true",
        help="random property examples instead of the verdict's fixed set (an exploration, "
        "not a verdict)",
    ),
    Option(
        flags=("--seed",),
        dest="seed",
        reaches=PYTEST,
        pytest="--hypothesis-seed",
        check=int,
        help="with --explore: the random seed, to replay a run",
    ),
    Option(
        flags=("--record-requests",),
        dest="record_requests",
        reaches=PLUGIN,
        check=output_file,
        metavar="FILE",
        help="append the requests of each failing property's minimal example here (what "
        "`ctxspec sweep` reads)",
    ),
    Option(
        flags=("--replay",),
        dest="replay",
        reaches=RUNNER,
        check=input_file,
        metavar="FILE",
        help="ask the requests of a failing property's saved example again (the file its "
        "report names), and show both answers and the differences; no suite is run",
    ),
    Option(
        flags=("--write-case",),
        dest="write_case",
        reaches=RUNNER,
        check=output_dir,
        metavar="DIR",
        help="with --replay: pin each request answered otherwise than the reference as a "
        "case in DIR/<boundary>/ (corpora/cases: the corpus)",
    ),
    Option(
        flags=("--debug",),
        dest="debug",
        reaches=PLUGIN,
        pytest="--ctxspec-debug",
        action="store_true",
        render=_debug,
        help="for ctxspec's developers: pytest's own report (traceback, reprs) after each "
        "failure's",
    ),
    Option(
        flags=("-v", "--verbose"),
        dest="verbose",
        reaches=PYTEST,
        action="store_true",
        render=lambda verbose: ["-v"] if verbose else ["-q"],
        help="verbose: a line per test",
    ),
)


def add_options(parser: pytest.Parser) -> None:
    """The plugin's own rows of `CONFORM_OPTIONS`, on pytest's parser (the `ctxspec` group),
    each under its pytest spelling."""
    group = parser.getgroup("ctxspec", "ctxspec conformance")
    for option in CONFORM_OPTIONS:
        if option.reaches == PLUGIN:
            group.addoption(str(option.pytest_flag), **option.argparse_keywords())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every row of `CONFORM_OPTIONS` on `ctxspec conform`'s parser: its flags, and its
    pytest spelling as an alias (named in the help; an error names the spelling used)."""
    for option in CONFORM_OPTIONS:
        keywords = option.argparse_keywords()
        aliases = option.spellings()[len(option.flags) :]
        also = f" (also {', '.join(aliases)})" if aliases else ""
        parser.add_argument(
            *option.flags, dest=option.dest, **keywords | {"help": option.help + also}
        )
        for alias in aliases:
            parser.add_argument(alias, dest=option.dest, **keywords | {"help": argparse.SUPPRESS})


def pytest_args(options: argparse.Namespace) -> list[str]:
    """The pytest arguments of `ctxspec conform`'s parsed `options`, in the table's order."""
    return [
        arg for option in CONFORM_OPTIONS for arg in option.to_pytest(getattr(options, option.dest))
    ]
